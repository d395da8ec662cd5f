package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checked-in PTX files are what scripts/build/gen-ptx.sh makes of their sources: the product's
 * local_sums.cu and local_sums_sm90.cu (over local_sums.cuh), the benchmark's comparison_sums.cu (a
 * test of its own, with the benchmarks: about five minutes of nvcc), the exact solver's statistics
 * gram_stats.cu (over gram_stats.cuh), and the SASS shipped beside the product's PTX is ptxas's
 * compilation of that PTX. Runs where nvcc is present and is the release that wrote the checked-in
 * files; skipped with the reason otherwise.
 */
class PtxMatchesSourceTest {
  static final Path ROOT = Path.of("").toAbsolutePath();
  static final Path PTX = ROOT.resolve("device/src/main/resources/parreg/kernels/local_sums.ptx");
  static final Path COMPARISON_PTX =
      ROOT.resolve("bench/src/main/resources/parreg/bench/kernels/comparison_sums.ptx");

  /**
   * The kernels of compute capability 9.0 (local_sums_sm90.cu, PTX of compute_90) and their SASS.
   */
  static final Path SM90_PTX =
      ROOT.resolve("device/src/main/resources/parreg/kernels/local_sums_sm90.ptx");

  static final Path SM90_CUBIN =
      ROOT.resolve("device/src/main/resources/parreg/kernels/local_sums_sm90.sm_90.cubin");

  /** The SASS shipped beside the PTX (scripts/build/gen-ptx.sh: ptxas of the PTX above). */
  static final Path CUBIN =
      ROOT.resolve("device/src/main/resources/parreg/kernels/local_sums.sm_90.cubin");

  /** The exact solver's statistics kernels and their SASS. */
  static final Path GRAM_PTX =
      ROOT.resolve("device/src/main/resources/parreg/kernels/gram_stats.ptx");

  static final Path GRAM_CUBIN =
      ROOT.resolve("device/src/main/resources/parreg/kernels/gram_stats.sm_90.cubin");

  static final Path SCRIPT = ROOT.resolve("scripts/build/gen-ptx.sh");

  /**
   * The modules the product ships (gen-ptx.sh's ONLY); the comparison module is the benchmark's.
   */
  static final String PRODUCT_MODULES = "local_sums local_sums_sm90 gram_stats";

  static String run(String... cmd) throws IOException, InterruptedException {
    return runWith(null, cmd);
  }

  /** Runs {@code cmd} with {@code ONLY} (gen-ptx.sh's modules) set when not null. */
  static String runWith(String only, String... cmd) throws IOException, InterruptedException {
    ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (only != null) {
      b.environment().put("ONLY", only);
    }
    Process p = b.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "timed out: " + String.join(" ", cmd));
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out);
    }
    return out;
  }

  /**
   * The checked-in PTX {@code ptx}; the test is skipped where nvcc is missing or is not the release
   * that wrote it.
   */
  static String writtenByThisNvcc(Path ptx) throws Exception {
    String version;
    try {
      version = run("nvcc", "--version");
    } catch (IOException e) {
      Assumptions.abort("skipped: nvcc is not on the PATH here, so the PTX cannot be regenerated");
      return null;
    }
    String checkedIn = Files.readString(ptx, StandardCharsets.US_ASCII);
    String release =
        version.lines().filter(l -> l.startsWith("Cuda compilation tools")).findFirst().orElse("?");
    Assumptions.assumeTrue(
        checkedIn.contains("// " + release + "\n"),
        "skipped: nvcc here is '"
            + release
            + "', the checked-in PTX was written by another release");
    return checkedIn;
  }

  @Test
  void checkedInPtxMatchesTheSource(@TempDir Path tmp) throws Exception {
    Assumptions.assumeTrue(
        Files.isRegularFile(SCRIPT) && Files.isRegularFile(PTX) && Files.isRegularFile(CUBIN),
        "skipped: run from the repository root (scripts/build/gen-ptx.sh and the PTX not found under "
            + ROOT
            + ")");
    String checkedIn = writtenByThisNvcc(PTX);
    runWith(PRODUCT_MODULES, "bash", SCRIPT.toString(), tmp.toString());
    assertEquals(
        checkedIn,
        Files.readString(tmp.resolve("local_sums.ptx"), StandardCharsets.US_ASCII),
        "local_sums.ptx is stale: run scripts/build/gen-ptx.sh and commit the result");
    assertTrue(
        java.util.Arrays.equals(
            Files.readAllBytes(CUBIN), Files.readAllBytes(tmp.resolve(CUBIN.getFileName()))),
        "local_sums.sm_90.cubin is stale (not ptxas's compilation of the checked-in PTX): run scripts/build/gen-ptx.sh and commit the result");
    assertEquals(
        Files.readString(SM90_PTX, StandardCharsets.US_ASCII),
        Files.readString(tmp.resolve("local_sums_sm90.ptx"), StandardCharsets.US_ASCII),
        "local_sums_sm90.ptx is stale: run scripts/build/gen-ptx.sh and commit the result");
    assertTrue(
        java.util.Arrays.equals(
            Files.readAllBytes(SM90_CUBIN),
            Files.readAllBytes(tmp.resolve(SM90_CUBIN.getFileName()))),
        "local_sums_sm90.sm_90.cubin is stale: run scripts/build/gen-ptx.sh and commit the result");
    assertEquals(
        Files.readString(GRAM_PTX, StandardCharsets.US_ASCII),
        Files.readString(tmp.resolve("gram_stats.ptx"), StandardCharsets.US_ASCII),
        "gram_stats.ptx is stale: run scripts/build/gen-ptx.sh and commit the result");
    assertTrue(
        java.util.Arrays.equals(
            Files.readAllBytes(GRAM_CUBIN),
            Files.readAllBytes(tmp.resolve(GRAM_CUBIN.getFileName()))),
        "gram_stats.sm_90.cubin is stale: run scripts/build/gen-ptx.sh and commit the result");
  }

  /**
   * The benchmark's comparison module (about five minutes of nvcc, so with the benchmarks: {@code
   * mvn test -Dtest=PtxMatchesSourceTest -Dtest.excludedGroups=}).
   */
  @Test
  @Tag("benchmark")
  void checkedInComparisonPtxMatchesItsSource(@TempDir Path tmp) throws Exception {
    Assumptions.assumeTrue(
        Files.isRegularFile(SCRIPT) && Files.isRegularFile(COMPARISON_PTX),
        "skipped: run from the repository root");
    String checkedIn = writtenByThisNvcc(COMPARISON_PTX);
    runWith("comparison_sums", "bash", SCRIPT.toString(), tmp.toString());
    assertEquals(
        checkedIn,
        Files.readString(tmp.resolve("comparison_sums.ptx"), StandardCharsets.US_ASCII),
        "comparison_sums.ptx is stale: run scripts/build/gen-ptx.sh and commit the result");
  }

  /**
   * The name CudaCard looks the SASS up by is the file the script writes (else cards silently get
   * the PTX).
   */
  @Test
  void cardsOfComputeCapability90FindTheirSass() throws IOException {
    String resource = CudaCard.sassResource(CudaCard.PTX_RESOURCE, 9, 0);
    assertEquals("/parreg/kernels/local_sums.sm_90.cubin", resource);
    try (java.io.InputStream in = CudaCard.class.getResourceAsStream(resource)) {
      assertTrue(
          in != null && in.readAllBytes().length > 0, resource + " is not on the class path");
    }
    String sm90 = CudaCard.sassResource(CudaCard.SM90_PTX_RESOURCE, 9, 0);
    assertEquals("/parreg/kernels/local_sums_sm90.sm_90.cubin", sm90);
    assertTrue(CudaCard.class.getResource(sm90) != null, sm90 + " is not on the class path");
    String gram = CudaCard.sassResource(CudaGramPass.PTX_RESOURCE, 9, 0);
    assertEquals("/parreg/kernels/gram_stats.sm_90.cubin", gram);
    assertTrue(CudaCard.class.getResource(gram) != null, gram + " is not on the class path");
    assertTrue(
        CudaCard.class.getResource(CudaCard.sassResource(CudaCard.PTX_RESOURCE, 8, 6)) == null,
        "no SASS is shipped for 8.6: such cards load the PTX");
  }
}
