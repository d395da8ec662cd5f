// Inserts rows (a 120-byte payload each) one auto-committed transaction at a time, running the
// node's chunk rewriting (MVStore.compact(90, 1 MiB) every 200 ms, as H2Compaction does), and
// prints after each commit: the row's number, the store's version read after the commit returned,
// and the version of the chunk the store header names (parreg.persistence.H2Durability). Continues
// an existing table. scripts/trials/h2-header-trial.sh kills it and checks what survived.
// usage: java -cp H2_JAR scripts/trials/HeaderWriter.java JDBC_URL [PAUSE_MS between commits]
import java.sql.*;
import java.util.Map;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;

public class HeaderWriter {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], "sa", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS \"acked\" (\"n\" BIGINT PRIMARY KEY, \"p\" VARBINARY(200))");
      }
      long start = 1;
      try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("select coalesce(max(\"n\"),0) from \"acked\"")) {
        r.next(); start = r.getLong(1) + 1;
      }
      MVStore mv = ((SessionLocal) ((JdbcConnection) c).getSession()).getDatabase().getStore().getMvStore();
      Thread t = new Thread(() -> {
        while (true) {
          try { Thread.sleep(200); } catch (InterruptedException e) { return; }
          mv.compact(90, 1 << 20);
        }
      });
      t.setDaemon(true);
      t.start();
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO \"acked\" VALUES (?, ?)")) {
        byte[] p = new byte[120];
        for (long n = start; ; n++) {
          insert.setLong(1, n);
          insert.setBytes(2, p);
          insert.executeUpdate();
          Map<String, Object> h = mv.getStoreHeader();
          System.out.println(n + " " + mv.getCurrentVersion() + " " + h.get("version"));
          System.out.flush();
          if (a.length > 1) Thread.sleep(Long.parseLong(a[1]));
        }
      }
    }
  }
}
