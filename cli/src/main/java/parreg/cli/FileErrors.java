package parreg.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * A failure on a file the user named (permissions, a read-only or special file system, a path
 * through a regular file) as one line without exception class names: exit 2, since only another
 * path or other permissions help.
 */
final class FileErrors {
  private FileErrors() {}

  /** {@code what} (e.g. "--out x.json: cannot write") followed by the reason. */
  static UserError userError(String what, IOException e) {
    return new UserError(what + ": " + reason(e), e);
  }

  /** The operating system's reason, in words. */
  static String reason(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason().toLowerCase(Locale.ROOT);
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
