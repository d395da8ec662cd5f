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
 * The checked-in PTX is what scripts/gen-ptx.sh makes of local_sums.cu. Runs where nvcc is present
 * and is the release that wrote the checked-in file; skipped with the reason otherwise.
 */
class PtxMatchesSourceTest {
  static final Path ROOT = Path.of("").toAbsolutePath();
  static final Path PTX = ROOT.resolve("device/src/main/resources/parreg/kernels/local_sums.ptx");
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
    Assumptions.assumeTrue(Files.isRegularFile(SCRIPT) && Files.isRegularFile(PTX),
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
    Path out = tmp.resolve("local_sums.ptx");
    run("bash", SCRIPT.toString(), out.toString());
    assertEquals(checkedIn, Files.readString(out, StandardCharsets.US_ASCII),
        "local_sums.ptx is stale: run scripts/gen-ptx.sh and commit the result");
  }
}
