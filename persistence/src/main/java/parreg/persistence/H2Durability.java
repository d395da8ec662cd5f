package parreg.persistence;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.LongSupplier;
import org.h2.mvstore.MVStore;

/**
 * Which commits of an embedded H2 journal a kill -9 can no longer take back, so that the step log
 * ({@link StepLog}) deletes only what the journal will still hold after a crash.
 *
 * <p>Why this exists: H2 acknowledges a commit once its chunk is written ({@code WRITE_DELAY=0}),
 * but once it reuses file space it rewrites its store header (which names the newest chunk) only
 * every ~20 versions or so, and on an unclean open it may stop at the header's chunk: the commits
 * after it are gone although they were acknowledged. Measured with {@code
 * scripts/trials/h2-header-trial.sh} (a writer printing, after each commit, the store's version and
 * the header's, killed after about a minute): in every trial that lost acknowledged rows, the rows
 * recovered were exactly those whose commit the header covered (BENCHMARKS.md, "Journal size and
 * durability"). The chaos soak saw it cost a whole start's commits: a restarted node moved 135
 * steps from its step log into H2 and deleted the log, H2 lost them with the 30 steps after, and
 * the next start found the journal ending 135 steps before the log began.
 *
 * <p>So a commit is safe once the header's version has reached the store's version read after the
 * commit returned ({@link #version} then, {@link #recoverable} later). Without a store attached (no
 * embedded H2 journal) every acknowledged write counts as safe.
 */
public final class H2Durability {
  // Without a store: every write counts as safe. Volatile: attached on the journal's set-up thread,
  // read on the training actor's.
  private volatile LongSupplier version = () -> 0;
  private volatile LongSupplier header = () -> Long.MAX_VALUE;

  /** Not attached yet: {@link #attach} gives it the journal's store. */
  public H2Durability() {}

  /**
   * Versions from two sources instead of a store (tests): {@code version} for {@link #version},
   * {@code header} for {@link #recoverable}.
   */
  public H2Durability(LongSupplier version, LongSupplier header) {
    this.version = version;
    this.header = header;
  }

  /** Attaches the store of the embedded H2 database behind {@code connection}. */
  public void attach(Connection connection) throws SQLException {
    MVStore store = H2Compaction.mvStore(connection);
    version = store::getCurrentVersion;
    header = () -> headerVersion(store);
  }

  /**
   * The store's version now: a commit that returned before this call is in a chunk of a lower
   * version. 0 without a store.
   */
  public long version() {
    return version.getAsLong();
  }

  /**
   * The version of the chunk the store header names: an unclean open recovers at least that far.
   * {@link Long#MAX_VALUE} without a store; -1 while the header names none (a new file, before its
   * first header).
   */
  public long recoverable() {
    return header.getAsLong();
  }

  /** Whether a commit that returned when {@link #version} said {@code version} is safe now. */
  public boolean covers(long version) {
    return version <= recoverable();
  }

  private static long headerVersion(MVStore store) {
    // H2's own map, written by the committing thread: a value read while it changes is only an
    // older or a missing one, and either keeps the log longer.
    Object v = store.getStoreHeader().get("version");
    if (v instanceof Number n) {
      return n.longValue();
    }
    if (v instanceof String hex) {
      // read back from the file (DataUtils writes the header's numbers in hexadecimal)
      try {
        return Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    return -1;
  }
}
