package parreg.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg summary}: the training summary of an exact run (SPEC section 2b), as statsmodels'
 * OLS summary shows it: each coefficient with its standard error, t statistic and p-value, then R²,
 * adjusted R², RMSE, the residual degrees of freedom and the condition estimate. Read from a node's
 * journal (the statistics it holds, solved again with the same code) or from an exported
 * checkpoint.
 */
@Command(
    name = "summary",
    mixinStandardHelpOptions = true,
    description =
        "Print the training summary of an exact run (coefficients with standard errors, t and p,"
            + " R2, RMSE) from a journal or a checkpoint.")
public final class SummaryCommand implements Callable<Integer> {
  static final class Source {
    @ArgGroup(exclusive = false)
    FromJournal journal;

    @Option(names = "--checkpoint", description = "an exported checkpoint file")
    Path checkpoint;
  }

  static final class FromJournal {
    @Option(names = "--journal", required = true, description = "journal directory or JDBC URL")
    String journal;

    @Option(names = "--participant", required = true, description = "participant id")
    int participant;

    @Option(names = "--journal-password-file", description = JournalOption.PASSWORD_FILE_HELP)
    Path journalPasswordFile;

    @Option(names = "--run-name", description = "run name, where the journal holds several runs")
    String runName;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(names = "--json", description = "print the summary as JSON")
  boolean json;

  @Override
  public Integer call() throws Exception {
    Checkpoint cp =
        source.checkpoint != null
            ? Checkpoint.fromFile(source.checkpoint)
            : Checkpoint.fromJournal(
                JournalOption.parse(source.journal.journal, source.journal.journalPasswordFile),
                source.journal.participant,
                source.journal.runName);
    if (cp.summary() == null) {
      throw new UserError(
          cp.contract().solverSpec().exact()
              ? "the run has not committed its solve yet (step 0 of 1)"
              : "the run trains by gradient descent ("
                  + cp.committedStep()
                  + " steps): a training summary exists for --solver exact runs");
    }
    Map<String, Object> summary = withPrecision(cp.summary(), cp.contract());
    if (json) {
      System.out.println(
          new ObjectMapper()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(summary));
    } else {
      System.out.print(text(summary));
    }
    return 0;
  }

  /**
   * The summary with the precision of the run's data after the solver: a checkpoint exported before
   * summaries named it has it from its contract.
   */
  static Map<String, Object> withPrecision(
      Map<String, Object> summary, parreg.device.RunContract contract) {
    if (summary.containsKey("precision")) {
      return summary;
    }
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, Object> e : summary.entrySet()) {
      m.put(e.getKey(), e.getValue());
      if (e.getKey().equals("solver")) {
        m.put("precision", contract.precision().flag());
      }
    }
    return m;
  }

  /** "binary32" or "binary64", for a summary's precision field ({@code f32}, {@code f64}). */
  static String dataWord(Object precision) {
    return "f64".equals(precision) ? "binary64" : "binary32";
  }

  /** The summary as a table, numbers in shortest form where exact matters, %g elsewhere. */
  static String text(Map<String, Object> s) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "exact least squares (%s, statistics %s), %s pass, data %s%n",
            s.get("solver"),
            s.get("order"),
            s.get("passes"),
            dataWord(s.get("precision"))));
    b.append(
        String.format(
            Locale.ROOT,
            "observations %s, parameters %s, residual df %s, intercept %s, l2 %s%n%n",
            s.get("observations"),
            s.get("parameters"),
            s.get("residualDf"),
            s.get("intercept"),
            s.get("l2")));
    b.append(
        String.format(
            Locale.ROOT,
            "%-16s %24s %12s %10s %10s%n",
            "coefficient",
            "estimate",
            "std error",
            "t",
            "P>|t|"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> cs = (List<Map<String, Object>>) s.get("coefficients");
    for (Map<String, Object> c : cs) {
      b.append(
          String.format(
              Locale.ROOT,
              "%-16s %24s %12s %10s %10s%n",
              c.get("name"),
              c.get("estimate"),
              g(c.get("stdError")),
              g(c.get("t")),
              g(c.get("p"))));
    }
    b.append('\n');
    b.append(
        String.format(
            Locale.ROOT,
            "R-squared %s, adjusted R-squared %s, RMSE %s, residual std dev %s, condition %s%n",
            g(s.get("rSquared")),
            g(s.get("adjustedRSquared")),
            g(s.get("rmse")),
            g(s.get("residualStdDev")),
            g(s.get("condition"))));
    return b.toString();
  }

  private static String g(Object v) {
    return v instanceof Number n ? String.format(Locale.ROOT, "%.4g", n.doubleValue()) : "-";
  }
}
