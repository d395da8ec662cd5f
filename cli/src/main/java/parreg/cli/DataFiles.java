package parreg.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import parreg.device.Partition;
import parreg.device.PartitionSource;
import parreg.device.data.CsvColumns;
import parreg.device.data.DataFormatException;
import parreg.device.data.PartitionFiles;
import parreg.device.data.RowSlice;

/**
 * Loads a partition file named by an option; bad input becomes a {@link UserError} naming file and
 * line.
 */
final class DataFiles {
  private DataFiles() {}

  static Partition load(Path file) {
    return load("--data", file, CsvColumns.DEFAULT, RowSlice.ALL);
  }

  /**
   * @param option the option that named the file, for messages
   * @param columns the CSV columns to read
   * @param slice the rows to read ({@code --split}), or {@link RowSlice#ALL}
   */
  static Partition load(String option, Path file, CsvColumns columns, RowSlice slice) {
    return load(option, file, 0, columns, slice);
  }

  /**
   * A file whose rows must have {@code features} features (a hold-out set for a model of that d).
   */
  static Partition load(String option, Path file, int features, CsvColumns columns) {
    return load(option, file, features, columns, RowSlice.ALL);
  }

  /**
   * A node's partition. A whole {@code .prb} with a matching digest sidecar is still being read
   * when this returns ({@link PartitionFiles#open}): the node starts meanwhile. A slice or chosen
   * CSV columns are read first.
   */
  static PartitionSource open(String option, Path file, CsvColumns columns, RowSlice slice) {
    if (columns.isDefault() && slice.equals(RowSlice.ALL)) {
      return read(option, file, () -> PartitionFiles.open(file));
    }
    return PartitionSource.of(load(option, file, 0, columns, slice));
  }

  private static Partition load(
      String option, Path file, int features, CsvColumns columns, RowSlice slice) {
    return read(option, file, () -> PartitionFiles.read(file, features, columns, slice));
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
