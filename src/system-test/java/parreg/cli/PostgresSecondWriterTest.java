package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import parreg.persistence.JournalRuns;
import parreg.persistence.JournalWriterLock;
import parreg.persistence.PostgresTestDatabase;

/**
 * Two clusters on one PostgreSQL database, each with a participant 0 of the same run (what the
 * cluster's own check cannot see): the second writer of persistence id parreg|RUN|p0 exits 2 at
 * start, naming the first (and not a writer of the same id in another database on the server), and
 * the first keeps its run. Skipped, with the reason, without PostgreSQL.
 */
@Tag("multiprocess")
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PostgresSecondWriterTest {
  @TempDir Path dir;

  @Test
  void aSecondWriterOfAPersistenceIdInTheSharedJournalIsRefused() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip();
        PostgresTestDatabase neighbourDb = PostgresTestDatabase.createOrSkip();
        // a writer of the same persistence id in another database on the server: another run's,
        // which the refusal must not name
        JournalWriterLock neighbour =
            JournalWriterLock.acquire(
                neighbourDb.location(),
                JournalRuns.persistenceId("partitioned-squared-error-native-v1", 0),
                "parreg participant 0, port 1 on neighbour")) {
      int port = NodeProcess.freePort();
      int admin = NodeProcess.freePort();
      try (NodeProcess first =
          NodeProcess.start(
              List.of(
                  "node",
                  "--participant",
                  "0",
                  "--port",
                  "" + port,
                  "--admin-port",
                  "" + admin,
                  "--seed-nodes",
                  "127.0.0.1:" + port,
                  "--data",
                  "seed",
                  "--journal",
                  db.url(),
                  "--steps",
                  "10",
                  "--backend",
                  "cpu"),
              dir.resolve("first.log"),
              admin)) {
        // it answers once it holds its persistence id (taken before anything else), then waits for
        // participant 1
        ClusterRun.await(first, s -> true, "the first node to answer");
        int other = NodeProcess.freePort();
        NodeProcess.Result r =
            NodeProcess.run(
                List.of(
                    "node",
                    "--participant",
                    "0",
                    "--port",
                    "" + other,
                    "--admin-port",
                    "" + NodeProcess.freePort(),
                    "--seed-nodes",
                    "127.0.0.1:" + other,
                    "--data",
                    "seed",
                    "--journal",
                    db.url(),
                    "--steps",
                    "10",
                    "--backend",
                    "cpu"),
                Duration.ofSeconds(60));
        assertEquals(2, r.exitCode(), r.output());
        assertTrue(
            r.output()
                .contains(
                    "persistence id parreg|partitioned-squared-error-native-v1|p0 in journal "
                        + db.url()
                        + " is being written by another node ('parreg participant 0, port "
                        + port
                        + " on "),
            r.output());
        assertFalse(r.output().contains("neighbour"), r.output());
        assertTrue(first.isAlive(), "the first writer keeps its run");
      }
    }
  }
}
