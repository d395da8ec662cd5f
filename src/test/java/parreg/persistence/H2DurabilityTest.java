package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC section 3: a journal that acknowledged a write has it on disk against a process kill. The H2
 * URL that {@link JournalLocation} builds ({@code WRITE_DELAY=0}) must lose no acknowledged commit
 * when its process gets SIGKILL (H2's default delays writes by about a second).
 */
class H2DurabilityTest {

  @TempDir Path tmp;

  @Test
  void acknowledgedCommitsSurviveKill9() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.toString());
    Process writer =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                H2Writer.class.getName(),
                loc.jdbcUrl())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    long acknowledged = 0;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream()))) {
      long until = 0;
      String line;
      while ((line = out.readLine()) != null) {
        acknowledged = Long.parseLong(line.strip());
        if (until == 0) {
          until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
        } else if (System.nanoTime() > until) {
          writer.destroyForcibly(); // SIGKILL on Linux
          break;
        }
      }
    } finally {
      writer.destroyForcibly();
      writer.waitFor(10, TimeUnit.SECONDS);
    }
    assertTrue(acknowledged > 100, "the writer committed only " + acknowledged + " rows");
    long stored;
    try (Connection c = loc.openExistingConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*), MAX(\"n\") FROM \"acked\"")) {
      rs.next();
      stored = rs.getLong(1);
    }
    assertTrue(
        stored >= acknowledged,
        "acknowledged " + acknowledged + " commits but only " + stored + " survived the kill");
  }
}
