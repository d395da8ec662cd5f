package parreg.device.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Puts JCuda's driver binding where JCuda looks for it, atomically, before JCuda loads it.
 *
 * <p>JCuda extracts its native library to {@code java.io.tmpdir/libJCudaDriver-...so} when that
 * file does not exist, and loads the file as it finds it. Two JVMs probing CUDA at the same moment
 * (two nodes started together with {@code --backend auto}) race: one writes the file while the
 * other maps the half-written file and dies of SIGBUS; a process killed while writing leaves a
 * truncated file that every later start maps. Here each process writes a private copy and renames
 * it over the target, so the target is always either absent or complete (a rename never changes a
 * file that another process has mapped); a file of the wrong size is replaced.
 */
final class JCudaLibrary {
  /**
   * The Linux x86-64 binding of the JCuda version in the pom; other platforms keep JCuda's own
   * extraction.
   */
  static final String NAME = "libJCudaDriver-12.0.0-linux-x86_64.so";

  private JCudaLibrary() {}

  /** Prepares the binding in {@code java.io.tmpdir}; problems are left for JCuda to report. */
  static void prepare() {
    try {
      prepare(Path.of(System.getProperty("java.io.tmpdir")));
    } catch (IOException | RuntimeException e) {
      // JCuda's own loading then runs as before and reports what is wrong
    }
  }

  /**
   * Prepares the binding in {@code dir}; returns false where this platform's binding is not
   * bundled.
   */
  static boolean prepare(Path dir) throws IOException {
    URL resource = JCudaLibrary.class.getResource("/lib/" + NAME);
    if (resource == null) {
      return false;
    }
    // the usual case, a complete file from an earlier start, needs only the entry's size, not its 1
    // MB
    long size = resource.openConnection().getContentLengthLong();
    Path target = dir.resolve(NAME);
    if (size >= 0 && Files.isRegularFile(target) && Files.size(target) == size) {
      return true;
    }
    byte[] bytes;
    try (InputStream in = resource.openStream()) {
      bytes = in.readAllBytes();
    }
    Files.createDirectories(dir);
    Path part = Files.createTempFile(dir, NAME, ".part");
    try {
      Files.write(part, bytes);
      Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(part);
    }
    return true;
  }
}
