package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalSchemaTest {

  @TempDir Path tmp;

  @Test
  void h2CreationIsIdempotent() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.toString());
    loc.createSchema();
    loc.createSchema();
    try (Connection c = loc.openConnection()) {
      JournalSchema.createIfNotExists(c, JournalDialect.H2);
      assertEquals(JournalSchema.COLUMNS.keySet().size(), countTables(c, "PUBLIC"));
    }
  }

  @Test
  void h2ErrorsAreSurfaced() throws Exception {
    JournalLocation loc = JournalLocation.parse(tmp.toString());
    try (Connection c = loc.openConnection();
        Statement s = c.createStatement()) {
      // An incompatible older table in the way: creation must not pass silently.
      s.execute("CREATE TABLE \"snapshot\" (\"persistence_id\" VARCHAR(255), \"snapshot\" BLOB)");
      SQLException e =
          assertThrows(
              SQLException.class, () -> JournalSchema.createIfNotExists(c, JournalDialect.H2));
      assertTrue(e.getMessage().contains("\"snapshot\""), e.getMessage());
    }
  }

  @Test
  void postgresCreationIsIdempotentAndSafeUnderConcurrentStarts() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip()) {
      JournalLocation loc = db.location();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        List<Future<?>> starts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          starts.add(
              pool.submit(
                  () -> {
                    loc.createSchema();
                    return null;
                  }));
        }
        for (Future<?> f : starts) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      loc.createSchema();
      try (Connection c = loc.openConnection()) {
        assertEquals(JournalSchema.COLUMNS.keySet().size(), countTables(c, "public"));
      }
    }
  }

  static int countTables(Connection c, String schema) throws SQLException {
    int n = 0;
    for (String table : JournalSchema.COLUMNS.keySet()) {
      try (var rs = c.getMetaData().getTables(null, schema, table, new String[] {"TABLE"})) {
        if (rs.next()) {
          n++;
        }
      }
    }
    return n;
  }
}
