// Raw H2 floor: one row (the journal table of JournalSchema, 90-byte payload) inserted and committed
// per iteration on a file database with WRITE_DELAY=0, as the journal does per step.
// usage (scripts/bench/floors.sh): java -cp H2_JAR scripts/bench/java/H2Floor.java DIR N [URL_SUFFIX [2idx]]
import java.sql.*;
import java.nio.file.*;
public class H2Floor {
  public static void main(String[] a) throws Exception {
    String dir = a[0]; int n = Integer.parseInt(a[1]); String extra = a.length > 2 ? a[2] : "";
    boolean twoIdx = a.length > 3 && a[3].equals("2idx");
    for (var p : new String[]{"journal.mv.db","journal.trace.db"}) Files.deleteIfExists(Path.of(dir, p));
    Files.createDirectories(Path.of(dir));
    try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + dir + "/journal;WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE" + extra, "sa", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE \"event_journal\" (\"ordering\" BIGINT UNIQUE NOT NULL AUTO_INCREMENT, \"deleted\" BOOLEAN DEFAULT false NOT NULL, \"persistence_id\" VARCHAR(255) NOT NULL, \"sequence_number\" BIGINT NOT NULL, \"writer\" VARCHAR NOT NULL, \"write_timestamp\" BIGINT NOT NULL, \"adapter_manifest\" VARCHAR NOT NULL, \"event_payload\" BLOB NOT NULL, \"event_ser_id\" INTEGER NOT NULL, \"event_ser_manifest\" VARCHAR NOT NULL, \"meta_payload\" BLOB, \"meta_ser_id\" INTEGER, \"meta_ser_manifest\" VARCHAR, PRIMARY KEY(\"persistence_id\", \"sequence_number\"))");
        if (twoIdx) s.execute("CREATE UNIQUE INDEX \"event_journal_ordering_idx\" ON \"event_journal\" (\"ordering\")");
      }
      c.setAutoCommit(false);
      PreparedStatement ps = c.prepareStatement("insert into \"event_journal\" (\"deleted\",\"persistence_id\",\"sequence_number\",\"writer\",\"write_timestamp\",\"adapter_manifest\",\"event_payload\",\"event_ser_id\",\"event_ser_manifest\",\"meta_payload\",\"meta_ser_id\",\"meta_ser_manifest\") values (?,?,?,?,?,?,?,?,?,?,?,?)", Statement.RETURN_GENERATED_KEYS);
      byte[] payload = new byte[90];
      String pid = "parreg|partitioned-squared-error-native-v1|p0";
      String writer = java.util.UUID.randomUUID().toString();
      for (int round = 0; round < 3; round++) {
        long t0 = System.nanoTime(); long c0 = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
          long seq = round * n + i + 1;
          ps.setBoolean(1, false); ps.setString(2, pid); ps.setLong(3, seq); ps.setString(4, writer); ps.setLong(5, System.currentTimeMillis());
          ps.setString(6, ""); ps.setBytes(7, payload); ps.setInt(8, 7100); ps.setString(9, ""); ps.setNull(10, Types.BLOB); ps.setNull(11, Types.INTEGER); ps.setNull(12, Types.VARCHAR);
          ps.executeUpdate(); try (ResultSet rs = ps.getGeneratedKeys()) { rs.next(); }
          c.commit();
        }
        long dt = System.nanoTime() - t0; long dc = java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - c0;
        System.out.printf("round %d: %d commits in %.1f ms => %.0f commits/s, %.3f ms each, cpu %.1f us each%n", round, n, dt/1e6, n*1e9/dt, dt/1e6/n, dc/1e3/n);
      }
    }
  }
}
