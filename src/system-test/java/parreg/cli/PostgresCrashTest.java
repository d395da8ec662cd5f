package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.persistence.PostgresTestDatabase;

/**
 * Two node processes sharing one PostgreSQL database as their journal (the production set-up); node
 * 1 killed with SIGKILL at a random step and restarted; both end at the golden bits, each
 * persistence id holding every step exactly once. Skipped, with the reason, without PostgreSQL.
 */
@Tag("multiprocess")
class PostgresCrashTest {
  static final int STEPS = 400;

  @TempDir Path dir;

  @Test
  void twoNodesOnASharedPostgresJournalSurviveAKill() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip()) {
      try (ClusterRun c =
          new ClusterRun(
              2,
              dir,
              p -> List.of("--data", "seed", "--journal", db.url(), "--steps", "" + STEPS))) {
        JsonNode resumed = c.crashAndRestart(1, 40 + new Random().nextInt(250));
        assertTrue(resumed.get("journal").get("location").asText().contains("postgresql"));
        for (JsonNode s : c.awaitAllDone()) {
          assertEquals("0x3690000000000000", s.get("weightBits").get(0).asText());
        }
      }
      for (int p = 0; p < 2; p++) {
        String check = JournalCheck.describe(db.url(), p, STEPS);
        assertTrue(
            check.startsWith("ok"), "journal of participant " + p + " in PostgreSQL: " + check);
      }
    }
  }
}
