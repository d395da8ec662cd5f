package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/** N real node processes on loopback addresses for the multi-process tests; always cleaned up. */
final class ClusterRun implements AutoCloseable {
  final List<NodeProcess> nodes = new ArrayList<>();
  final String[] hosts;
  final int[] ports;
  final int[] admin;
  final String seeds;

  /**
   * @param args participant id → that node's extra arguments (data, journal, steps, ...)
   */
  ClusterRun(int n, Path logs, Function<Integer, List<String>> args) throws Exception {
    this(n, logs, null, args);
  }

  /**
   * @param hosts participant id → the address its cluster port and HTTP endpoint listen on (given
   *     as {@code --host} and {@code --admin-host}); null: the defaults (loopback)
   * @param args participant id → that node's extra arguments (data, journal, steps, ...)
   */
  ClusterRun(int n, Path logs, IntFunction<String> hosts, Function<Integer, List<String>> args)
      throws Exception {
    this.hosts = new String[n];
    ports = new int[n];
    admin = new int[n];
    List<String> s = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      this.hosts[p] = hosts == null ? NodeProcess.LOOPBACK : hosts.apply(p);
      ports[p] = NodeProcess.freePort(this.hosts[p]);
      admin[p] = NodeProcess.freePort(this.hosts[p]);
      s.add(this.hosts[p] + ":" + ports[p]);
    }
    seeds = String.join(",", s);
    for (int p = 0; p < n; p++) {
      List<String> a =
          new ArrayList<>(
              List.of(
                  "node",
                  "--participant",
                  "" + p,
                  "--participants",
                  "" + n,
                  "--port",
                  "" + ports[p],
                  "--admin-port",
                  "" + admin[p],
                  "--seed-nodes",
                  seeds,
                  "--backend",
                  "cpu"));
      if (hosts != null) {
        a.addAll(List.of("--host", this.hosts[p], "--admin-host", this.hosts[p]));
      }
      a.addAll(args.apply(p));
      nodes.add(NodeProcess.start(a, logs.resolve("node-" + p + ".log"), this.hosts[p], admin[p]));
    }
  }

  NodeProcess node(int p) {
    return nodes.get(p);
  }

  /**
   * Kills node p with SIGKILL once it has committed {@code atStep} and some step is durable,
   * restarts it, waits for a new commit. The journal is written behind the step, so the node may
   * come back behind {@code atStep}, but never behind what it reported durable before the kill:
   * that is checked here. (Waiting for a durable step makes "resumed from its journal" something a
   * test can ask: a group is written up to {@code parreg.journal.group-ms} = 500 ms after its first
   * step, and a fast run reaches step 80 sooner.)
   */
  JsonNode crashAndRestart(int p, long atStep) throws Exception {
    return crashAndRestart(p, atStep, before -> {});
  }

  /** What a test looks at while a killed node is down: its status just before the kill. */
  @FunctionalInterface
  interface WhileDown {
    void check(JsonNode before) throws Exception;
  }

  /** As {@link #crashAndRestart(int, long)}, running {@code whileDown} before the restart. */
  JsonNode crashAndRestart(int p, long atStep, WhileDown whileDown) throws Exception {
    NodeProcess v = node(p);
    JsonNode before =
        await(
            v,
            s -> s.get("committedStep").asLong() >= atStep && s.path("durableStep").asLong() > 0,
            "node " + p + " to reach step " + atStep + " with a durable step");
    v.kill9();
    whileDown.check(before);
    v.restart();
    JsonNode after = await(v, COMMITTED_SINCE_START, "node " + p + " to commit after its restart");
    long durable = before.get("durableStep").asLong();
    if (after.get("recoveredStep").asLong() < durable) {
      throw new AssertionError(
          "node "
              + p
              + " reported step "
              + durable
              + " durable before the kill but recovered at step "
              + after.get("recoveredStep").asLong());
    }
    return after;
  }

  List<JsonNode> awaitAllDone() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    for (NodeProcess n : nodes) {
      out.add(await(n, j -> "done".equals(j.get("state").asText()), "node to finish"));
    }
    return out;
  }

  /**
   * Asserts that the H2 journal of each of {@code nodes} nodes under {@code dir/node-P} holds the
   * run's start and every step up to {@code steps} exactly once ({@link JournalCheck}).
   */
  static void assertEveryStepOnce(java.nio.file.Path dir, int nodes, long steps) {
    for (int p = 0; p < nodes; p++) {
      String check = JournalCheck.describe(dir.resolve("node-" + p).toString(), p, steps);
      org.junit.jupiter.api.Assertions.assertTrue(
          check.startsWith("ok"), "journal of node " + p + ": " + check);
    }
  }

  /**
   * As {@link #await(NodeProcess, Predicate, String)} for node {@code p}, but fails at once, naming
   * the node and quoting its log, when any other node of this cluster has exited: a step needs
   * every participant, so node p could only time out, with a message that points at the wrong node
   * (the chaos soak's first failures read "node 0 did not commit" where node 2 had refused to
   * start).
   */
  JsonNode await(int p, Predicate<JsonNode> until, String what) throws Exception {
    return await(node(p), until, what, () -> othersAlive(p, what), AWAIT);
  }

  /** As {@link #await(int, Predicate, String)}, failing after {@code timeout}. */
  JsonNode await(int p, Predicate<JsonNode> until, String what, Duration timeout) throws Exception {
    return await(node(p), until, what, () -> othersAlive(p, what), timeout);
  }

  /** Sends {@code kill -SIGNAL} (STOP, CONT, ...) to the node's process. */
  static void signal(NodeProcess node, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, "" + node.pid()).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -" + signal + " " + node.pid() + " failed");
    }
  }

  /** Fails, quoting its log, when a node of this cluster other than p has exited. */
  private void othersAlive(int p, String what) throws Exception {
    for (int q = 0; q < nodes.size(); q++) {
      if (q != p && !nodes.get(q).isAlive()) {
        throw new AssertionError(
            "node "
                + q
                + " exited ("
                + nodes.get(q).exitCode().orElse(-1)
                + ") while waiting for "
                + what
                + ":\n"
                + logWithoutTraces(nodes.get(q)));
      }
    }
  }

  /**
   * A node that came back after a restart: done, or up and past the step it recovered at (a victim
   * killed just before its last step may come back already done).
   */
  static final Predicate<JsonNode> COMMITTED_SINCE_START =
      s ->
          "done".equals(s.get("state").asText())
              || (!"starting".equals(s.get("state").asText())
                  && s.get("committedStep").asLong() > s.get("recoveredStep").asLong());

  /** A check run on every poll of {@link #await}; it fails by throwing. */
  @FunctionalInterface
  private interface Check {
    void run() throws Exception;
  }

  static JsonNode await(NodeProcess n, Predicate<JsonNode> until, String what) throws Exception {
    return await(n, until, what, () -> {}, AWAIT);
  }

  private static final Duration AWAIT = Duration.ofSeconds(180);

  private static JsonNode await(
      NodeProcess n, Predicate<JsonNode> until, String what, Check each, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      each.run();
      Optional<JsonNode> s = pollOnce(n, what);
      if (s.isPresent() && until.test(s.get())) {
        return s.get();
      }
      Thread.sleep(20);
    }
    throw new AssertionError("timed out waiting for " + what + "; see " + n.log());
  }

  /** The node's status, or empty while it does not answer; fails when the node has exited. */
  private static Optional<JsonNode> pollOnce(NodeProcess n, String what) throws Exception {
    if (!n.isAlive()) {
      throw new AssertionError(
          "node exited ("
              + n.exitCode().orElse(-1)
              + ") while waiting for "
              + what
              + ":\n"
              + logWithoutTraces(n));
    }
    return n.status();
  }

  private static String logWithoutTraces(NodeProcess n) throws java.io.IOException {
    return Files.readString(n.log())
        .lines()
        .filter(l -> !l.startsWith("\tat"))
        .reduce("", (a, b) -> a + "\n" + b);
  }

  @Override
  public void close() throws Exception {
    for (NodeProcess n : nodes) {
      n.close();
    }
  }
}
