package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link H2Durability}: what the store header covers, read from a live embedded journal. That a
 * kill loses nothing the header covers is measured by {@code scripts/trials/h2-header-trial.sh},
 * not here (it takes a minute of commits before H2 reuses file space).
 */
class H2HeaderCoverageTest {
  @TempDir Path tmp;

  @Test
  void withoutAStoreEveryWriteIsCovered() {
    H2Durability none = new H2Durability();
    assertEquals(0, none.version());
    assertTrue(none.covers(Long.MAX_VALUE - 1));
  }

  /**
   * A fresh file's commits are not covered (H2 appends them and names none in its header: the step
   * log keeps them), and neither a {@code CHECKPOINT SYNC} nor later commits change that; after a
   * close and a reopen the header names the newest chunk, so everything committed before is
   * covered; versions go on after it.
   */
  @Test
  void aShutdownAndReopenCoversEveryCommitBefore() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.toString());
    long before;
    try (Connection c = loc.openConnection()) {
      H2Durability d = new H2Durability();
      d.attach(c);
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE \"t\" (\"n\" BIGINT PRIMARY KEY, \"p\" VARBINARY(200))");
      }
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO \"t\" VALUES (?, ?)")) {
        for (long n = 1; n <= 200; n++) {
          insert.setLong(1, n);
          insert.setBytes(2, new byte[120]);
          insert.executeUpdate();
        }
      }
      before = d.version();
      assertTrue(before > 1, "each commit is a version: " + before);
      try (Statement s = c.createStatement()) {
        s.execute("CHECKPOINT SYNC");
      }
      assertFalse(
          d.covers(before - 1),
          "a growing file's header names no newer chunk: header " + d.recoverable());
      try (Statement s = c.createStatement()) {
        s.execute("SHUTDOWN");
      }
    }
    try (Connection c = loc.openConnection()) {
      H2Durability d = new H2Durability();
      d.attach(c);
      assertTrue(
          d.covers(before - 1),
          "the header covers the last commit before the shutdown: header "
              + d.recoverable()
              + ", version after that commit "
              + before);
      try (Statement s = c.createStatement()) {
        s.execute("INSERT INTO \"t\" VALUES (201, X'00')");
      }
      assertTrue(d.version() > before - 1, "versions go on after the reopen");
    }
  }
}
