package parreg.device;

import java.util.concurrent.CompletableFuture;

/**
 * A node's partition as it starts: its shape and digest, which the roster and the journal check
 * need at once, and its rows, which only the backend needs, possibly still being read.
 *
 * <p>Why: reading a large partition (2.6 GB in the job) takes seconds, and before this a
 * node read it before starting its actor system, joining the cluster and replaying its journal,
 * none of which needs the rows. A {@code .prb} file whose digest sidecar matches gives shape and
 * digest from its header, block table and sidecar ({@code parreg.device.data.PartitionFiles#open}),
 * so its rows are read concurrently with the rest of the start. The rows that arrive are checked as
 * any read checks them; a file that turns out bad fails the node with the read's message.
 */
public final class PartitionSource {
  private final int samples;
  private final int features;
  private final String digest;
  private final CompletableFuture<Partition> rows;

  private PartitionSource(
      int samples, int features, String digest, CompletableFuture<Partition> rows) {
    this.samples = samples;
    this.features = features;
    this.digest = digest;
    this.rows = rows;
  }

  /** A partition already in memory. */
  public static PartitionSource of(Partition p) {
    return new PartitionSource(
        p.samples(), p.features(), null, CompletableFuture.completedFuture(p));
  }

  /**
   * Rows still being read, whose shape and digest the caller vouches for (the rows, once read, must
   * have exactly this shape and content).
   */
  public static PartitionSource pending(
      int samples, int features, String digest, CompletableFuture<Partition> rows) {
    if (samples <= 0 || features <= 0 || digest == null) {
      throw new IllegalArgumentException("a pending partition needs its shape and digest");
    }
    return new PartitionSource(samples, features, digest, rows);
  }

  public int samples() {
    return samples;
  }

  public int features() {
    return features;
  }

  /** The rows: completed at once for a partition in memory; failed with the read's error. */
  public CompletableFuture<Partition> rows() {
    return rows;
  }

  /**
   * What the roster records of this partition (the digest of rows in memory is computed on first
   * use).
   */
  public PartitionInfo info(int participant) {
    if (digest != null) {
      return new PartitionInfo(participant, digest, samples, features);
    }
    return rows.join().info(participant);
  }
}
