package parreg.cli;

import java.nio.file.Path;
import parreg.device.Partition;

/** Loads a partition file named by {@code --data}; bad input becomes a {@link UserError}. */
final class DataFiles {
  private DataFiles() {}

  static Partition load(Path file) {
    throw new UserError("--data " + file + ": only the built-in seed data is supported by this build");
  }
}
