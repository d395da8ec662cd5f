package parreg.cli;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.Random;

/**
 * The chaos soak's SIGSTOP past the downing limit ({@link ChaosSoakTest}, {@code
 * parreg.chaos.long-stops}): a node stopped until its peers have downed it, then resumed, must
 * rejoin with a new incarnation by itself.
 */
final class LongStopFault {
  private LongStopFault() {}

  /**
   * SIGSTOP of node {@code v} past the downing limit: it stays stopped until another node's log
   * says it downs it (the failure detector's acceptable pause of 3 s, stretched by its history on a
   * loaded machine, plus the downing limit), and 1–3 s more. Its peers have then downed and
   * quarantined it; resumed, it must find that out and rejoin with a new incarnation by itself.
   */
  static void run(
      ClusterRun c, int v, Random rnd, int fault, long target, Map<String, Integer> counts)
      throws Exception {
    long extraMs = 1000 + rnd.nextInt(2000);
    counts.merge("long SIGSTOP", 1, Integer::sum);
    String downing = "downing pekko://parreg@" + c.hosts[v] + ":" + c.ports[v];
    long[] logged = new long[c.nodes.size()];
    for (int q = 0; q < logged.length; q++) {
      logged[q] = Files.size(c.node(q).log());
    }
    long before = rejoins(c.node(v));
    long t0 = System.nanoTime();
    ClusterRun.signal(c.node(v), "STOP");
    boolean downed = false;
    while (!downed && System.nanoTime() - t0 < 60_000_000_000L) {
      Thread.sleep(100);
      for (int q = 0; q < logged.length && !downed; q++) {
        downed = q != v && newLog(c.node(q), logged[q]).contains(downing);
      }
    }
    Thread.sleep(extraMs);
    ClusterRun.signal(c.node(v), "CONT");
    System.out.printf(
        "fault %d at step %d: SIGSTOP node %d for %d ms (%s)%n",
        fault,
        target,
        v,
        (System.nanoTime() - t0) / 1_000_000,
        downed ? "past the downing limit: its peers downed it" : "no peer downed it within 60 s");
    if (!downed) {
      throw new AssertionError("no peer downed node " + v + " within 60 s of its SIGSTOP");
    }
    // its status is gone while the old incarnation stops: wait for the new one to say it rejoins
    while (rejoins(c.node(v)) == before && System.nanoTime() - t0 < 120_000_000_000L) {
      Thread.sleep(100);
    }
    if (rejoins(c.node(v)) == before) {
      throw new AssertionError("node " + v + " did not rejoin after its peers downed it");
    }
    counts.merge("rejoined", 1, Integer::sum);
    c.await(
        v,
        s ->
            "done".equals(s.get("state").asText())
                || (s.path("membership").asText().startsWith("rejoined")
                    && s.get("committedStep").asLong() > s.get("recoveredStep").asLong()),
        "node " + v + " to commit after it rejoined");
  }

  /** What the node logged after its first {@code from} bytes. */
  private static String newLog(NodeProcess node, long from) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(node.log().toFile(), "r")) {
      long len = f.length();
      if (len <= from) {
        return "";
      }
      byte[] b = new byte[(int) (len - from)];
      f.seek(from);
      f.readFully(b);
      return new String(b, StandardCharsets.UTF_8);
    }
  }

  /** How many times the node's log says it rejoined with a new incarnation. */
  private static long rejoins(NodeProcess node) throws Exception {
    return Files.readString(node.log())
        .lines()
        .filter(l -> l.contains("rejoining the cluster with a new incarnation"))
        .count();
  }
}
