package parreg.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import parreg.device.Partition;
import parreg.device.data.DataFormatException;
import parreg.device.data.PartitionFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code parreg convert}: a partition file from CSV to binary or back; the rows keep their bits.
 */
@Command(
    name = "convert",
    mixinStandardHelpOptions = true,
    description = {
      "Convert a partition between CSV and the binary columnar format (.prb).",
      "The output's extension says which. The rows, and so the partition digest, are unchanged.",
      "Never overwrites.",
      "A CSV input may have any header (--label, --features) or none (--no-header); the output",
      "has the columns chosen, as x1..xd,y.",
      "--precision f64 writes binary64 values (a .prb of version 2; CSV in shortest binary64",
      "form); the default is the input's own precision (binary32 for CSV input)."
    })
public final class ConvertCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--in",
      required = true,
      description = "input partition (.csv, .prb, .parquet or a directory of Parquet part files)")
  Path in;

  @Option(
      names = "--out",
      required = true,
      description = "output partition: .prb for binary, .csv for CSV")
  Path out;

  @Option(
      names = "--expect-features",
      defaultValue = "0",
      description = "check that the input has this d (0: any)")
  int features;

  @picocli.CommandLine.Mixin CsvOptions csv = new CsvOptions();

  @picocli.CommandLine.Mixin NaOption na = new NaOption();

  @Option(
      names = "--precision",
      description =
          "f32 or f64: the precision of the values written (default: a .prb input's own, f32 for"
              + " CSV input). A binary64 input is not rounded to f32")
  String precision;

  @Override
  public Integer call() throws IOException {
    String name =
        out.getFileName() == null
            ? ""
            : out.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    if (!name.endsWith(".csv") && !name.endsWith(".prb")) {
      throw new UserError("--out must end in .csv or .prb, not '" + out + "'");
    }
    if (java.nio.file.Files.exists(out)) {
      throw new UserError(out + " exists; refusing to overwrite");
    }
    parreg.device.data.CsvColumns columns = csv.columns();
    parreg.device.data.CsvDialect dialect = csv.dialect(na.missing());
    parreg.device.Precision as = null;
    if (precision != null) {
      try {
        as = parreg.device.Precision.parse(precision);
      } catch (IllegalArgumentException e) {
        throw new UserError("--precision: " + e.getMessage());
      }
    }
    PartitionFiles.Loaded loaded;
    try {
      if (as == null) {
        parreg.device.Precision stored = PartitionFiles.precisionOf(in);
        as = stored != null ? stored : parreg.device.Precision.F32;
      }
      loaded =
          PartitionFiles.load(in, features, columns, dialect, parreg.device.data.RowSlice.ALL, as);
    } catch (NoSuchFileException e) {
      throw new UserError(in + ": no such file");
    } catch (DataFormatException e) {
      throw new UserError(e.getMessage(), e);
    } catch (IOException e) {
      throw FileErrors.userError("--in " + in + ": cannot read", e);
    }
    Partition p = loaded.partition();
    try {
      PartitionFiles.write(p, out);
    } catch (FileAlreadyExistsException e) {
      throw new UserError(out + " exists; refusing to overwrite");
    } catch (NoSuchFileException e) {
      throw new UserError(out + ": no such directory");
    } catch (IOException e) {
      throw FileErrors.userError("--out " + out + ": cannot write", e);
    }
    PrintWriter o = spec.commandLine().getOut();
    o.printf(
        "converted %s -> %s: %d rows, d=%d,%s sha256 %s%s%n",
        in,
        out,
        p.samples(),
        p.features(),
        p.precision() == parreg.device.Precision.F64 ? " binary64," : "",
        p.digest(),
        dialect.missing() == parreg.device.data.CsvDialect.Missing.DROP
            ? "; " + DataFiles.dropped(loaded.droppedRows())
            : "");
    o.flush();
    return Main.OK;
  }
}
