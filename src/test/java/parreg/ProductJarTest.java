package parreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The product jar (target/parreg.jar) and the distribution tarball carry the product only: no
 * benchmark class (parreg.bench builds apart, profile bench) and no comparison kernel
 * (comparison_sums), while the product's kernels are there. Both are made by {@code mvn package},
 * which runs after {@code mvn test}: where they are absent or older than target/classes the test
 * skips, saying so; {@code mvn verify} runs it after they are made (surefire execution "dist-test"
 * in pom.xml).
 */
class ProductJarTest {
  static final Path TARGET = Path.of("target").toAbsolutePath();

  @Test
  void theProductJarHoldsNoBenchmarkAndNoComparisonKernel() throws IOException {
    Path jar = fresh(TARGET.resolve("parreg.jar"));
    List<String> entries = entries(jar);
    assertProductOnly(jar.toString(), entries);
  }

  @Test
  void theDistributionHoldsNoBenchmarkAndNoComparisonKernel(@TempDir Path tmp) throws Exception {
    Path tarball;
    try (Stream<Path> s = Files.list(TARGET)) {
      Optional<Path> found =
          s.filter(p -> p.getFileName().toString().matches("parreg-.*-linux-x64\\.tar\\.xz"))
              .findFirst();
      Assumptions.assumeTrue(
          found.isPresent(), "no distribution tarball in target/: mvn verify checks it");
      tarball = fresh(found.get());
    }
    String listing = tar(tmp, "-tJf", tarball.toString());
    for (String file : listing.lines().toList()) {
      assertTrue(
          !file.contains("comparison_sums") && !file.contains("parreg-bench"),
          "benchmark file " + file + " in " + tarball.getFileName());
    }
    tar(tmp, "-xJf", tarball.toString(), "-C", tmp.toString(), "--wildcards", "*/lib/parreg.jar");
    Path jar;
    try (Stream<Path> s = Files.walk(tmp)) {
      jar =
          s.filter(p -> p.getFileName().toString().equals("parreg.jar")).findFirst().orElseThrow();
    }
    assertProductOnly(tarball.getFileName() + "!lib/parreg.jar", entries(jar));
  }

  static void assertProductOnly(String where, List<String> entries) {
    assertTrue(
        entries.contains("parreg/kernels/local_sums.ptx")
            && entries.contains("parreg/kernels/local_sums_sm90.ptx")
            && entries.contains("parreg/cli/Main.class"),
        where + " lacks the product's classes or kernels");
    List<String> bench =
        entries.stream()
            .filter(e -> e.startsWith("parreg/bench/") || e.contains("comparison_sums"))
            .toList();
    assertEquals(List.of(), bench, "benchmark classes or comparison kernels in " + where);
  }

  static List<String> entries(Path jar) throws IOException {
    List<String> names = new ArrayList<>();
    try (JarFile f = new JarFile(jar.toFile())) {
      for (Enumeration<JarEntry> e = f.entries(); e.hasMoreElements(); ) {
        names.add(e.nextElement().getName());
      }
    }
    return names;
  }

  /** {@code file} when it exists and is at least as new as every compiled class; else skips. */
  static Path fresh(Path file) throws IOException {
    Assumptions.assumeTrue(
        Files.isRegularFile(file),
        file.getFileName() + " not built: mvn test runs before package; mvn verify checks it");
    FileTime newest;
    try (Stream<Path> s = Files.walk(TARGET.resolve("classes"))) {
      newest =
          s.filter(Files::isRegularFile)
              .map(
                  p -> {
                    try {
                      return Files.getLastModifiedTime(p);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  })
              .max(FileTime::compareTo)
              .orElse(FileTime.fromMillis(0));
    }
    Assumptions.assumeTrue(
        Files.getLastModifiedTime(file).compareTo(newest) >= 0,
        file.getFileName() + " is older than target/classes (mvn package rebuilds it)");
    return file;
  }

  private static String tar(Path tmp, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("tar"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "tar timed out");
    assertEquals(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
    return out;
  }
}
