package parreg.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import parreg.device.Partition;
import parreg.device.PartitionSource;
import parreg.device.data.DataFormatException;
import parreg.device.data.PartitionFiles;

/** Loads a partition file named by {@code --data}; bad input becomes a {@link UserError} naming file and line. */
final class DataFiles {
  private DataFiles() {}

  static Partition load(Path file) {
    return load(file, () -> PartitionFiles.read(file));
  }

  /** A node's partition: the rows of a .prb with a matching digest sidecar are still being read ({@link PartitionFiles#open}). */
  static PartitionSource open(Path file) {
    return load(file, () -> PartitionFiles.open(file));
  }

  private interface Reader<T> {
    T read() throws IOException, DataFormatException;
  }

  private static <T> T load(Path file, Reader<T> reader) {
    if (!Files.exists(file)) {
      throw new UserError("--data " + file + ": no such file");
    }
    try {
      return reader.read();
    } catch (DataFormatException e) {
      throw new UserError(e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserError("--data " + file + ": no such file");
    } catch (IOException e) {
      throw FileErrors.userError("--data " + file + ": cannot read", e);
    }
  }
}
