package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job, {@code parreg demo}, run as a user would (two node processes, node 1
 * killed with SIGKILL mid-run and restarted, admin queries, golden bits, journals checked row by
 * row, a fresh process predicting from the checkpoint): it must exit 0.
 */
@Tag("multiprocess")
class DemoTest {
  @TempDir Path dir;

  @Test
  void theDemoSucceeds() {
    assertEquals(0, Main.execute("demo", "--dir", dir.toString()));
  }
}
