package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The atomic placement of JCuda's driver binding (no GPU needed). */
class JCudaLibraryTest {
  @TempDir Path dir;

  private static byte[] resource() throws Exception {
    try (InputStream in = JCudaLibrary.class.getResourceAsStream("/lib/" + JCudaLibrary.NAME)) {
      return in.readAllBytes();
    }
  }

  @Test
  void writesTheBindingAndLeavesNoPartialFile() throws Exception {
    assertTrue(JCudaLibrary.prepare(dir));
    assertArrayEquals(resource(), Files.readAllBytes(dir.resolve(JCudaLibrary.NAME)));
    try (var files = Files.list(dir)) {
      assertTrue(
          files.allMatch(f -> f.getFileName().toString().equals(JCudaLibrary.NAME)),
          "only the library");
    }
  }

  @Test
  void replacesATruncatedFileLeftByAKilledExtraction() throws Exception {
    byte[] full = resource();
    Files.write(dir.resolve(JCudaLibrary.NAME), java.util.Arrays.copyOf(full, full.length / 3));
    assertTrue(JCudaLibrary.prepare(dir));
    assertArrayEquals(full, Files.readAllBytes(dir.resolve(JCudaLibrary.NAME)));
  }
}
