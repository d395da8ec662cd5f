package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real two-node cluster (issue 12): {@code GET /metrics} parsed strictly as the Prometheus text
 * format ({@link PrometheusText}), its values moving while the run trains and agreeing with the run
 * at its end; {@code status --cluster} (text and JSON) through one node shows both participants;
 * {@code --watch} redraws until SIGINT and then exits 0.
 */
@Tag("multiprocess")
class MetricsAndClusterStatusTest {
  static final int STEPS = 150;

  @TempDir Path dir;

  @Test
  void metricsMoveAndClusterStatusShowsBothParticipants() throws Exception {
    try (ClusterRun run =
        new ClusterRun(
            2,
            dir,
            p ->
                List.of(
                    "--data",
                    "seed",
                    "--journal",
                    dir.resolve("j" + p).toString(),
                    "--steps",
                    "" + STEPS,
                    "--step-interval-ms",
                    "20"))) {
      ClusterRun.await(
          run.node(0), s -> s.get("committedStep").asLong() >= 5, "node 0 to commit 5 steps");
      PrometheusText early = scrape(run, 0);
      long earlyStep = (long) early.value("parreg_committed_step");
      assertTrue(
          earlyStep >= 5 && earlyStep < STEPS, "committed step while training: " + earlyStep);
      assertEquals(STEPS, early.value("parreg_target_step"));
      for (PrometheusText.Family f : early.families.values()) {
        assertTrue(f.name().startsWith("parreg_"), "namespaced: " + f.name());
        assertTrue(
            !f.type().equals("counter") || f.name().endsWith("_total"),
            "a counter ends in _total: " + f.name());
        assertTrue(
            !f.name().contains("duration") && !f.name().contains("wait")
                || f.name().endsWith("_seconds"),
            "times in seconds: " + f.name());
      }

      String node = run.hosts[0] + ":" + run.ports[0];
      List<String> base =
          List.of("status", "--cluster", "--node", node, "--admin-port", "" + run.admin[0]);
      NodeProcess.Result text = NodeProcess.run(base, java.time.Duration.ofSeconds(60));
      assertEquals(0, text.exitCode(), text.output());
      List<String> rows = text.output().lines().filter(l -> l.matches("[01] .*")).toList();
      assertEquals(2, rows.size(), "one row per participant:\n" + text.output());
      assertTrue(
          rows.get(0).contains("pekko://parreg@" + node)
              && rows.get(1).contains(":" + run.ports[1]),
          text.output());
      assertTrue(rows.get(1).contains("cpu"), "backend shown: " + rows.get(1));

      List<String> jsonArgs = new ArrayList<>(base);
      jsonArgs.add("--json");
      NodeProcess.Result json = NodeProcess.run(jsonArgs, java.time.Duration.ofSeconds(60));
      assertEquals(0, json.exitCode(), json.output());
      JsonNode doc = new ObjectMapper().readTree(json.output());
      assertEquals(2, doc.get("participants").size(), json.output());
      assertEquals(1, doc.get("participants").get(1).get("participant").asInt());
      assertEquals(0, doc.get("unanswered").size());

      watchEndsWithSigint(base);

      run.awaitAllDone();
      PrometheusText end = scrape(run, 0);
      assertEquals(STEPS, end.value("parreg_committed_step"));
      assertEquals(STEPS, end.value("parreg_durable_step"));
      assertEquals(STEPS, end.value("parreg_steps_total"), "every committed step counted once");
      assertEquals(STEPS, end.value("parreg_step_duration_seconds_count"));
      assertEquals(
          STEPS + 1,
          end.value("parreg_journal_write_events_sum"),
          "RunStarted and every step written once");
      assertTrue(end.value("parreg_journal_write_duration_seconds_count") >= 1);
      assertEquals(
          STEPS,
          end.value("parreg_exchange_wait_seconds_count", "peer", "1"),
          "participant 1's contribution to each step");
      assertEquals(STEPS, end.value("parreg_gpu_launches_total"));
      assertEquals(STEPS, end.value("parreg_gpu_fence_wait_seconds_count"));
      assertEquals(2, end.value("parreg_cluster_members_up"));
      assertEquals(0, end.value("parreg_cluster_members_unreachable"));
      double loss = end.value("parreg_loss");
      assertTrue(
          loss >= 0 && loss < early.value("parreg_loss") || early.value("parreg_loss") == 0,
          "loss fell: " + loss);
    }
  }

  /**
   * {@code --watch 0.3}: at least two tables drawn, then SIGINT (Ctrl-C) ends it with exit 0. The
   * output is a pipe here, so the tables follow one another; in place on a terminal (checked by
   * hand under {@code script}, which gives it a pseudo-terminal).
   */
  private static void watchEndsWithSigint(List<String> base) throws Exception {
    List<String> args = new ArrayList<>(base);
    args.addAll(List.of("--watch", "0.3"));
    // as typed in a terminal: SIGINT at its default disposition even where this JVM was started
    // in the background of a script, which sets it to "ignored" for its children
    List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT"));
    cmd.addAll(NodeProcess.command(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder seen = new StringBuilder();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      int headers = 0;
      long deadline = System.nanoTime() + 60_000_000_000L;
      int c;
      while (headers < 2 && System.nanoTime() < deadline && (c = r.read()) >= 0) {
        seen.append((char) c);
        if (seen.toString().endsWith("parreg cluster via")) {
          headers++;
        }
      }
      assertEquals(2, headers, "two refreshes drawn:\n" + seen);
      Thread.sleep(500); // a whole table after the second header
      new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "--watch ended on SIGINT");
      r.lines().forEach(l -> seen.append(l).append('\n'));
    } finally {
      p.destroyForcibly();
    }
    assertEquals(0, p.exitValue(), "Ctrl-C ends --watch with exit 0:\n" + seen);
    assertTrue(seen.toString().contains("PARTICIPANT"), seen.toString());
  }

  private static PrometheusText scrape(ClusterRun run, int p) throws Exception {
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create("http://" + run.hosts[p] + ":" + run.admin[p] + "/metrics")
                .toURL()
                .openConnection();
    try {
      assertEquals(200, c.getResponseCode());
      assertTrue(c.getContentType().startsWith("text/plain; version=0.0.4"), c.getContentType());
      return PrometheusText.parse(
          new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    } finally {
      c.disconnect();
    }
  }
}
