// How many bytes of H2 file one commit costs, for URL settings: N commits of one
// journal-shaped row each (as --sync-commit writes), or of GROUP rows each, on the node's schema;
// within H2's 45 s retention nothing is reused, so the file's growth over N is the chunk per commit.
// usage: java -cp "target/parreg.jar:target/lib/*" scripts/trials/H2CommitChunk.java ";SETTINGS" N [GROUP]
// e.g. ";COMPRESS=FALSE" (the --sync-commit URL), ";COMPRESS=FALSE;PAGE_SIZE=4096", ";COMPRESS=TRUE"
import java.nio.file.*;
import java.sql.*;
import java.util.Random;
import parreg.persistence.*;

public class H2CommitChunk {
  public static void main(String[] a) throws Exception {
    Path dir = Files.createTempDirectory("h2commitchunk");
    JournalLocation loc = JournalLocation.parse("jdbc:h2:file:" + dir.resolve("journal") + a[0]);
    int n = Integer.parseInt(a[1]);
    int group = a.length > 2 ? Integer.parseInt(a[2]) : 1;
    try (Connection c = loc.openConnection()) {
      JournalSchema.createIfNotExists(c, JournalDialect.H2);
      Path file = dir.resolve("journal.mv.db");
      long f0 = Files.size(file);
      c.setAutoCommit(false);
      PreparedStatement ins = c.prepareStatement("INSERT INTO \"event_journal\" (\"persistence_id\","
          + " \"sequence_number\", \"writer\", \"write_timestamp\", \"adapter_manifest\", \"event_payload\","
          + " \"event_ser_id\", \"event_ser_manifest\") VALUES ('parreg|partitioned-squared-error-native-v1|p0',"
          + " ?, '3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f', ?, '', ?, 7100, '')");
      Random r = new Random(13);
      long t0 = System.nanoTime();
      long seq = 0;
      for (int i = 1; i <= n; i++) {
        for (int k = 0; k < group; k++) {
          byte[] p = new byte[72];
          r.nextBytes(p);
          ins.setLong(1, ++seq);
          ins.setLong(2, System.currentTimeMillis());
          ins.setBytes(3, p);
          ins.executeUpdate();
        }
        c.commit();
      }
      double s = (System.nanoTime() - t0) / 1e9;
      long grown = Files.size(file) - f0;
      System.out.printf("%s: %d commits of %d row(s): file +%d B, %d B per commit, %.0f commits/s%n",
          a[0], n, group, grown, grown / n, n / s);
    }
    Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
  }
}
