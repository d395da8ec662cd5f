package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution tarball that {@code mvn package} builds (scripts/build/make-dist.sh), unpacked
 * into an empty directory and run as on a machine with no JDK and no Maven: no JAVA_HOME, and a
 * PATH that holds only bash and dirname (what the launcher itself calls), so that no java or mvn
 * can be found. {@code --version}, {@code keys} (EC keys and BouncyCastle: modules jdeps cannot
 * see) and a short {@code demo} (two node processes, a kill -9, H2 journals, the loss chart through
 * java.desktop, a prediction) must all succeed on the bundled runtime.
 *
 * <p>{@code mvn test} runs before {@code package}, so the tarball is usually absent or older than
 * the classes then: the test skips, saying so. {@code mvn verify} runs it after the tarball is made
 * (surefire execution "dist-test" in pom.xml). Building the tarball here instead would add jlink
 * and xz (minutes of CPU on a fresh checkout) to every {@code mvn test}.
 */
@Tag("multiprocess")
@Tag("dist")
class DistributionTest {
  static final Path TARGET = Path.of("target").toAbsolutePath();

  @TempDir Path dir;

  @Test
  void theTarballRunsWithNeitherJdkNorMaven() throws Exception {
    Path tarball = freshTarball();
    Path unpacked = dir.resolve("opt");
    Files.createDirectories(unpacked);
    assertEquals(
        0,
        run(
                List.of("tar", "-xJf", tarball.toString(), "-C", unpacked.toString()),
                Map.of("PATH", System.getenv("PATH")),
                120)
            .exitCode());
    Path home;
    try (Stream<Path> s = Files.list(unpacked)) {
      home = s.findFirst().orElseThrow();
    }
    Path launcher = home.resolve("bin/parreg");
    assertTrue(Files.isExecutable(launcher), "bin/parreg in " + home);

    Path path = dir.resolve("path");
    Files.createDirectories(path);
    for (String tool : List.of("bash", "dirname")) {
      Files.createSymbolicLink(path.resolve(tool), which(tool));
    }
    Map<String, String> env = Map.of("PATH", path.toString(), "HOME", dir.toString());
    assertFalse(Files.exists(path.resolve("java")) || Files.exists(path.resolve("mvn")));

    NodeProcess.Result version = run(List.of(launcher.toString(), "--version"), env, 60);
    assertEquals(0, version.exitCode(), version.output());
    assertTrue(version.output().startsWith("parreg "), version.output());

    NodeProcess.Result keys =
        run(
            List.of(
                launcher.toString(),
                "keys",
                "--out",
                dir.resolve("keys").toString(),
                "--nodes",
                "2"),
            env,
            60);
    assertEquals(0, keys.exitCode(), keys.output());
    assertTrue(
        Files.exists(dir.resolve("keys/node-1.p12"))
            && Files.exists(dir.resolve("keys/truststore.p12")),
        keys.output());

    // The class-data archive of a node's classes is written where the tarball was unpacked (Java 17
    // ties it to the class path's location) and used by every later node start of this launcher;
    // a node JVM that cannot use it says "Unable to use shared archive". (cds-archive itself needs
    // a few coreutils: mktemp, rm, mv, du, tail.)
    NodeProcess.Result cds =
        run(
            List.of(launcher.toString(), "cds-archive"),
            Map.of("PATH", "/usr/bin:/bin", "HOME", dir.toString()),
            180);
    assertEquals(0, cds.exitCode(), cds.output());
    assertTrue(Files.size(home.resolve("lib/parreg.jsa")) > 0, cds.output());
    Map<String, String> traced = new java.util.HashMap<>(env);
    traced.put(
        "PARREG_JAVA_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xlog:class+load=info");
    NodeProcess.Result nodeHelp = run(List.of(launcher.toString(), "node", "--help"), traced, 60);
    assertEquals(0, nodeHelp.exitCode(), nodeHelp.output());
    assertFalse(nodeHelp.output().contains("Unable to use shared archive"), nodeHelp.output());
    assertTrue(
        nodeHelp.output().contains("parreg.cli.Main source: shared objects file (top)"),
        "a node's classes come from the archive");

    Path work = dir.resolve("demo");
    NodeProcess.Result demo =
        run(
            List.of(
                launcher.toString(),
                "demo",
                "--steps",
                "160",
                "--step-interval-ms",
                "5",
                "--dir",
                work.toString()),
            env,
            240);
    assertEquals(0, demo.exitCode(), demo.output());
    assertTrue(demo.output().contains("parreg demo: OK"), demo.output());
    assertTrue(
        Files.size(work.resolve("loss-node-1.png")) > 0,
        "the loss chart (java.desktop in the runtime)");

    // A folder moved after cds-archive: the archive (tied to the old path) is not passed, so the
    // JVM does not warn on every start; the launcher says once how to write it again.
    Path moved = unpacked.resolveSibling("moved");
    Files.move(unpacked, moved);
    NodeProcess.Result movedHelp =
        run(
            List.of(
                moved.resolve(home.getFileName()).resolve("bin/parreg").toString(),
                "node",
                "--help"),
            env,
            60);
    assertEquals(0, movedHelp.exitCode(), movedHelp.output());
    assertFalse(movedHelp.output().contains("shared archive"), movedHelp.output());
    assertTrue(
        movedHelp.output().contains("lib/parreg.jsa was written for another folder"),
        movedHelp.output());
  }

  /**
   * target/parreg-*-linux-x64.tar.xz when it is at least as new as every compiled class; else the
   * test skips.
   */
  static Path freshTarball() throws IOException {
    Optional<Path> tarball;
    try (Stream<Path> s = Files.list(TARGET)) {
      tarball =
          s.filter(p -> p.getFileName().toString().matches("parreg-.*-linux-x64\\.tar\\.xz"))
              .findFirst();
    }
    Assumptions.assumeTrue(
        tarball.isPresent(),
        "no distribution tarball in target/: mvn test runs before package; mvn verify (or mvn package, then this test) checks it");
    FileTime built = Files.getLastModifiedTime(tarball.get());
    FileTime newest;
    try (Stream<Path> s = Files.walk(TARGET.resolve("classes"))) {
      newest =
          s.filter(Files::isRegularFile)
              .map(DistributionTest::mtime)
              .max(FileTime::compareTo)
              .orElse(FileTime.fromMillis(0));
    }
    Assumptions.assumeTrue(
        built.compareTo(newest) >= 0,
        tarball.get().getFileName()
            + " is older than target/classes (stale: mvn package rebuilds it; mvn verify checks it)");
    return tarball.get();
  }

  private static FileTime mtime(Path p) {
    try {
      return Files.getLastModifiedTime(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Path which(String tool) {
    for (String d : System.getenv("PATH").split(":")) {
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new AssertionError(tool + " not on PATH");
  }

  /** Runs a command with exactly {@code env} as its environment; stdout and stderr together. */
  private NodeProcess.Result run(List<String> cmd, Map<String, String> env, long timeoutS)
      throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).directory(dir.toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    Path out = Files.createTempFile(dir, "out", ".txt");
    Process p = pb.redirectOutput(out.toFile()).start();
    if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      throw new AssertionError(
          cmd
              + " did not finish within "
              + timeoutS
              + " s: "
              + Files.readString(out, StandardCharsets.UTF_8));
    }
    return new NodeProcess.Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
  }
}
