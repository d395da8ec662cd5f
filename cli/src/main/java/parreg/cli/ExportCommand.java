package parreg.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import parreg.device.Bits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg export}: writes a participant's model from its journal to a checkpoint file, or its
 * coefficients as CSV.
 */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    description = "Export a checkpoint file from a node's journal.")
public final class ExportCommand implements Callable<Integer> {
  @Option(names = "--journal", required = true, description = "journal directory or JDBC URL")
  String journal;

  @Option(names = "--journal-password-file", description = JournalOption.PASSWORD_FILE_HELP)
  Path journalPasswordFile;

  @Option(names = "--participant", required = true, description = "participant id")
  int participant;

  @Option(names = "--run-name", description = "run name, where the journal holds several runs")
  String runName;

  @Option(
      names = "--out",
      required = true,
      description = "checkpoint file to create (must not exist)")
  Path out;

  @Option(
      names = "--format",
      defaultValue = "json",
      description =
          "json: a checkpoint (predict and evaluate read it); csv: name,value,bits, one line per coefficient w1..wd, then the intercept (default ${DEFAULT-VALUE})")
  String format;

  @Override
  public Integer call() throws Exception {
    if (!format.equals("json") && !format.equals("csv")) {
      throw new UserError("--format " + format + ": expected json or csv");
    }
    Checkpoint cp =
        Checkpoint.fromJournal(
            JournalOption.parse(journal, journalPasswordFile), participant, runName);
    if (format.equals("csv")) {
      writeCsv(cp);
      System.out.println(
          "exported participant "
              + participant
              + "'s coefficients at step "
              + cp.committedStep()
              + " to "
              + out);
      return 0;
    }
    try {
      cp.writeTo(out);
    } catch (java.io.IOException e) {
      throw FileErrors.userError("--out " + out + ": cannot write the checkpoint", e);
    }
    System.out.println(
        "exported participant "
            + participant
            + " at step "
            + cp.committedStep()
            + " to "
            + out
            + " (weights "
            + Bits.hexList(cp.parameters())
            + ")");
    return 0;
  }

  /** Atomically, never over an existing file (as the checkpoint). */
  private void writeCsv(Checkpoint cp) {
    Path dir = out.toAbsolutePath().getParent();
    if (dir == null || !java.nio.file.Files.isDirectory(dir)) {
      throw new UserError(
          "--out "
              + out
              + ": "
              + dir
              + (dir != null && java.nio.file.Files.exists(dir)
                  ? " is not a directory"
                  : " does not exist"));
    }
    byte[] csv = cp.toCoefficientsCsv();
    try {
      parreg.device.data.AtomicFiles.writeNew(out, ch -> ch.write(java.nio.ByteBuffer.wrap(csv)));
    } catch (java.nio.file.FileAlreadyExistsException e) {
      throw new UserError("--out " + out + " already exists; it is never overwritten");
    } catch (java.io.IOException e) {
      throw FileErrors.userError("--out " + out + ": cannot write the coefficients", e);
    }
  }
}
