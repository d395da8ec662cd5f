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
@Command(name = "predict", mixinStandardHelpOptions = true, description = "Predict from a trained model.")
public final class PredictCommand implements Callable<Integer> {

  static final class Source {
    @ArgGroup(exclusive = false)
    JournalSource journal;

    @Option(names = "--checkpoint", description = "an exported checkpoint file")
    Path checkpoint;
  }

  static final class JournalSource {
    @Option(names = "--journal", required = true, description = "journal directory or JDBC URL")
    String journal;

    @Option(names = "--participant", required = true, description = "participant id")
    int participant;

    @Option(names = "--run-name", description = "run name, where the journal holds several runs")
    String runName;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(names = "--x", required = true, split = ",", description = "feature values x1[,x2...]")
  List<String> x;

  @Override
  public Integer call() {
    Checkpoint cp = source.checkpoint != null
        ? Checkpoint.fromFile(source.checkpoint)
        : Checkpoint.fromJournal(source.journal.journal, source.journal.participant, source.journal.runName);
    if (!RunContract.SCHEMA.equals(cp.contract().schema())) {
      throw new UserError("the model's numerical policy " + cp.contract().schema() + " is not supported");
    }
    double[] v = new double[x.size()];
    for (int i = 0; i < v.length; i++) {
      try {
        v[i] = Double.parseDouble(x.get(i).strip());
      } catch (NumberFormatException e) {
        throw new UserError("--x value " + (i + 1) + " '" + x.get(i) + "' is not a number");
      }
      if (!Double.isFinite(v[i])) {
        throw new UserError("--x value " + (i + 1) + " '" + x.get(i) + "' is not finite");
      }
    }
    if (v.length != cp.contract().features()) {
      throw new UserError("the model has " + cp.contract().features() + " feature(s); --x gave " + v.length);
    }
    System.out.println(Double.toString(UpdateRule.predict(cp.parameters(), cp.contract().bias(), v)));
    return 0;
  }
}
