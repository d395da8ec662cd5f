package parreg.device;

/**
 * One participant's data in binary32, stored feature-major: feature {@code j} of sample {@code i}
 * is {@code x[j * n + i]}. Feature-major puts consecutive samples of one feature next to each
 * other, which is what the lane order of {@link ReductionOrder} reads: coalesced on a GPU, unit
 * stride for SIMD on a CPU.
 *
 * <p>The digest hashes the canonical content (d, n, then every row's feature bits and y bits in row
 * order, {@link PartitionDigest}), so the same rows give the same digest whatever file format they
 * came from.
 */
public final class Partition {
  private final int n;
  private final int d;
  private final float[] x;
  private final float[] y;
  private volatile String digest;
  private final java.util.function.Consumer<String> whenDigested;

  /**
   * @param n samples (> 0)
   * @param d features (> 0)
   * @param x feature-major values, length n*d (not copied: the caller hands it over)
   * @param y targets, length n (not copied)
   */
  public Partition(int n, int d, float[] x, float[] y) {
    this(n, d, x, y, null, null);
  }

  /**
   * A partition whose loader knows more about its digest (see {@code
   * parreg.device.data.DigestCache}).
   *
   * @param knownDigest the digest of this content, which the caller vouches for, or null to compute
   *     it on first use
   * @param whenDigested told the digest once it has been computed here (never for a known one), or
   *     null
   */
  public Partition(
      int n,
      int d,
      float[] x,
      float[] y,
      String knownDigest,
      java.util.function.Consumer<String> whenDigested) {
    if (n <= 0) {
      throw new IllegalArgumentException("a partition needs at least one sample");
    }
    if (d <= 0) {
      throw new IllegalArgumentException("a partition needs at least one feature");
    }
    if ((long) n * d != x.length || y.length != n) {
      throw new IllegalArgumentException(
          "partition arrays do not match n="
              + n
              + ", d="
              + d
              + ": x="
              + x.length
              + ", y="
              + y.length);
    }
    this.n = n;
    this.d = d;
    this.x = x;
    this.y = y;
    this.digest = knownDigest;
    this.whenDigested = whenDigested;
  }

  /** Builds a partition from rows ({@code rows[i][j]}) and targets. */
  public static Partition ofRows(float[][] rows, float[] y) {
    int n = rows.length;
    int d = n == 0 ? 0 : rows[0].length;
    float[] x = new float[n * d];
    for (int i = 0; i < n; i++) {
      if (rows[i].length != d) {
        throw new IllegalArgumentException(
            "row " + i + " has " + rows[i].length + " features, expected " + d);
      }
      for (int j = 0; j < d; j++) {
        x[j * n + i] = rows[i][j];
      }
    }
    return new Partition(n, d, x, y.clone());
  }

  public int samples() {
    return n;
  }

  public int features() {
    return d;
  }

  public float x(int sample, int feature) {
    return x[feature * n + sample];
  }

  public float y(int sample) {
    return y[sample];
  }

  /** The feature-major array itself (read-only by convention; backends upload it). */
  public float[] featureMajor() {
    return x;
  }

  public float[] targets() {
    return y;
  }

  /**
   * SHA-256 of the canonical content, hex (see {@link PartitionDigest}); computed on first use, on
   * {@link Workers#defaultThreads()} threads.
   */
  public String digest() {
    String dg = digest;
    if (dg == null) {
      synchronized (this) {
        dg = digest;
        if (dg == null) {
          dg = PartitionDigest.sha256(this, Workers.defaultThreads());
          digest = dg;
          if (whenDigested != null) {
            whenDigested.accept(dg);
          }
        }
      }
    }
    return dg;
  }

  public PartitionInfo info(int participant) {
    return new PartitionInfo(participant, digest(), n, d);
  }
}
