package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Random;
import org.h2.mvstore.MVStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13 item 6: the node's embedded journal (its URL, its schema), written as the node writes it
 * by default (a transaction per group of 256 steps), stays within twice the bytes of its rows plus
 * 2 MB, with H2's retention time at its default.
 *
 * <p>Within H2's retention time (45 s) no chunk's space is reused, so the file holds every chunk
 * written: its size is what the writes cost, whatever the speed of the machine (a slower run can
 * only free more). Before the identity cache of {@link JournalSchema}, each group was 9 MVStore
 * commits (one more per 32 rows, for "ordering"'s sequence): 40,000 rows made a 33.3 MB file for
 * 7.28 MB of rows, above this bound (16.7 MB); now 160 commits for 156 groups and 6.65 MB.
 */
class H2JournalSizeTest {
  static final int ROWS = 40_000;
  static final int GROUP = 256;

  @TempDir Path tmp;

  @Test
  void groupedWritesStayWithinTwiceTheRows() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.toString());
    Path file = tmp.resolve(JournalLocation.H2_DATABASE_NAME + ".mv.db");
    long largest = 0;
    long commits = 0;
    long writes = 0;
    try (Connection c = loc.openConnection()) {
      JournalSchema.createIfNotExists(c, JournalDialect.H2);
      MVStore store = H2Compaction.mvStore(c);
      c.setAutoCommit(false);
      try (PreparedStatement insert =
          c.prepareStatement(
              "INSERT INTO \"event_journal\" (\"persistence_id\", \"sequence_number\", \"writer\","
                  + " \"write_timestamp\", \"adapter_manifest\", \"event_payload\","
                  + " \"event_ser_id\", \"event_ser_manifest\") VALUES (?, ?, ?, ?, '', ?, 7100, '')")) {
        // Rows shaped like StepCommitted of the seed run: a 72-byte version-2 envelope.
        Random random = new Random(13);
        String writer = "3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f";
        long groupStart = store.getCurrentVersion();
        for (int seq = 1; seq <= ROWS; seq++) {
          byte[] payload = new byte[72];
          random.nextBytes(payload);
          insert.setString(1, "parreg|partitioned-squared-error-native-v1|p0");
          insert.setLong(2, seq);
          insert.setString(3, writer);
          insert.setLong(4, 1_700_000_000_000L + seq);
          insert.setBytes(5, payload);
          insert.executeUpdate();
          if (seq % GROUP == 0 || seq == ROWS) {
            c.commit();
            if (seq > GROUP) { // the first group may also store the schema's pages
              commits += store.getCurrentVersion() - groupStart;
              writes++;
            }
            groupStart = store.getCurrentVersion();
            largest = Math.max(largest, Files.size(file));
          }
        }
      }
      long rowBytes = LiveRows.bytes(c);
      long bound = 2 * rowBytes + (2 << 20);
      assertTrue(
          largest <= bound,
          "the journal file reached "
              + largest
              + " B; its "
              + ROWS
              + " rows hold "
              + rowBytes
              + " B, so the bound is "
              + bound
              + " B");
      // One MVStore commit (one chunk) per write, plus H2's automatic ANALYZE, which commits on its
      // own after 2,000 rows changed and then at each doubling (4 times in 40,000 rows).
      assertTrue(
          commits <= writes + 8,
          commits + " MVStore commits (chunks) for " + writes + " journal writes");
    }
  }
}
