package parreg.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import parreg.device.Partition;
import parreg.device.data.DataFormatException;
import parreg.device.data.PartitionFiles;

/** Loads a partition file named by {@code --data}; bad input becomes a {@link UserError} naming file and line. */
final class DataFiles {
  private DataFiles() {}

  static Partition load(Path file) {
    if (!Files.exists(file)) {
      throw new UserError("--data " + file + ": no such file");
    }
    try {
      return PartitionFiles.read(file);
    } catch (DataFormatException e) {
      throw new UserError(e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserError("--data " + file + ": no such file");
    } catch (IOException e) {
      throw FileErrors.userError("--data " + file + ": cannot read", e);
    }
  }
}
