package parreg.device.data;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a new file so that readers see either nothing or the whole of it, and never replaces an
 * existing file: the content goes to a temporary file in the same directory, which is flushed to
 * disk ({@code fsync}), then hard-linked to the target name (which fails if the name exists, so
 * there is no check-then-act race), the temporary name removed, and the directory flushed. Where
 * the file system has no hard links, an atomic rename after an existence check is used.
 *
 * <p>A new file gets the permissions every other program's new file gets: 0666 less the process's
 * umask (0644 under umask 022, 0600 under 077). The temporary file is created without explicit
 * permissions ({@link #createTempFile}), so the operating system applies the umask, and the link or
 * rename keeps them; {@link Files#createTempFile} would make it owner-only whatever the umask.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /** Writes the content of a new file through a channel. */
  @FunctionalInterface
  public interface Content {
    void write(FileChannel out) throws IOException;
  }

  /**
   * Creates {@code target} with the given content.
   *
   * @throws FileAlreadyExistsException if {@code target} exists (it is left untouched)
   */
  public static void writeNew(Path target, Content content) throws IOException {
    Path abs = target.toAbsolutePath();
    Path dir = abs.getParent();
    if (Files.exists(abs, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(
          target.toString(), null, "exists; refusing to overwrite");
    }
    Path tmp = createTempFile(dir, "." + abs.getFileName() + ".", ".tmp");
    boolean done = false;
    try {
      try (FileChannel ch =
          FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        content.write(ch);
        ch.force(true);
      }
      try {
        Files.createLink(abs, tmp);
      } catch (UnsupportedOperationException e) {
        if (Files.exists(abs, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          throw new FileAlreadyExistsException(
              target.toString(), null, "exists; refusing to overwrite");
        }
        Files.move(tmp, abs, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      }
      done = true;
    } catch (FileAlreadyExistsException e) {
      throw new FileAlreadyExistsException(
          target.toString(), null, "exists; refusing to overwrite");
    } finally {
      Files.deleteIfExists(tmp);
      if (done) {
        syncDirectory(dir);
      }
    }
  }

  /**
   * Creates a new empty file {@code dir/PREFIX<random>SUFFIX} with the default permissions of a new
   * file (0666 less the umask), unlike {@link Files#createTempFile}, which makes it owner-only.
   */
  public static Path createTempFile(Path dir, String prefix, String suffix) throws IOException {
    for (int attempt = 0; ; attempt++) {
      Path p = dir.resolve(prefix + Long.toUnsignedString(RANDOM.nextLong()) + suffix);
      try {
        return Files.createFile(p);
      } catch (FileAlreadyExistsException e) {
        if (attempt >= 100) {
          throw e;
        }
      }
    }
  }

  private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

  /** Flushes a directory's entries to disk (best effort where the platform cannot). */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some platforms cannot open a directory as a channel; the file itself is already synced.
      if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("win")) {
        throw e;
      }
    }
  }
}
