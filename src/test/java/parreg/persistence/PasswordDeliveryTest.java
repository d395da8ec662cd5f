package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The password reaches the server from every source, over both paths a node uses: a plain JDBC
 * connection (the CLI, the writer lock) and the connection pool built from {@link
 * JournalLocation#databaseConfig} (the journal plugin); and the failure's messages do not carry it.
 * A {@link FakePasswordServer} asks for it, since the local PostgreSQL trusts every connection.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PasswordDeliveryTest {
  @TempDir Path tmp;

  JournalPassword.Sources sources(Map<String, String> env, Map<String, String> props) {
    Map<String, String> p = new java.util.HashMap<>(props);
    p.putIfAbsent("user.home", tmp.toString());
    return new JournalPassword.Sources(env::get, p::get);
  }

  Path file(String name, String content, String mode) throws Exception {
    Path f = Files.writeString(tmp.resolve(name), content);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
    return f;
  }

  /** What the server received over a plain connection and over the pool. */
  static List<String> deliver(FakePasswordServer server, JournalLocation loc, String secret)
      throws Exception {
    int before = server.passwords().size();
    SQLException e = assertThrows(SQLException.class, loc::openExistingConnection);
    assertNoSecret(e, secret);
    Config c =
        ConfigFactory.parseString(
                "pekko-persistence-jdbc.shared-databases.slick.db.connectionTimeout = 1000")
            .withFallback(loc.persistenceConfig())
            .withFallback(ConfigFactory.load());
    Exception pool =
        assertThrows(
            Exception.class,
            () -> {
              var db =
                  slick.jdbc.JdbcBackend$.MODULE$
                      .Database()
                      .forConfig(
                          "pekko-persistence-jdbc.shared-databases.slick.db",
                          c,
                          null,
                          PasswordDeliveryTest.class.getClassLoader());
              try (var conn = db.source().createConnection()) {
                // not reached: the server refuses every password
              } finally {
                db.close();
              }
            });
    assertNoSecret(pool, secret);
    List<String> got = server.passwords();
    return got.subList(before, got.size()).stream().distinct().toList();
  }

  static void assertNoSecret(Throwable t, String secret) {
    for (Throwable x = t; x != null; x = x.getCause()) {
      assertFalse(String.valueOf(x).contains(secret), x.toString());
    }
  }

  @Test
  void everySourceDeliversItsPassword() throws Exception {
    try (FakePasswordServer server = new FakePasswordServer()) {
      String url = server.url("parreg") + "?user=postgres&connectTimeout=5";
      Map<String, String> none = Map.of();
      assertEquals(
          List.of("p@ss!word"),
          deliver(
              server,
              JournalLocation.parse(url + "&password=p%40ss%21word", null, sources(none, none)),
              "p@ss!word"));
      Path f = file("pw", "File Secret\n", "rw-------");
      assertEquals(
          List.of("File Secret"),
          deliver(server, JournalLocation.parse(url, f, sources(none, none)), "File Secret"));
      assertEquals(
          List.of("EnvSecret"),
          deliver(
              server,
              JournalLocation.parse(url, null, sources(Map.of("PGPASSWORD", "EnvSecret"), none)),
              "EnvSecret"));
    }
  }

  // The driver reads its password file (the system property names it, as PGPASSFILE would) when it
  // is given no password; one that others may read it is kept from.
  @Test
  void theDriversPasswordFileIsReadOnlyWhenItIsTheOwnersAlone() throws Exception {
    try (FakePasswordServer server = new FakePasswordServer()) {
      String url = server.url("parreg") + "?user=postgres&connectTimeout=5";
      Path strict = file("strict", "127.0.0.1:*:parreg:postgres:PgpassSecret\n", "rw-------");
      Path lax = file("lax", "127.0.0.1:*:parreg:postgres:LaxSecret\n", "rw-r--r--");
      String saved = System.getProperty(JournalPassword.PGPASSFILE_PROPERTY);
      try {
        System.setProperty(JournalPassword.PGPASSFILE_PROPERTY, strict.toString());
        assertEquals(
            List.of("PgpassSecret"),
            deliver(
                server,
                JournalLocation.parse(
                    url,
                    null,
                    sources(
                        Map.of(), Map.of(JournalPassword.PGPASSFILE_PROPERTY, strict.toString()))),
                "PgpassSecret"));
        System.setProperty(JournalPassword.PGPASSFILE_PROPERTY, lax.toString());
        assertEquals(
            List.of(""),
            deliver(
                server,
                JournalLocation.parse(
                    url,
                    null,
                    sources(Map.of(), Map.of(JournalPassword.PGPASSFILE_PROPERTY, lax.toString()))),
                "LaxSecret"));
      } finally {
        if (saved == null) {
          System.clearProperty(JournalPassword.PGPASSFILE_PROPERTY);
        } else {
          System.setProperty(JournalPassword.PGPASSFILE_PROPERTY, saved);
        }
      }
    }
  }
}
