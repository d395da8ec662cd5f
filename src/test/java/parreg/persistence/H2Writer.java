package parreg.persistence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;

/**
 * Test helper run as a separate process: inserts rows one auto-committed transaction at a time and
 * prints each row's number once its commit returned, until killed.
 */
public final class H2Writer {
  private H2Writer() {}

  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], "sa", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS \"acked\" (\"n\" BIGINT PRIMARY KEY)");
      }
      try (PreparedStatement insert = c.prepareStatement("INSERT INTO \"acked\" VALUES (?)")) {
        for (long n = 1; ; n++) {
          insert.setLong(1, n);
          insert.executeUpdate();
          System.out.println(n);
          System.out.flush();
        }
      }
    }
  }
}
