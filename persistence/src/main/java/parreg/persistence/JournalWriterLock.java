package parreg.persistence;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;

/**
 * One writer per persistence id in a shared PostgreSQL journal (issue 13 item 3): a session-level
 * advisory lock, keyed by a hash of the persistence id, taken on a connection of its own and held
 * for the node's life. Two nodes writing one persistence id (two clusters on one database, a second
 * node with a taken participant id) would interleave sequence numbers; the second one is refused
 * before it writes anything. The lock goes with the session: a node that stops or is killed
 * releases it at once; one whose machine vanished, once the server's TCP keepalive gives up on it
 * (set here to about 25 s). An embedded H2 journal needs none: its file is locked by the process
 * that has it open.
 */
public final class JournalWriterLock implements AutoCloseable {

  /** The lock is held by another session: the message names the persistence id and the holder. */
  public static final class HeldException extends Exception {
    public HeldException(String message) {
      super(message);
    }
  }

  private final Connection connection;

  private JournalWriterLock(Connection connection) {
    this.connection = connection;
  }

  /**
   * Takes the lock of {@code persistenceId} on a new connection to {@code location} (PostgreSQL).
   *
   * @param holder how other nodes' messages name this one (PostgreSQL's {@code application_name})
   * @throws HeldException when another session holds it
   * @throws SQLException when the database cannot be reached
   */
  public static JournalWriterLock acquire(
      JournalLocation location, String persistenceId, String holder)
      throws SQLException, HeldException {
    if (location.dialect() != JournalDialect.POSTGRES) {
      throw new IllegalArgumentException(
          "a writer lock is for a shared PostgreSQL journal, not " + location);
    }
    long key = key(persistenceId);
    Connection c = location.openConnection();
    try {
      try (Statement s = c.createStatement()) {
        // The server notices a vanished client (power loss, cable) within ~25 s instead of hours.
        s.execute(
            "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3");
      }
      try (PreparedStatement p =
          c.prepareStatement("SELECT set_config('application_name', ?, false)")) {
        p.setString(1, holder.length() > 63 ? holder.substring(0, 63) : holder);
        p.execute();
      }
      boolean got;
      try (PreparedStatement p = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
        p.setLong(1, key);
        try (ResultSet rs = p.executeQuery()) {
          rs.next();
          got = rs.getBoolean(1);
        }
      }
      if (!got) {
        throw new HeldException(
            "persistence id "
                + persistenceId
                + " in journal "
                + location.display()
                + " is being written by another node ("
                + holders(c, key)
                + "); one writer per persistence id:"
                + " stop that node first (a node whose machine vanished is released within about 25 s)");
      }
      return new JournalWriterLock(c);
    } catch (SQLException | HeldException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /**
   * Who holds {@code key} in this database, as far as this session may see: backend, client
   * address, name, since. An advisory lock belongs to one database, but pg_locks lists those of
   * every database on the server: another run's node in a neighbouring database, holding the same
   * key, is no writer of this journal.
   */
  private static String holders(Connection c, long key) throws SQLException {
    List<String> out = new ArrayList<>();
    // A bigint advisory key is shown in pg_locks as classid (high half), objid (low half), objsubid
    // 1.
    try (PreparedStatement p =
        c.prepareStatement(
            "SELECT a.pid, host(a.client_addr), a.application_name, a.backend_start"
                + " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE l.locktype = 'advisory' AND l.granted"
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND l.classid::bigint = ? AND l.objid::bigint = ? AND l.objsubid = 1"
                + " ORDER BY a.backend_start")) {
      p.setLong(1, key >>> 32);
      p.setLong(2, key & 0xffff_ffffL);
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          String name = rs.getString(3);
          Timestamp since = rs.getTimestamp(4);
          out.add(
              "'"
                  + (name == null || name.isEmpty() ? "unnamed" : name)
                  + "', database session "
                  + rs.getInt(1)
                  + (rs.getString(2) == null ? "" : " from " + rs.getString(2))
                  + (since == null ? "" : " since " + since.toInstant()));
        }
      }
    }
    return out.isEmpty() ? "a session this user cannot see" : String.join("; ", out);
  }

  /**
   * A 64-bit key for {@code persistenceId}: the first 8 bytes of SHA-256 over a parreg prefix and
   * the id.
   */
  static long key(String persistenceId) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256")
              .digest(("parreg-writer|" + persistenceId).getBytes(StandardCharsets.UTF_8));
      long k = 0;
      for (int i = 0; i < 8; i++) {
        k = (k << 8) | (h[i] & 0xff);
      }
      return k;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Releases the lock (the session ends). */
  @Override
  public void close() {
    try {
      connection.close();
    } catch (SQLException ignored) {
      // the session is gone either way, and the lock with it
    }
  }
}
