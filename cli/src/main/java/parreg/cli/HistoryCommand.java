package parreg.cli;

import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import parreg.device.data.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg history}: a participant's loss per step from its journal, as CSV (to stdout or
 * {@code --out}) and as a PNG chart ({@code --plot}). Both files are written atomically and never
 * over an existing file; both names are checked before the journal is read, so a bad name leaves
 * nothing behind.
 */
@Command(
    name = "history",
    mixinStandardHelpOptions = true,
    description = "Loss per step from a node's journal, as CSV and a chart.")
public final class HistoryCommand implements Callable<Integer> {
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
      description = "CSV file to create: step,loss,time (default: the CSV to standard output)")
  Path out;

  @Option(names = "--plot", description = "PNG chart to create: loss per step, log scale")
  Path plot;

  @Option(
      names = "--width",
      defaultValue = "1000",
      description = "chart width in pixels (default ${DEFAULT-VALUE})")
  int width;

  @Option(
      names = "--height",
      defaultValue = "600",
      description = "chart height in pixels (default ${DEFAULT-VALUE})")
  int height;

  @Override
  public Integer call() {
    if (width < 200 || width > 10_000 || height < 150 || height > 10_000) {
      throw new UserError(
          "--width/--height "
              + width
              + "x"
              + height
              + ": the chart must be 200..10000 by 150..10000 pixels");
    }
    checkNew("--out", out);
    checkNew("--plot", plot);
    if (out != null
        && plot != null
        && out.toAbsolutePath().normalize().equals(plot.toAbsolutePath().normalize())) {
      throw new UserError("--out and --plot name the same file " + out);
    }
    LossHistory h =
        LossHistory.read(JournalOption.parse(journal, journalPasswordFile), participant, runName);
    if (out == null && plot == null) {
      try {
        h.writeCsv(System.out);
      } catch (IOException e) {
        throw new IllegalStateException("cannot write to standard output: " + e.getMessage(), e);
      }
      return 0;
    }
    if (out != null) {
      write("--out", out, ch -> h.writeCsv(Channels.newOutputStream(ch)));
      System.out.println("wrote " + h.size() + " steps to " + out);
    }
    if (plot != null) {
      writePlot(h, plot, width, height);
      System.out.println("wrote the loss chart (" + width + "x" + height + " PNG) to " + plot);
    }
    return 0;
  }

  /** Writes the chart of {@code h} to a new file {@code plot} (the demo uses it too). */
  static void writePlot(LossHistory h, Path plot, int width, int height) {
    write("--plot", plot, ch -> LossChart.writePng(h, Channels.newOutputStream(ch), width, height));
  }

  private static void checkNew(String option, Path p) {
    if (p == null) {
      return;
    }
    if (Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new UserError(option + " " + p + " already exists; it is never overwritten");
    }
    Path dir = p.toAbsolutePath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      throw new UserError(
          option
              + " "
              + p
              + ": "
              + dir
              + (dir != null && Files.exists(dir) ? " is not a directory" : " does not exist"));
    }
  }

  private static void write(String option, Path p, AtomicFiles.Content content) {
    try {
      AtomicFiles.writeNew(p, content);
    } catch (FileAlreadyExistsException e) {
      throw new UserError(option + " " + p + " already exists; it is never overwritten");
    } catch (IOException e) {
      throw FileErrors.userError(option + " " + p + ": cannot write", e);
    }
  }
}
