package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every file a command writes gets the permissions of any other program's new file, 0666 less the
 * umask: 0600 under {@code umask 077}, 0644 under {@code 022}. Generated and converted partitions
 * ({@code .csv}, {@code .prb}, the {@code .digest} sidecar), the exported checkpoint and
 * coefficients, the loss history and its chart, each written by a process started under that umask.
 */
@Tag("multiprocess")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OutputFileModeTest {
  @TempDir static Path dir;
  static Path journal;

  @BeforeAll
  static void aFinishedRun() throws Exception {
    Path data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n3,5\n");
    journal = dir.resolve("journal");
    NodeProcess.Result r =
        NodeProcess.run(
            SoloNode.args(
                data.toString(), journal.toString(), "20", "--exit-when-done", "--backend", "cpu"),
            Duration.ofSeconds(90));
    assertEquals(0, r.exitCode(), r.output());
  }

  /** Runs {@code parreg ARGS} in a process started under {@code umask}. */
  static void under(String umask, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of("sh", "-c", "umask " + umask + " && exec \"$@\"", "sh"));
    cmd.addAll(NodeProcess.command(List.of(args)));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", args));
    assertEquals(0, p.exitValue(), String.join(" ", args) + ":\n" + out);
  }

  /** The mode of every file below {@code root}, by its relative path. */
  static Map<String, String> modes(Path root) throws Exception {
    Map<String, String> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path f : s.filter(Files::isRegularFile).toList()) {
        m.put(
            root.relativize(f).toString(),
            PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
      }
    }
    return m;
  }

  void writeEverything(String umask, String expected) throws Exception {
    Path out = Files.createDirectory(dir.resolve("umask-" + umask));
    String o = out.toString();
    under(
        umask,
        "generate",
        "--rows",
        "40",
        "--features",
        "1",
        "--partitions",
        "1",
        "--out",
        o + "/csv");
    under(
        umask,
        "generate",
        "--rows",
        "40",
        "--features",
        "1",
        "--partitions",
        "1",
        "--format",
        "bin",
        "--out",
        o + "/bin");
    under(umask, "convert", "--in", o + "/csv/part-0.csv", "--out", o + "/converted.prb");
    under(umask, "convert", "--in", o + "/bin/part-0.prb", "--out", o + "/converted.csv");
    String j = journal.toString();
    under(umask, "export", "--journal", j, "--participant", "0", "--out", o + "/model.json");
    under(
        umask,
        "export",
        "--journal",
        j,
        "--participant",
        "0",
        "--format",
        "csv",
        "--out",
        o + "/coefficients.csv");
    under(
        umask,
        "history",
        "--journal",
        j,
        "--participant",
        "0",
        "--out",
        o + "/loss.csv",
        "--plot",
        o + "/loss.png");
    Map<String, String> modes = modes(out);
    for (String f :
        List.of(
            "csv/part-0.csv",
            "bin/part-0.prb",
            "bin/part-0.prb.digest",
            "converted.prb",
            "converted.prb.digest",
            "converted.csv",
            "model.json",
            "coefficients.csv",
            "loss.csv",
            "loss.png")) {
      assertTrue(modes.containsKey(f), f + " written: " + modes);
    }
    for (Map.Entry<String, String> e : modes.entrySet()) {
      assertEquals(expected, e.getValue(), e.getKey() + " under umask " + umask + ": " + modes);
    }
  }

  @Test
  void underUmask077EveryOutputIsTheOwnersAlone() throws Exception {
    writeEverything("077", "rw-------");
  }

  @Test
  void underUmask022EveryOutputIsReadableByAll() throws Exception {
    writeEverything("022", "rw-r--r--");
  }
}
