package parreg.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import parreg.device.RunContract;
import parreg.device.UpdateRule;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg predict}: in a fresh process, reads the model (journal or checkpoint) under the
 * contract checks and prints {@code sum w_j x_j (+ b)}, computed in binary64 in index order, in
 * shortest round-trip form ({@link Double#toString}).
 */
@Command(
    name = "predict",
    mixinStandardHelpOptions = true,
    description = "Predict from a trained model.")
public final class PredictCommand implements Callable<Integer> {

  static final class Source {
    @ArgGroup(exclusive = false)
    JournalSource journal;

    @Option(names = "--checkpoint", description = "an exported checkpoint file")
    Path checkpoint;

    /**
     * Reads the model under the contract checks, refusing one this version cannot compute with
     * (another numerical policy) or one with a NaN or infinite parameter (a run that diverged
     * predicts NaN or infinity for every input). Shared by {@code predict} and {@code evaluate}.
     */
    Checkpoint load() {
      Checkpoint cp =
          checkpoint != null
              ? Checkpoint.fromFile(checkpoint)
              : Checkpoint.fromJournal(
                  JournalOption.parse(journal.journal, journal.passwordFile),
                  journal.participant,
                  journal.runName);
      if (!RunContract.SCHEMA.equals(cp.contract().schema())
          && !RunContract.SCHEMA_F64.equals(cp.contract().schema())) {
        throw new UserError(
            "the model's numerical policy " + cp.contract().schema() + " is not supported");
      }
      double[] w = cp.parameters();
      for (int j = 0; j < w.length; j++) {
        if (!Double.isFinite(w[j])) {
          throw new UserError(
              describe()
                  + ": the model at step "
                  + cp.committedStep()
                  + " has a non-finite parameter "
                  + (cp.contract().bias() && j == w.length - 1 ? "b" : "w" + (j + 1))
                  + " = "
                  + w[j]
                  + " (bits "
                  + parreg.device.Bits.hex(w[j])
                  + "); it cannot predict");
        }
      }
      return cp;
    }

    /** "checkpoint FILE" or "journal DIR", for messages. */
    String describe() {
      return checkpoint != null
          ? "checkpoint " + checkpoint
          : "journal " + parreg.persistence.JournalLocation.display(journal.journal);
    }
  }

  static final class JournalSource {
    @Option(names = "--journal", required = true, description = "journal directory or JDBC URL")
    String journal;

    @Option(names = "--journal-password-file", description = JournalOption.PASSWORD_FILE_HELP)
    Path passwordFile;

    @Option(names = "--participant", required = true, description = "participant id")
    int participant;

    @Option(names = "--run-name", description = "run name, where the journal holds several runs")
    String runName;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  static final class Input {
    @Option(names = "--x", split = ",", description = "feature values x1[,x2...]")
    List<String> x;

    @Option(
        names = "--input",
        description =
            "CSV file of rows x1,...,xd (a header line x1,... is allowed); one prediction per data row")
    Path file;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Input input;

  @picocli.CommandLine.Mixin CsvOptions csv = new CsvOptions();

  @Override
  public Integer call() {
    Checkpoint cp = source.load();
    int d = cp.contract().features();
    if (input.x != null) {
      double[] v = parse(input.x, "--x", d);
      System.out.println(Double.toString(predict(cp, v, "--x " + String.join(",", input.x))));
      return 0;
    }
    try (java.io.PrintWriter out =
        new java.io.PrintWriter(
            new java.io.BufferedWriter(new java.io.OutputStreamWriter(System.out)), false)) {
      PredictInput.run(cp, input.file, csv.columns(), csv.dialect(), out);
    }
    return 0;
  }

  /**
   * The prediction, refused when it overflows binary64 (finite parameters, finite inputs, an
   * infinite sum).
   */
  static double predict(Checkpoint cp, double[] x, String where) {
    double y = UpdateRule.predict(cp.parameters(), cp.contract().bias(), x);
    if (!Double.isFinite(y)) {
      throw new UserError(
          where + ": the prediction is " + y + " (beyond the binary64 range); no finite answer");
    }
    return y;
  }

  static double[] parse(List<String> values, String where, int d) {
    if (values.size() != d) {
      throw new UserError(
          where + ": the model has " + d + " feature(s); got " + values.size() + " value(s)");
    }
    double[] v = new double[d];
    for (int i = 0; i < d; i++) {
      String t = values.get(i).strip();
      try {
        v[i] = Double.parseDouble(t);
      } catch (NumberFormatException e) {
        throw new UserError(where + ": value " + (i + 1) + " '" + t + "' is not a number");
      }
      if (!Double.isFinite(v[i])) {
        throw new UserError(where + ": value " + (i + 1) + " '" + t + "' is not finite");
      }
    }
    return v;
  }
}
