package parreg.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import parreg.device.Bits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code parreg export}: writes a participant's model from its journal to a checkpoint file. */
@Command(name = "export", mixinStandardHelpOptions = true, description = "Export a checkpoint file from a node's journal.")
public final class ExportCommand implements Callable<Integer> {
  @Option(names = "--journal", required = true, description = "journal directory or JDBC URL")
  String journal;

  @Option(names = "--participant", required = true, description = "participant id")
  int participant;

  @Option(names = "--run-name", description = "run name, where the journal holds several runs")
  String runName;

  @Option(names = "--out", required = true, description = "checkpoint file to create (must not exist)")
  Path out;

  @Override
  public Integer call() throws Exception {
    Checkpoint cp = Checkpoint.fromJournal(journal, participant, runName);
    try {
      cp.writeTo(out);
    } catch (java.io.IOException e) {
      throw FileErrors.userError("--out " + out + ": cannot write the checkpoint", e);
    }
    System.out.println("exported participant " + participant + " at step " + cp.committedStep() + " to " + out
        + " (weights " + Bits.hexList(cp.parameters()) + ")");
    return 0;
  }
}
