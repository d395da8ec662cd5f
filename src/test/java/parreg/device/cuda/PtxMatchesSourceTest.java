package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checked-in PTX files are what scripts/gen-ptx.sh makes of their sources: the product's
 * local_sums.cu and the benchmark's comparison_sums.cu (both over local_sums.cuh). Runs where nvcc
 * is present and is the release that wrote the checked-in files; skipped with the reason otherwise.
 */
class PtxMatchesSourceTest {
  static final Path ROOT = Path.of("").toAbsolutePath();
  static final Path PTX = ROOT.resolve("device/src/main/resources/parreg/kernels/local_sums.ptx");
  static final Path COMPARISON_PTX = ROOT.resolve("bench/src/main/resources/parreg/bench/kernels/comparison_sums.ptx");
  static final Path SCRIPT = ROOT.resolve("scripts/gen-ptx.sh");

  static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "timed out: " + String.join(" ", cmd));
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out);
    }
    return out;
  }

  @Test
  void checkedInPtxMatchesTheSource(@TempDir Path tmp) throws Exception {
    Assumptions.assumeTrue(Files.isRegularFile(SCRIPT) && Files.isRegularFile(PTX) && Files.isRegularFile(COMPARISON_PTX),
        "skipped: run from the repository root (scripts/gen-ptx.sh and the PTX not found under " + ROOT + ")");
    String version;
    try {
      version = run("nvcc", "--version");
    } catch (IOException e) {
      Assumptions.abort("skipped: nvcc is not on the PATH here, so the PTX cannot be regenerated");
      return;
    }
    String checkedIn = Files.readString(PTX, StandardCharsets.US_ASCII);
    String release = version.lines().filter(l -> l.startsWith("Cuda compilation tools")).findFirst().orElse("?");
    Assumptions.assumeTrue(checkedIn.contains("// " + release + "\n"),
        "skipped: nvcc here is '" + release + "', the checked-in PTX was written by another release");
    run("bash", SCRIPT.toString(), tmp.toString());
    assertEquals(checkedIn, Files.readString(tmp.resolve("local_sums.ptx"), StandardCharsets.US_ASCII),
        "local_sums.ptx is stale: run scripts/gen-ptx.sh and commit the result");
    assertEquals(Files.readString(COMPARISON_PTX, StandardCharsets.US_ASCII),
        Files.readString(tmp.resolve("comparison_sums.ptx"), StandardCharsets.US_ASCII),
        "comparison_sums.ptx is stale: run scripts/gen-ptx.sh and commit the result");
  }
}
