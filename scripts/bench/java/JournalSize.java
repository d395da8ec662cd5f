// How big an H2 node journal is against what it holds: the file's size, the bytes of its live rows
// (every column of every row of the four tables, as stored values), and the size of the same
// database compacted (SHUTDOWN COMPACT on a copy, so the journal itself is left as it is).
// usage (scripts/bench/journal-size.sh): java -cp H2_JAR scripts/bench/java/JournalSize.java JOURNAL_DIR
import java.nio.file.*;
import java.sql.*;

public class JournalSize {
  public static void main(String[] a) throws Exception {
    Path db = Path.of(a[0], "journal.mv.db");
    long fileBytes = Files.size(db);
    Path copy = Files.createTempDirectory("journal-size");
    Files.copy(db, copy.resolve("journal.mv.db"));
    long live = 0, rows = 0;
    try (Connection c = DriverManager.getConnection("jdbc:h2:file:" + copy.resolve("journal") + ";IFEXISTS=TRUE", "sa", "");
        Statement s = c.createStatement()) {
      for (String t : new String[] {"event_journal", "event_tag", "snapshot", "durable_state"}) {
        StringBuilder sum = new StringBuilder("0");
        try (ResultSet cols = c.getMetaData().getColumns(null, null, t, null)) {
          while (cols.next()) {
            String col = "\"" + cols.getString("COLUMN_NAME") + "\"";
            int type = cols.getInt("DATA_TYPE");
            String bytes = switch (type) {
              case Types.BIGINT -> "8";
              case Types.INTEGER -> "4";
              case Types.BOOLEAN -> "1";
              default -> "octet_length(" + col + ")";
            };
            sum.append(" + case when ").append(col).append(" is null then 0 else ").append(bytes).append(" end");
          }
        }
        try (ResultSet r = s.executeQuery("select count(*), coalesce(sum(" + sum + "), 0) from \"" + t + "\"")) {
          r.next();
          rows += r.getLong(1);
          live += r.getLong(2);
        }
      }
      s.execute("SHUTDOWN COMPACT");
    }
    long compacted = Files.size(copy.resolve("journal.mv.db"));
    Files.delete(copy.resolve("journal.mv.db"));
    Files.deleteIfExists(copy.resolve("journal.trace.db"));
    Files.delete(copy);
    // The step log (--sync-commit): its segments' bytes; its records (each about as large as the
    // row it becomes) are counted apart, as it holds records the file may hold as rows too.
    long logBytes = 0, logFiles = 0;
    Path log = Path.of(a[0], "journal.steplog");
    if (Files.isDirectory(log)) {
      try (var files = Files.list(log)) {
        for (Path f : files.filter(f -> f.toString().endsWith(".steplog")).toList()) {
          logBytes += Files.size(f);
          logFiles++;
        }
      }
    }
    System.out.printf("file %d B, %d rows, live row bytes %d B, compacted %d B, file/compacted %.2f;"
            + " step log %d B in %d segments%n",
        fileBytes, rows, live, compacted, (double) fileBytes / compacted, logBytes, logFiles);
  }
}
