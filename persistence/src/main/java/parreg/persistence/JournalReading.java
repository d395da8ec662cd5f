package parreg.persistence;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A journal opened by one of the CLI's readers ({@code predict}, {@code export}, {@code history},
 * {@code evaluate}, {@code summary}, {@code journal verify}), also while a node runs on it.
 *
 * <p>A PostgreSQL journal, or an embedded H2 journal no process holds, is opened as it is. An
 * embedded H2 database is locked by the node that has it open, so for a running node's journal the
 * reader takes a snapshot instead: it copies the step log's segments, then the database file, into
 * a temporary directory and opens the copy (removed when this JVM exits). The node is neither
 * blocked nor touched: the copy only reads its files. What the copy holds is a durable prefix of
 * the run: every step H2 had written when the file was read (H2 writes each commit at once, {@code
 * WRITE_DELAY=0}), and the acknowledged steps of the step log, which is copied first so that a
 * segment the node releases meanwhile is already in the database when that is copied. A copy read
 * across a write the node makes at that moment is what H2's own recovery handles after a kill (it
 * opens the last complete chunk), and every event the reader takes from it passes the journal's
 * checksums and links as on any journal; a copy H2 cannot open is taken again, up to three times.
 *
 * <p>Rejected alternatives (docs/ARCHITECTURE.md, "Reading a running node's journal"): H2's {@code
 * AUTO_SERVER} mode starts a TCP server in the node that listens on every interface ({@code
 * -tcpAllowOthers}, user {@code sa} without a password, guarded by a key in the lock file) and runs
 * every reader's queries in the node's JVM.
 *
 * @param location where to read: the journal given, or the snapshot
 * @param connection open on it
 * @param snapshot whether this is a running node's journal read through a snapshot
 */
public record JournalReading(JournalLocation location, Connection connection, boolean snapshot) {
  private static final int ATTEMPTS = 5;

  /**
   * Opens {@code location} for reading.
   *
   * @throws IllegalArgumentException when the H2 journal does not exist
   * @throws IllegalStateException when the journal is held and no snapshot of it could be taken
   */
  public static JournalReading open(JournalLocation location) throws SQLException {
    try {
      return new JournalReading(location, location.openExistingConnection(), false);
    } catch (IllegalStateException inUse) {
      Path stepLog = location.stepLogDirectory().orElse(null);
      if (stepLog == null) {
        throw inUse;
      }
      String name = stepLog.getFileName().toString();
      Path database =
          stepLog.resolveSibling(
              name.substring(0, name.length() - StepLog.SUFFIX.length()) + ".mv.db");
      SQLException last = null;
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        Path copy = copy(location, database, stepLog);
        JournalLocation snapshot = JournalLocation.parse(copy.toString());
        Connection c = null;
        try {
          c = snapshot.openExistingConnection();
          readEveryPage(c);
          return new JournalReading(snapshot, c, true);
        } catch (SQLException | IllegalStateException | IllegalArgumentException e) {
          last = e instanceof SQLException s ? s : new SQLException(e.getMessage(), e);
          if (c != null) {
            c.close();
          }
        }
      }
      throw new IllegalStateException(
          "journal "
              + location.display()
              + " is in use by a running node, and no snapshot of it could be opened ("
              + last.getMessage()
              + ")",
          last);
    }
  }

  /**
   * Reads every row of every table of a snapshot, so that a page the copy caught half-written (H2
   * checks each page it loads) fails here, where the copy is taken again, rather than in the
   * command reading it.
   */
  private static void readEveryPage(Connection c) throws SQLException {
    List<String> tables = new java.util.ArrayList<>();
    try (java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs =
            st.executeQuery(
                "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'")) {
      while (rs.next()) {
        tables.add(rs.getString(1));
      }
    }
    for (String t : tables) {
      try (java.sql.Statement st = c.createStatement();
          java.sql.ResultSet rs =
              st.executeQuery("SELECT * FROM \"" + t.replace("\"", "\"\"") + "\"")) {
        int columns = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          for (int k = 1; k <= columns; k++) {
            rs.getObject(k);
          }
        }
      }
    }
  }

  /** The step log, then the database, into a new temporary directory removed at exit. */
  private static Path copy(JournalLocation location, Path database, Path stepLog) {
    try {
      Path dir = Files.createTempDirectory("parreg-journal-snapshot-");
      removeAtExit(dir);
      Path logCopy =
          Files.createDirectory(dir.resolve(JournalLocation.H2_DATABASE_NAME + StepLog.SUFFIX));
      if (Files.isDirectory(stepLog)) {
        List<Path> segments;
        try (Stream<Path> s = Files.list(stepLog)) {
          segments = s.filter(f -> f.getFileName().toString().endsWith(StepLog.SUFFIX)).toList();
        }
        for (Path segment : segments) {
          try {
            Files.copy(segment, logCopy.resolve(segment.getFileName()));
          } catch (NoSuchFileException released) {
            // released by the node meanwhile: its records are in the database, copied next
          }
        }
      }
      Files.copy(
          database,
          dir.resolve(JournalLocation.H2_DATABASE_NAME + ".mv.db"),
          StandardCopyOption.COPY_ATTRIBUTES);
      return dir;
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot take a snapshot of journal " + location.display() + ": " + e.getMessage(), e);
    }
  }

  private static void removeAtExit(Path dir) {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try (Stream<Path> all = Files.walk(dir)) {
                    for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                      Files.deleteIfExists(p);
                    }
                  } catch (IOException e) {
                    // a temporary directory: left for the system to clean
                  }
                },
                "parreg-snapshot-cleanup"));
  }
}
