/**
 * How large a node-like H2 journal grows at a steady commit rate, with the node's
 * URL and compaction, for a given compaction write budget. Rows shaped like StepCommitted (72-byte
 * payloads: version-2 envelope), committed in groups, paced to ROWS_PER_S; prints the largest file
 * size seen, the live row bytes and the time.
 * usage: java -cp "target/parreg.jar:target/lib/*" scripts/trials/H2RetentionTrial.java DIR ROWS ROWS_PER_S GROUP WRITE_BYTES
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Random;
import parreg.persistence.H2Compaction;
import parreg.persistence.JournalDialect;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalSchema;

public class H2RetentionTrial {
  public static void main(String[] a) throws Exception {
    Path dir = Path.of(a[0]);
    int rows = Integer.parseInt(a[1]);
    double rate = Double.parseDouble(a[2]);
    int group = Integer.parseInt(a[3]);
    int writeBytes = Integer.parseInt(a[4]);
    JournalLocation loc = JournalLocation.parse(dir.toString());
    Path file = dir.resolve(JournalLocation.H2_DATABASE_NAME + ".mv.db");
    long largest = 0;
    long t0 = System.nanoTime();
    try (Connection c = loc.openConnection()) {
      JournalSchema.createIfNotExists(c, JournalDialect.H2);
      c.setAutoCommit(false);
      try (H2Compaction compaction = H2Compaction.start(c, Duration.ofMillis(200), writeBytes);
          PreparedStatement insert = c.prepareStatement("INSERT INTO \"event_journal\" (\"persistence_id\","
              + " \"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\","
              + " \"event_ser_id\", \"event_ser_manifest\") VALUES (?, ?, ?, ?, '', ?, 7100, '')")) {
        Random random = new Random(13);
        for (int seq = 1; seq <= rows; seq++) {
          byte[] payload = new byte[72];
          random.nextBytes(payload);
          insert.setString(1, "parreg|partitioned-squared-error-native-v1|p0");
          insert.setLong(2, seq);
          insert.setString(3, "3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f");
          insert.setLong(4, System.currentTimeMillis());
          insert.setBytes(5, payload);
          insert.executeUpdate();
          if (seq % group == 0 || seq == rows) {
            c.commit();
            largest = Math.max(largest, Files.size(file));
            long due = t0 + (long) (seq / rate * 1e9);
            long wait = due - System.nanoTime();
            if (wait > 0) {
              Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
          }
        }
      }
      long rowBytes;
      try (Statement s = c.createStatement();
          ResultSet r = s.executeQuery("SELECT SUM(1 + 8 + 8 + 8 + 4 + OCTET_LENGTH(\"persistence_id\")"
              + " + OCTET_LENGTH(\"writer\") + OCTET_LENGTH(\"adapter_manifest\") + OCTET_LENGTH(\"event_payload\")"
              + " + OCTET_LENGTH(\"event_ser_manifest\")) FROM \"event_journal\"")) {
        r.next();
        rowBytes = r.getLong(1);
      }
      System.out.printf("rows %d at %.0f/s, group %d, compaction write-bytes %d: largest file %.1f MB, at end %.1f MB,"
          + " live rows %.1f MB, %.0f s%n", rows, rate, group, writeBytes, largest / 1e6, Files.size(file) / 1e6,
          rowBytes / 1e6, (System.nanoTime() - t0) / 1e9);
    }
  }
}
