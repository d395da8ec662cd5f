package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --data FILE --split}: two nodes reading one shared CSV file (with a header of its own
 * choosing) finish with the bits, and record the partition digests, of two nodes reading pre-split
 * files of the same rows; a restart of that run with another share of the file is refused. The
 * split run also evaluates a hold-out file ({@code --validation}, same columns): its status
 * reports, for the target step, the bits {@code parreg evaluate} computes from the journal.
 */
@Tag("multiprocess")
class SplitClusterTest {
  static final int ROWS = 101;
  static final int STEPS = 60;

  @TempDir Path dir;

  @Test
  void splitRunEqualsPreSplitRunAndARestartWithAnotherSplitIsRefused() throws Exception {
    // The shared file: label first, an id column to skip, two features.
    SplittableRandom rnd = new SplittableRandom(5);
    StringBuilder shared = new StringBuilder("target,id,a,b\n");
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < ROWS; i++) {
      float a = (float) rnd.nextGaussian();
      float b = (float) rnd.nextGaussian();
      float y = 2 * a - b + 0.5f + (float) (0.1 * rnd.nextGaussian());
      shared
          .append(y)
          .append(",row")
          .append(i)
          .append(',')
          .append(a)
          .append(',')
          .append(b)
          .append('\n');
      rows.add(a + "," + b + "," + y);
    }
    Path all = dir.resolve("all.csv");
    Files.writeString(all, shared);
    StringBuilder holdOut = new StringBuilder("a,target,b\n");
    for (int i = 0; i < 20; i++) {
      float a = (float) rnd.nextGaussian();
      float b = (float) rnd.nextGaussian();
      holdOut
          .append(a)
          .append(',')
          .append(2 * a - b + 0.5f + (float) (0.1 * rnd.nextGaussian()))
          .append(',')
          .append(b)
          .append('\n');
    }
    Path val = dir.resolve("val.csv");
    Files.writeString(val, holdOut);
    // The pre-split files, by the documented rule: participant p of P has rows [floor(p*n/P),
    // floor((p+1)*n/P)).
    for (int p = 0; p < 2; p++) {
      List<String> part = rows.subList(p * ROWS / 2, (p + 1) * ROWS / 2);
      Files.writeString(
          dir.resolve("part-" + p + ".csv"), "x1,x2,y\n" + String.join("\n", part) + "\n");
    }
    List<String> model = List.of("--steps", "" + STEPS, "--bias", "--learning-rate", "1/8");

    List<JsonNode> split =
        run(
            "split",
            p ->
                concat(
                    List.of(
                        "--data",
                        all.toString(),
                        "--solver",
                        "gd",
                        "--split",
                        "--label",
                        "target",
                        "--features",
                        "a,b",
                        "--validation",
                        val.toString(),
                        "--validation-every",
                        "25"),
                    model));
    List<JsonNode> pre =
        run(
            "pre",
            p ->
                concat(
                    List.of(
                        "--data", dir.resolve("part-" + p + ".csv").toString(), "--solver", "gd"),
                    model));
    for (int p = 0; p < 2; p++) {
      assertEquals(STEPS, split.get(p).get("committedStep").asLong());
      assertEquals(
          pre.get(p).get("weightBits").toString(),
          split.get(p).get("weightBits").toString(),
          "same final bits");
      assertEquals(
          roster(dir.resolve("pre/node-" + p + ".log")),
          roster(dir.resolve("split/node-" + p + ".log")),
          "same partition digests");
    }

    // The hold-out figures of the target step are those of evaluate on the journal's model, to the
    // bit.
    for (int p = 0; p < 2; p++) {
      JsonNode s = split.get(p);
      assertEquals(STEPS, s.get("validationStep").asLong(), s.toString());
      DataCommandsTest.Run e =
          DataCommandsTest.run(
              "evaluate",
              "--journal",
              dir.resolve("split/journal-" + p).toString(),
              "--participant",
              "" + p,
              "--input",
              val.toString(),
              "--label",
              "target",
              "--features",
              "a,b",
              "--json");
      assertEquals(0, e.code(), e.err());
      JsonNode ev = new com.fasterxml.jackson.databind.ObjectMapper().readTree(e.out());
      assertEquals(ev.get("rmse").asDouble(), s.get("validationRmse").asDouble());
      assertEquals(ev.get("r2").asDouble(), s.get("validationR2").asDouble());
      assertTrue(pre.get(p).get("validationStep").isNull(), "no validation without --validation");
    }

    // The split run's journal knows its slice: the whole file (no --split) is refused, nothing
    // written.
    Path journal = dir.resolve("split/journal-0");
    DataCommandsTest.Run r =
        DataCommandsTest.run(
            "node",
            "--participant",
            "0",
            "--participants",
            "2",
            "--port",
            "" + NodeProcess.freePort(),
            "--seed-nodes",
            "127.0.0.1:1,127.0.0.1:2",
            "--journal",
            journal.toString(),
            "--data",
            all.toString(),
            "--solver",
            "gd",
            "--label",
            "target",
            "--features",
            "a,b",
            "--steps",
            "" + STEPS,
            "--bias",
            "--learning-rate",
            "1/8");
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains("of participant 0 with other data: recorded"), r.err());
  }

  private List<JsonNode> run(String name, java.util.function.Function<Integer, List<String>> args)
      throws Exception {
    Path logs = dir.resolve(name);
    Files.createDirectories(logs);
    try (ClusterRun c =
        new ClusterRun(
            2,
            logs,
            p ->
                concat(
                    List.of("--journal", logs.resolve("journal-" + p).toString()),
                    args.apply(p)))) {
      return c.awaitAllDone();
    }
  }

  private static String roster(Path log) throws Exception {
    return Files.readAllLines(log).stream()
        .filter(l -> l.contains("roster complete"))
        .map(l -> l.substring(l.indexOf("roster")))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no roster line in " + log));
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
