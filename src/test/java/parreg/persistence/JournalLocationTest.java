package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalLocationTest {

  @TempDir Path tmp;

  @Test
  void directoryBecomesDurableH2FileDatabase() {
    Path dir = tmp.resolve("node-1/journal-dir");
    JournalLocation loc = JournalLocation.parse(dir.toString());
    assertEquals(JournalDialect.H2, loc.dialect());
    assertEquals(
        "jdbc:h2:file:"
            + dir.resolve("journal")
            + ";WRITE_DELAY=0;COMPRESS=TRUE;DB_CLOSE_ON_EXIT=FALSE",
        loc.jdbcUrl());
    assertEquals("sa", loc.user());
    assertEquals(dir, loc.directory().orElseThrow());
    assertFalse(Files.exists(dir), "parse has no side effect");
  }

  @Test
  void configOverlayNamesPluginsSharedDatabaseAndProfile() {
    JournalLocation loc = JournalLocation.parse(tmp.toString());
    Config c = loc.persistenceConfig().resolve();
    assertEquals("jdbc-journal", c.getString("pekko.persistence.journal.plugin"));
    assertEquals("jdbc-snapshot-store", c.getString("pekko.persistence.snapshot-store.plugin"));
    for (String plugin :
        new String[] {"jdbc-journal", "jdbc-snapshot-store", "jdbc-read-journal"}) {
      assertEquals("slick", c.getString(plugin + ".use-shared-db"), plugin);
    }
    String slick = "pekko-persistence-jdbc.shared-databases.slick";
    assertEquals("slick.jdbc.H2Profile$", c.getString(slick + ".profile"));
    assertEquals(loc.jdbcUrl(), c.getString(slick + ".db.url"));
    assertEquals("sa", c.getString(slick + ".db.user"));
    assertEquals("org.h2.Driver", c.getString(slick + ".db.driver"));
    assertEquals(2, c.getInt(slick + ".db.maxConnections"));
    // Slick warns of possible deadlocks unless numThreads == maxConnections.
    assertEquals(c.getInt(slick + ".db.maxConnections"), c.getInt(slick + ".db.numThreads"));
  }

  @Test
  void postgresUrl() {
    JournalLocation plain = JournalLocation.parse("jdbc:postgresql://127.0.0.1:5432/parreg");
    assertEquals(JournalDialect.POSTGRES, plain.dialect());
    assertEquals("postgres", plain.user());
    assertEquals("jdbc:postgresql://127.0.0.1:5432/parreg", plain.jdbcUrl());
    assertTrue(plain.directory().isEmpty());
    assertEquals(
        "slick.jdbc.PostgresProfile$",
        plain.databaseConfig().getString("pekko-persistence-jdbc.shared-databases.slick.profile"));

    JournalLocation withUser =
        JournalLocation.parse("jdbc:postgresql://db:5432/parreg?user=trainer&password=s%40cret");
    assertEquals("trainer", withUser.user());
    assertEquals("s@cret", withUser.password());
    assertFalse(withUser.toString().contains("s%40cret") && withUser.toString().contains("s@cret"));
  }

  @Test
  void explicitH2UrlKeepsItsOwnSettings() {
    JournalLocation added = JournalLocation.parse("jdbc:h2:file:" + tmp.resolve("j"));
    assertTrue(added.jdbcUrl().endsWith(";WRITE_DELAY=0;COMPRESS=TRUE"), added.jdbcUrl());
    JournalLocation kept =
        JournalLocation.parse(
            "jdbc:h2:file:" + tmp.resolve("j") + ";WRITE_DELAY=500;compress=false");
    assertTrue(kept.jdbcUrl().endsWith(";WRITE_DELAY=500;compress=false"), kept.jdbcUrl());
  }

  /** The step log lives beside the H2 database; PostgreSQL has none. */
  @Test
  void theStepLogLivesBesideTheH2Database() {
    Path dir = tmp.resolve("sync");
    assertEquals(
        Optional.of(dir.resolve("journal.steplog")),
        JournalLocation.parse(dir.toString()).stepLogDirectory());
    assertEquals(
        Optional.of(tmp.resolve("j.steplog")),
        JournalLocation.parse("jdbc:h2:file:" + tmp.resolve("j") + ";COMPRESS=TRUE")
            .stepLogDirectory());
    assertEquals(
        Optional.empty(),
        JournalLocation.parse("jdbc:postgresql://127.0.0.1:5432/db").stepLogDirectory());
  }

  @Test
  void badValuesNameTheProblem() throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    assertMessage("not a directory", file.toString());
    assertMessage("cannot be created", file.resolve("below-a-file").toString());
    assertMessage("got nothing", " ");
    assertMessage("unsupported journal URL", "jdbc:mysql://localhost/x");
    assertMessage("looks like a URL", "postgres://localhost/x");
    assertMessage("only jdbc:h2:file", "jdbc:h2:mem:x");
    assertMessage("must name a host and a database", "jdbc:postgresql://localhost");
    assertMessage("must look like", "jdbc:postgresql:parreg");
  }

  private static void assertMessage(String fragment, String value) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> JournalLocation.parse(value), value);
    assertTrue(e.getMessage().contains(fragment), e.getMessage());
  }

  /** An embedded H2 journal is locked by the process that has it open (a running node). */
  @Test
  void journalHeldByAnotherProcessIsReportedAsInUse() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.resolve("held").toString());
    loc.createSchema();
    Process holder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                H2Holder.class.getName(),
                loc.jdbcUrl())
            .redirectErrorStream(true)
            .start();
    try {
      var out = new java.io.BufferedReader(new java.io.InputStreamReader(holder.getInputStream()));
      assertEquals("open", out.readLine());
      IllegalStateException e =
          assertThrows(IllegalStateException.class, loc::openExistingConnection);
      assertTrue(e.getMessage().contains("in use by another process"), e.getMessage());
    } finally {
      holder.getOutputStream().close();
      holder.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
      holder.destroyForcibly();
    }
  }

  @Test
  void readersDoNotCreateJournals() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.resolve("none").toString());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, loc::openExistingConnection);
    assertTrue(e.getMessage().contains("no journal"), e.getMessage());
    assertFalse(Files.exists(tmp.resolve("none")));

    loc.createSchema();
    assertTrue(Files.exists(tmp.resolve("none/journal.mv.db")));
    try (Connection c = loc.openExistingConnection()) {
      JournalSchema.verify(c);
    }
  }
}
