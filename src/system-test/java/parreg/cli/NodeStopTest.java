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
 * SIGTERM (kill, systemd, docker stop) stops a training node gracefully: exit code 0 and a line
 * saying so, its journal replays with every check, and the same command resumes the run.
 */
@Tag("multiprocess")
class NodeStopTest {
  @TempDir Path dir;

  @Test
  void sigtermStopsANodeWithExitZeroAndTheRunResumes() throws Exception {
    Path data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n3,6\n");
    Path journal = dir.resolve("node-0");
    int port = NodeProcess.freePort();
    int admin = NodeProcess.freePort();
    // A lone node restarting waits for running seeds before forming its cluster (12 s by default).
    Path fast =
        Files.writeString(
            dir.resolve("fast.conf"), "parreg.cluster.rejoin-seed-node-timeout = 1s\n");
    List<String> args =
        List.of(
            "node",
            "--config",
            fast.toString(),
            "--participant",
            "0",
            "--participants",
            "1",
            "--port",
            "" + port,
            "--admin-port",
            "" + admin,
            "--seed-nodes",
            "127.0.0.1:" + port,
            "--data",
            data.toString(),
            "--solver",
            "gd",
            "--learning-rate",
            "1/4",
            "--journal",
            journal.toString(),
            "--steps",
            "1000000",
            "--step-interval-ms",
            "5",
            "--backend",
            "cpu");
    try (NodeProcess node = NodeProcess.start(args, dir.resolve("node.log"), admin)) {
      long seen =
          ClusterRun.await(node, s -> s.get("committedStep").asLong() >= 20, "node to train")
              .get("committedStep")
              .asLong();
      assertEquals(0, node.stop(Duration.ofSeconds(30)), Files.readString(dir.resolve("node.log")));
      assertTrue(Files.readString(dir.resolve("node.log")).contains("parreg: stopped (SIGTERM)"));

      // A graceful stop writes every committed step (the journal otherwise runs behind the step).
      long stoppedAt = Checkpoint.fromJournal(journal.toString(), 0, null).committedStep();
      assertTrue(
          stoppedAt >= seen,
          "the journal replays to step " + stoppedAt + ", the node had committed " + seen);
      assertTrue(
          Files.readString(dir.resolve("node.log"))
              .contains("journal durable at step " + stoppedAt),
          "the stop says where the journal ends");
      node.restart();
      JsonNode resumed =
          ClusterRun.await(
              node, s -> s.get("committedStep").asLong() > stoppedAt, "node to resume");
      assertEquals(stoppedAt, resumed.get("recoveredStep").asLong(), "resumed where it stopped");
    }
  }
}
