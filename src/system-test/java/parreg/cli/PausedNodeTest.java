package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real node processes on 127.0.0.1, each paused in turn (SIGSTOP, as a long GC stall or a suspended
 * VM would) for longer than the failure detector's acceptable pause plus the downing limit, so that
 * its peer downs and quarantines it, and then resumed (SIGCONT). Node 0, the first seed node, with
 * the default {@code parreg.cluster.on-removal = rejoin}, says why it left and rejoins in its own
 * process with a new incarnation; node 1, with {@code on-removal = exit}, exits 4 with one line
 * saying why and that the same command resumes, and is started again as a supervisor would. The
 * peer takes each back, and the seed run ends at its golden bits with every step in each journal
 * exactly once. A {@code --config} overlay lowers the downing limit to 2 s, so a pause lasts about
 * 6 s.
 */
@Tag("multiprocess")
class PausedNodeTest {
  /** Enough that the run is still going when the second pause begins, unpaced. */
  static final int STEPS = 1500;

  static final String GOLDEN = "0x3690000000000000";

  /**
   * How long a node stays stopped after its peer has downed it (Pekko's failure detector marks a
   * silent member unreachable after its acceptable heartbeat pause of 3 s, the overlay downs it 2 s
   * later): the peer removes and quarantines it meanwhile.
   */
  static final long AFTER_DOWNING_MS = 1000;

  @TempDir Path dir;

  @Test
  void pausedPastTheDowningLimitANodeRejoinsByItselfOrExitsFourAndTheBitsAreGolden()
      throws Exception {
    Path rejoin = overlay("rejoin.conf", "parreg.downing.down-unreachable-after = 2s\n");
    Path exit =
        overlay(
            "exit.conf",
            "parreg.downing.down-unreachable-after = 2s\nparreg.cluster.on-removal = exit\n");
    JsonNode survivorWhilePaused;
    String address0;
    try (ClusterRun c =
        new ClusterRun(
            2,
            dir,
            p ->
                List.of(
                    "--data",
                    "seed",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--steps",
                    "" + STEPS,
                    "--config",
                    (p == 0 ? rejoin : exit).toString()))) {
      address0 = "pekko://parreg@127.0.0.1:" + c.ports[0];
      String address1 = "pekko://parreg@127.0.0.1:" + c.ports[1];

      // Node 0 rejoins by itself. As the first seed node its new incarnation must join the
      // survivor, not form an island of its own.
      long last = pausePastDowning(c, 0, 50);
      survivorWhilePaused = c.node(1).status().orElseThrow();
      ClusterRun.signal(c.node(0), "CONT");
      JsonNode back =
          c.await(
              0,
              s -> s.get("committedStep").asLong() > last,
              "node 0 to commit again after SIGCONT",
              Duration.ofSeconds(60));
      assertTrue(c.node(0).isAlive(), "rejoined in its own process");
      assertTrue(
          back.get("recoveredStep").asLong() > 0, "the new incarnation resumed from its journal");
      String log0 = Files.readString(c.node(0).log());
      assertTrue(
          log0.contains("removed from the cluster: quarantined by " + address1),
          "node 0 says why it left:\n" + tail(log0));
      assertTrue(
          log0.contains("rejoining the cluster with a new incarnation (rejoin 1)"),
          "node 0 says it rejoins:\n" + tail(log0));
      assertTrue(
          back.path("membership").asText().startsWith("rejoined the cluster at"),
          "node 0's status says it rejoined: " + back.path("membership"));

      // Node 1 exits 4, saying so, and its restart resumes.
      pausePastDowning(c, 1, back.get("committedStep").asLong() + 50);
      ClusterRun.signal(c.node(1), "CONT");
      assertEquals(4, c.node(1).waitFor(Duration.ofSeconds(60)), "exit code of a removed node");
      List<String> lines = Files.readAllLines(c.node(1).log());
      String line = lines.get(lines.size() - 1);
      assertTrue(
          line.startsWith(
                  "parreg: error: this node was removed from the cluster: quarantined by "
                      + address0)
              && line.endsWith("start it again with the same command: it resumes from its journal"),
          "one line saying why and what to do: " + line);
      c.node(1).restart(); // what a supervisor does
      c.await(1, ClusterRun.COMMITTED_SINCE_START, "node 1 to commit after its restart");

      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals(GOLDEN, s.get("weightBits").get(0).asText(), "golden bits after the pauses");
      }
    }
    assertTrue(
        survivorWhilePaused.path("membership").asText().startsWith("downed " + address0),
        "the survivor's status names the node it downed: " + survivorWhilePaused);
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
  }

  /**
   * Stops node {@code p} (SIGSTOP) once it has committed step {@code atStep} and some step is
   * durable, and keeps it stopped until the other node has downed it, and {@link #AFTER_DOWNING_MS}
   * more; returns the last step the stopped node can commit without the other one taking part.
   */
  private long pausePastDowning(ClusterRun c, int p, long atStep) throws Exception {
    int other = 1 - p;
    c.await(
        p,
        s -> s.get("committedStep").asLong() >= atStep && s.path("durableStep").asLong() > 0,
        "node " + p + " to reach step " + atStep + " with a durable step");
    long logged = Files.size(c.node(other).log());
    ClusterRun.signal(c.node(p), "STOP");
    long t0 = System.nanoTime();
    String downing = "downing pekko://parreg@127.0.0.1:" + c.ports[p];
    while (!Files.readString(c.node(other).log()).substring((int) logged).contains(downing)) {
      if (System.nanoTime() - t0 > Duration.ofSeconds(30).toNanos()) {
        ClusterRun.signal(c.node(p), "CONT");
        throw new AssertionError("node " + other + " did not down node " + p + " within 30 s");
      }
      Thread.sleep(100);
    }
    Thread.sleep(AFTER_DOWNING_MS);
    // The stopped node may still commit the other's next step with the contribution it had
    // received before the stop, but none after that without the other taking part.
    return c.node(other).status().orElseThrow().get("committedStep").asLong() + 1;
  }

  private Path overlay(String name, String text) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  private static String tail(String log) {
    List<String> lines = log.lines().filter(l -> !l.startsWith("\tat")).toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
