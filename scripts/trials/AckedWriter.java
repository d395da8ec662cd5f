// Inserts rows (a 120-byte payload each) one auto-committed transaction at a time and prints each
// row's number once its commit returned, until killed; with "compact" as the second argument it
// also runs the node's chunk rewriting (MVStore.compact(90, 1 MiB) every 200 ms, as
// parreg.persistence.H2Compaction does). scripts/trials/h2-kill-trial.sh kills it and counts what survived.
// usage: java -cp H2_JAR scripts/trials/AckedWriter.java JDBC_URL none|compact
import java.sql.*;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;

public class AckedWriter {
  public static void main(String[] a) throws Exception {
    try (Connection c = DriverManager.getConnection(a[0], "sa", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS \"acked\" (\"n\" BIGINT PRIMARY KEY, \"p\" VARBINARY(200))");
      }
      if (a[1].equals("compact")) {
        MVStore mv = ((SessionLocal) ((JdbcConnection) c).getSession()).getDatabase().getStore().getMvStore();
        Thread t = new Thread(() -> {
          while (true) {
            try {
              Thread.sleep(200);
            } catch (InterruptedException e) {
              return;
            }
            mv.compact(90, 1 << 20);
          }
        });
        t.setDaemon(true);
        t.start();
      }
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO \"acked\" VALUES (?, ?)")) {
        byte[] p = new byte[120];
        for (long n = 1; ; n++) {
          insert.setLong(1, n);
          insert.setBytes(2, p);
          insert.executeUpdate();
          System.out.println(n);
          System.out.flush();
        }
      }
    }
  }
}
