package parreg.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import parreg.device.data.DatasetGenerator;
import parreg.device.data.PartitionFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code parreg generate}: synthetic regression partitions from known true weights. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    description = {
      "Write synthetic linear-regression partitions from known true weights.",
      "The files part-0 .. part-(P-1), reproducible from the seed, and the weights in truth.json",
      "beside them. Never overwrites."
    })
public final class GenerateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--rows", required = true, description = "total rows over all partitions")
  long rows;

  @Option(names = "--features", required = true, description = "features d")
  int features;

  @Option(
      names = "--partitions",
      defaultValue = "2",
      description = "partitions P (default ${DEFAULT-VALUE})")
  int partitions;

  @Option(
      names = "--noise",
      defaultValue = "0.1",
      description = "standard deviation of the gaussian noise on y (default ${DEFAULT-VALUE})")
  double noise;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "random seed (default ${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--out", required = true, description = "output directory (created if missing)")
  Path out;

  @Option(
      names = "--format",
      defaultValue = "csv",
      description = "csv or bin (.prb binary columnar) (default ${DEFAULT-VALUE})")
  String format;

  @Option(names = "--bias", description = "give the model a bias term")
  boolean bias;

  @Override
  public Integer call() throws IOException {
    PartitionFiles.Format f =
        switch (format) {
          case "csv" -> PartitionFiles.Format.CSV;
          case "bin", "prb" -> PartitionFiles.Format.BINARY;
          default -> throw new UserError("--format must be csv or bin, not '" + format + "'");
        };
    DatasetGenerator.Spec s;
    try {
      s = new DatasetGenerator.Spec(rows, features, partitions, noise, seed, bias, f);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    DatasetGenerator.Result r;
    try {
      r = DatasetGenerator.generate(s, out);
    } catch (FileAlreadyExistsException e) {
      throw new UserError(e.getFile() + " exists; refusing to overwrite (choose another --out)");
    }
    PrintWriter o = spec.commandLine().getOut();
    o.printf(
        "wrote %d rows, d=%d%s, noise %s, seed %d in %d partition(s) to %s%n",
        rows, features, bias ? " with bias" : "", noise, seed, partitions, out);
    for (int p = 0; p < r.files().size(); p++) {
      o.printf(
          "  participant %d: %s  %d rows  sha256 %s%n",
          p, r.files().get(p).getFileName(), s.rowsOf(p), r.digests().get(p));
    }
    o.printf("true model: %s%n", r.describeModel());
    o.printf("saved in %s%n", r.truth());
    o.flush();
    return Main.OK;
  }
}
