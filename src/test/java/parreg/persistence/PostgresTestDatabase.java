package parreg.persistence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A fresh PostgreSQL database for one test ({@code parreg_test_<random>} on 127.0.0.1:5432, user
 * postgres), dropped on close. Skips the test, with the reason, when PostgreSQL does not answer.
 */
public final class PostgresTestDatabase implements AutoCloseable {
  static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";

  private final String name;

  private PostgresTestDatabase(String name) {
    this.name = name;
  }

  public static PostgresTestDatabase createOrSkip() {
    String name = "parreg_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection admin = admin();
        Statement s = admin.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      Assumptions.abort("PostgreSQL at " + SERVER + " not usable: " + e.getMessage());
    }
    return new PostgresTestDatabase(name);
  }

  private static Connection admin() throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("connectTimeout", "3");
    return DriverManager.getConnection(SERVER + "postgres", p);
  }

  public JournalLocation location() {
    return JournalLocation.parse(SERVER + name + "?user=postgres");
  }

  /** The JDBC URL of this database, as a user passes it to {@code --journal}. */
  public String url() {
    return SERVER + name + "?user=postgres";
  }

  @Override
  public void close() throws SQLException {
    try (Connection admin = admin();
        Statement s = admin.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }
}
