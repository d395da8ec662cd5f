package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg demo}: the seed run on two local node processes with embedded journals; node 1 is
 * killed with SIGKILL in the middle of training and restarted; both admin actors are asked for
 * their state; the result is checked against the golden bits; a fresh process predicts from the
 * checkpoint. Exit 0 only if everything held.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = "Run the two-node seed demo with a crash and restart.")
public final class DemoCommand implements Callable<Integer> {
  static final String GOLDEN_BITS = "0x3690000000000000";
  static final String GOLDEN_PREDICTION = Double.toString(Math.scalb(1.0, -149));

  @Option(
      names = "--dir",
      description = "working directory for journals and logs (default: a new temporary one)")
  Path dir;

  @Option(
      names = "--steps",
      defaultValue = "200",
      description = "steps to train (default: ${DEFAULT-VALUE})")
  int steps;

  @Option(
      names = "--kill-at",
      description = "kill node 1 once it has committed this step (default: random in the middle)")
  Integer killAt;

  @Option(
      names = "--step-interval-ms",
      defaultValue = "15",
      description = "pace steps so the kill lands mid-run (default: ${DEFAULT-VALUE})")
  long stepIntervalMs;

  @Option(
      names = "--backend",
      defaultValue = "auto",
      description =
          "backend of both nodes: auto (a card where one answers, else the CPU), cpu or cuda (default: ${DEFAULT-VALUE})")
  String backend;

  @Option(
      names = "--evidence",
      description =
          "have each node write its device evidence record (evidence-node-P.json) into the working directory")
  boolean evidence;

  @Option(
      names = "--timeout-s",
      defaultValue = "180",
      description = "give up after this many seconds (default: ${DEFAULT-VALUE})")
  long timeoutS;

  private final PrintStream out = System.out;
  private long deadline;

  @Override
  public Integer call() throws Exception {
    if (steps < 160) {
      throw new UserError(
          "--steps must be at least 160 for the golden check (w settles at step 151)");
    }
    Path work =
        dir != null ? Files.createDirectories(dir) : Files.createTempDirectory("parreg-demo-");
    int kill = killAt != null ? killAt : steps / 4 + new Random().nextInt(steps / 2);
    if (kill < 1 || kill >= steps) {
      throw new UserError("--kill-at must be between 1 and " + (steps - 1));
    }
    deadline = System.nanoTime() + Duration.ofSeconds(timeoutS).toNanos();
    out.printf(
        "parreg demo: two-node seed run, %d steps, backend %s, node 1 killed at step %d%n",
        steps, backend, kill);
    out.printf("  working directory %s%n", work);

    int[] ports = {NodeProcess.freePort(), NodeProcess.freePort()};
    int[] admin = {NodeProcess.freePort(), NodeProcess.freePort()};
    String seeds =
        NodeProcess.LOOPBACK + ":" + ports[0] + "," + NodeProcess.LOOPBACK + ":" + ports[1];
    List<NodeProcess> nodes = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    try {
      for (int p = 0; p < 2; p++) {
        nodes.add(
            NodeProcess.start(
                nodeArgs(p, ports[p], admin[p], seeds, work),
                work.resolve("node-" + p + ".log"),
                admin[p]));
      }
      out.println("  started node 0 and node 1 (logs: node-0.log, node-1.log)");

      JsonNode s1 =
          awaitStatus(
              nodes.get(1),
              "node 1 to commit step " + kill,
              j -> j.get("committedStep").asLong() >= kill,
              true);
      out.printf(
          "  node 1 says: %s (%s)%n",
          s1.get("device").get("selection").asText(), s1.get("device").get("name").asText());
      nodes.get(1).kill9();
      long killedAt = s1.get("committedStep").asLong();
      out.printf("  killed node 1 with SIGKILL at committed step %d%n", killedAt);

      JsonNode w0 =
          awaitStatus(
              nodes.get(0),
              "node 0 to report that it waits",
              j -> "waiting".equals(j.get("state").asText()),
              false);
      out.printf(
          "  node 0 says: state %s at step %d, waiting for participant(s) %s%n",
          w0.get("state").asText(), w0.get("committedStep").asLong(), w0.get("waitingFor"));

      long restartNanos = System.nanoTime();
      nodes.get(1).restart();
      JsonNode n1 =
          awaitStatus(
              nodes.get(1),
              "node 1 to commit a new step after its restart",
              j ->
                  !"starting".equals(j.get("state").asText())
                      && j.get("committedStep").asLong() > j.get("recoveredStep").asLong(),
              false);
      long recovered = n1.get("recoveredStep").asLong();
      double restartToStep = (System.nanoTime() - restartNanos) / 1e9;
      out.printf(
          "  restarted node 1: resumed from its journal at step %d; first new step committed %.2f s after the restart%n",
          recovered, restartToStep);

      JsonNode[] fin = new JsonNode[2];
      for (int p = 0; p < 2; p++) {
        fin[p] =
            awaitStatus(
                nodes.get(p),
                "node " + p + " to finish",
                j -> "done".equals(j.get("state").asText()),
                true);
      }
      for (int p = 0; p < 2; p++) {
        JsonNode s = fin[p];
        out.printf(
            "  node %d: state %s, step %d, epoch %d, w = %s, bits %s, loss %s, backend %s on %s (%s), launches %s/%s, members %d%n",
            p,
            s.get("state").asText(),
            s.get("committedStep").asLong(),
            s.get("epoch").asLong(),
            s.get("weights"),
            s.get("weightBits"),
            s.get("loss"),
            s.get("backend").asText(),
            s.get("device").get("name").asText(),
            s.get("device").get("uuid").asText(),
            s.get("launches").get("issued"),
            s.get("launches").get("retired"),
            s.get("members").size());
        if (s.get("committedStep").asLong() != steps) {
          failures.add(
              "node "
                  + p
                  + " committed step "
                  + s.get("committedStep").asLong()
                  + ", expected "
                  + steps);
        }
        if (!(s.get("weightBits").size() == 1
            && GOLDEN_BITS.equals(s.get("weightBits").get(0).asText()))) {
          failures.add(
              "node "
                  + p
                  + " ended at "
                  + s.get("weightBits")
                  + ", golden is ["
                  + GOLDEN_BITS
                  + "]");
        }
      }
    } finally {
      for (NodeProcess n : nodes) {
        n.close();
      }
    }

    if (failures.isEmpty()) {
      for (int p = 0; p < 2; p++) {
        String count = JournalCheck.describe(work.resolve("node-" + p).toString(), p, steps);
        out.printf("  journal node-%d: %s%n", p, count);
        if (!count.startsWith("ok")) {
          failures.add("journal of node " + p + ": " + count);
        }
      }
      NodeProcess.Result pred =
          NodeProcess.run(
              List.of(
                  "predict",
                  "--journal",
                  work.resolve("node-1").toString(),
                  "--participant",
                  "1",
                  "--x",
                  "2"),
              Duration.ofSeconds(60));
      String predicted = pred.output().strip();
      String last = predicted.isEmpty() ? "" : predicted.substring(predicted.lastIndexOf('\n') + 1);
      out.printf(
          "  fresh process: parreg predict --journal node-1 --participant 1 --x 2  ->  %s (expected %s = 2^-149)%n",
          last, GOLDEN_PREDICTION);
      if (pred.exitCode() != 0 || !GOLDEN_PREDICTION.equals(last)) {
        failures.add(
            "prediction was '"
                + predicted
                + "' (exit "
                + pred.exitCode()
                + "), expected "
                + GOLDEN_PREDICTION);
      }
      Path chart = work.resolve("loss-node-1.png");
      try {
        HistoryCommand.writePlot(
            LossHistory.read(work.resolve("node-1").toString(), 1, null), chart, 1000, 600);
        out.printf(
            "  loss chart of node 1's journal: %s  (also: parreg history --journal %s --participant 1)%n",
            chart, work.resolve("node-1"));
      } catch (UserError e) {
        failures.add("loss chart: " + e.getMessage());
      } catch (IllegalStateException e) {
        // A machine without the font libraries AWT needs: the run itself is what the demo checks.
        out.printf("  loss chart not written: %s%n", e.getMessage());
      }
    }

    if (evidence) {
      for (int p = 0; p < 2; p++) {
        Path ev = work.resolve("evidence-node-" + p + ".json");
        if (Files.isRegularFile(ev)) {
          out.printf("  node %d device evidence: %s%n", p, ev);
        } else {
          failures.add("node " + p + " wrote no device evidence at " + ev);
        }
      }
    }

    if (failures.isEmpty()) {
      out.println(
          "parreg demo: OK: both nodes ended at the golden bits "
              + GOLDEN_BITS
              + " (2^-150) after a SIGKILL and restart, and the checkpoint predicts 2^-149 in a fresh process.");
      return 0;
    }
    out.println("parreg demo: FAILED");
    for (String f : failures) {
      out.println("  - " + f);
    }
    out.println("  logs are in " + work);
    return 1;
  }

  private List<String> nodeArgs(int p, int port, int admin, String seeds, Path work) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                Integer.toString(p),
                "--participants",
                "2",
                "--port",
                Integer.toString(port),
                "--admin-port",
                Integer.toString(admin),
                "--seed-nodes",
                seeds,
                "--data",
                "seed",
                "--journal",
                work.resolve("node-" + p).toString(),
                "--steps",
                Integer.toString(steps),
                "--backend",
                backend,
                "--step-interval-ms",
                Long.toString(stepIntervalMs)));
    if (evidence) {
      args.addAll(List.of("--evidence", work.resolve("evidence-node-" + p + ".json").toString()));
    }
    return args;
  }

  /**
   * Polls a node's status until {@code until} holds, printing progress; fails on timeout or exit.
   */
  private JsonNode awaitStatus(
      NodeProcess n, String what, Predicate<JsonNode> until, boolean progress) throws Exception {
    long lastPrinted = -1;
    while (System.nanoTime() < deadline) {
      if (!n.isAlive()) {
        throw new IllegalStateException(
            "while waiting for "
                + what
                + ", the node exited with code "
                + n.exitCode().orElse(-1)
                + "; see "
                + n.log());
      }
      Optional<JsonNode> s = n.status();
      if (s.isPresent()) {
        long step = s.get().get("committedStep").asLong();
        if (progress && step / 25 != lastPrinted / 25) {
          out.printf(
              "    participant %d: step %d, state %s%n",
              s.get().get("participant").asInt(), step, s.get().get("state").asText());
          lastPrinted = step;
        }
        if (until.test(s.get())) {
          return s.get();
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("timed out waiting for " + what + "; see " + n.log());
  }
}
