package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code parreg summary} on a gradient-descent run: refused with exit 2, saying what it applies to
 * (the exact runs' summaries are checked in {@link ExactRunCrashTest}).
 */
class SummaryCommandTest {
  @TempDir Path dir;

  @Test
  void aGradientDescentRunHasNoSummary() throws Exception {
    Path journal = Files.createDirectories(dir.resolve("node-1"));
    try (InputStream in =
        getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      Files.copy(in, journal.resolve("journal.mv.db"));
    }
    DataCommandsTest.Run r =
        DataCommandsTest.run("summary", "--journal", journal.toString(), "--participant", "1");
    assertEquals(2, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("a training summary exists for --solver exact runs"), r.err());
    DataCommandsTest.Run none = DataCommandsTest.run("summary");
    assertEquals(2, none.code());
  }
}
