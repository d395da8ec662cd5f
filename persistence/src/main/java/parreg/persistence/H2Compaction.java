package parreg.persistence;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;

/**
 * Keeps an embedded H2 journal's file close to the size of what it holds while its node runs, by
 * doing the chunk rewriting that H2's own background thread would do.
 *
 * <p>Why this exists: H2's MVStore appends every commit as a new chunk (the changed B-tree pages:
 * the table's open leaf, its index leaves and every page above them) and frees old chunks only once
 * nothing live is left in them. Its background writer thread rewrites the few live pages of mostly
 * dead chunks so that those can be freed; but that thread runs only with a write delay, and the
 * journal needs {@code WRITE_DELAY=0} (STACK.md: a delayed commit is lost on kill -9). So with one
 * commit per step nothing was ever rewritten: 5,000 steps left an 81 MB file for 0.85 MB of rows
 * (BENCHMARKS.md, "Journal size"), and it shrank only when a later process opened it.
 *
 * <p>This class runs that rewriting on its own daemon thread, every {@code interval}: {@link
 * MVStore#compact(int, int)} rewrites the live pages of chunks below the fill rate (at most {@code
 * writeBytes} per round) under the store's lock, exactly as H2's housekeeping does; a chunk left
 * without live pages is freed once H2's retention time (45 s) has passed, and later commits reuse
 * its space. Durability is untouched: commits are still written by the committing thread before
 * they are acknowledged; this only moves pages that are already on disk.
 *
 * <p>It needs the database to be open in this process (an embedded H2 file database): the node
 * keeps one connection open for its whole life, and hands it here.
 */
public final class H2Compaction implements AutoCloseable {
  /** Chunks whose live share is below this percentage are rewritten (H2's own default is 90). */
  static final int TARGET_FILL_RATE = 90;

  private final ScheduledExecutorService thread;

  private H2Compaction(ScheduledExecutorService thread) {
    this.thread = thread;
  }

  /**
   * Starts compacting the embedded H2 database behind {@code connection} every {@code interval},
   * rewriting at most {@code writeBytes} per round.
   *
   * @throws SQLException when the connection is not to an embedded H2 database
   */
  public static H2Compaction start(Connection connection, Duration interval, int writeBytes)
      throws SQLException {
    MVStore store = mvStore(connection);
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "parreg-h2-compaction");
              t.setDaemon(true);
              return t;
            });
    long every = Math.max(1, interval.toMillis());
    thread.scheduleWithFixedDelay(
        () -> {
          if (store.isClosed()) {
            thread.shutdown();
            return;
          }
          try {
            store.compact(TARGET_FILL_RATE, writeBytes);
          } catch (RuntimeException e) {
            // The file only grows from here on; the journal itself is unaffected (a failing store
            // fails the node's next write, which reports it). Say so once and stop.
            System.err.println("parreg: journal compaction stopped: " + e);
            thread.shutdown();
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
    return new H2Compaction(thread);
  }

  /** The MVStore of the embedded H2 database behind {@code connection}. */
  static MVStore mvStore(Connection connection) throws SQLException {
    if (!(connection.unwrap(JdbcConnection.class).getSession() instanceof SessionLocal session)) {
      throw new SQLException("not an embedded H2 database: " + connection.getMetaData().getURL());
    }
    return session.getDatabase().getStore().getMvStore();
  }

  /** Stops compacting and waits for a round in progress; the database stays open. */
  @Override
  public void close() {
    thread
        .shutdown(); // cancels the next rounds; one in progress finishes (an interrupt would abort
    // it)
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
