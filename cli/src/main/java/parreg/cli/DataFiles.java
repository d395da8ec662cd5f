package parreg.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import parreg.device.Partition;
import parreg.device.PartitionSource;
import parreg.device.data.CsvColumns;
import parreg.device.data.CsvDialect;
import parreg.device.data.DataFormatException;
import parreg.device.data.PartitionFiles;
import parreg.device.data.RowSlice;

/**
 * Loads a partition file named by an option; bad input becomes a {@link UserError} naming file and
 * line. Rows dropped for a missing value ({@code --na drop}) are reported on standard error, one
 * line naming the option, the file and the count.
 */
final class DataFiles {
  private DataFiles() {}

  static Partition load(Path file) {
    return load("--data", file, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, RowSlice.ALL)
        .partition();
  }

  /**
   * A file whose rows must have {@code features} features (a hold-out set for a model of that d).
   */
  static Partition load(
      String option, Path file, int features, CsvColumns columns, CsvDialect dialect) {
    return load(option, file, features, columns, dialect, RowSlice.ALL).partition();
  }

  /**
   * A node's partition. A whole {@code .prb} with a matching digest sidecar is still being read
   * when this returns ({@link PartitionFiles#open}): the node starts meanwhile. A slice, chosen CSV
   * columns or a CSV dialect other than the default are read first.
   */
  static PartitionSource open(
      String option, Path file, CsvColumns columns, CsvDialect dialect, RowSlice slice) {
    if (columns.isDefault() && dialect.equals(CsvDialect.DEFAULT) && slice.equals(RowSlice.ALL)) {
      return read(option, file, () -> PartitionFiles.open(file));
    }
    return PartitionSource.of(load(option, file, 0, columns, dialect, slice).partition());
  }

  /**
   * A node's partition held in {@code precision} (binary64: read here, at once; binary32 as {@link
   * #open(String, Path, CsvColumns, CsvDialect, RowSlice)}).
   */
  static PartitionSource open(
      String option,
      Path file,
      CsvColumns columns,
      CsvDialect dialect,
      RowSlice slice,
      parreg.device.Precision precision) {
    parreg.device.Precision stored = precisionOf(option, file);
    if (precision == parreg.device.Precision.F32) {
      if (stored == parreg.device.Precision.F64) {
        throw new UserError(
            option
                + " "
                + file
                + " is a binary64 .prb partition; binary32 data are not rounded from it: read it"
                + " at --precision f64 (the exact solver), or convert the decimal source with"
                + " --precision f32");
      }
      return open(option, file, columns, dialect, slice);
    }
    if (stored == parreg.device.Precision.F64
        && columns.isDefault()
        && dialect.equals(CsvDialect.DEFAULT)
        && slice.equals(RowSlice.ALL)) {
      // its values are already binary64: read on a background thread where its sidecar matches
      return read(option, file, () -> PartitionFiles.open(file));
    }
    PartitionFiles.Loaded l =
        read(option, file, () -> PartitionFiles.load(file, 0, columns, dialect, slice, precision));
    if (dialect.missing() == CsvDialect.Missing.DROP) {
      System.err.println("parreg: " + option + " " + file + ": " + dropped(l.droppedRows()));
    }
    return PartitionSource.of(l.partition());
  }

  /** Whether a data file is decimal text (CSV), not a binary {@code .prb} partition. */
  static boolean decimalText(String option, Path file) {
    return !read(option, file, () -> PartitionFiles.binary(file));
  }

  /** The precision of a {@code .prb} file's values (its header's), or null for CSV. */
  static parreg.device.Precision precisionOf(String option, Path file) {
    return read(option, file, () -> PartitionFiles.precisionOf(file));
  }

  /**
   * @param option the option that named the file, for messages
   * @param features the d the file must have, or 0 for any
   * @param slice the rows to read ({@code --split}), or {@link RowSlice#ALL}
   */
  static PartitionFiles.Loaded load(
      String option,
      Path file,
      int features,
      CsvColumns columns,
      CsvDialect dialect,
      RowSlice slice) {
    // binary32 rows: a binary64 .prb file is refused, not rounded
    PartitionFiles.Loaded l =
        read(
            option,
            file,
            () ->
                PartitionFiles.load(
                    file, features, columns, dialect, slice, parreg.device.Precision.F32));
    if (dialect.missing() == CsvDialect.Missing.DROP) {
      System.err.println("parreg: " + option + " " + file + ": " + dropped(l.droppedRows()));
    }
    return l;
  }

  /** "N rows with a missing value dropped (--na drop)", for summaries. */
  static String dropped(long rows) {
    return rows + " row" + (rows == 1 ? "" : "s") + " with a missing value dropped (--na drop)";
  }

  private interface Reader<T> {
    T read() throws IOException, DataFormatException;
  }

  private static <T> T read(String option, Path file, Reader<T> reader) {
    if (!Files.exists(file)) {
      throw new UserError(option + " " + file + ": no such file");
    }
    try {
      return reader.read();
    } catch (DataFormatException e) {
      throw new UserError(option + " " + e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserError(option + " " + file + ": no such file");
    } catch (IOException e) {
      throw FileErrors.userError(option + " " + file + ": cannot read", e);
    }
  }
}
