package parreg.device;

/**
 * One participant's data, binary32 or binary64 ({@link Precision}), stored feature-major: feature
 * {@code j} of sample {@code i} is {@code x[j * n + i]}. Feature-major puts consecutive samples of
 * one feature next to each other, which is what the lane order of {@link ReductionOrder} reads:
 * coalesced on a GPU, unit stride for SIMD on a CPU.
 *
 * <p>The digest hashes the canonical content (d, n, then every row's feature bits and y bits in row
 * order, {@link PartitionDigest}), so the same rows give the same digest whatever file format they
 * came from. A binary64 partition ({@link #ofBinary64}) has a digest of its own definition ({@link
 * PartitionDigest#PREFIX_F64}): the same values held in binary32 and in binary64 are two
 * partitions. Gradient descent reads binary32 only ({@link #featureMajor()}); the exact solver's
 * statistics pass reads either ({@link #featureMajor64()}).
 */
public final class Partition {
  private final int n;
  private final int d;
  private final float[] x;
  private final float[] y;
  private final double[] x64;
  private final double[] y64;
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
    this(n, d, x, y, null, null, knownDigest, whenDigested);
  }

  private Partition(
      int n,
      int d,
      float[] x,
      float[] y,
      double[] x64,
      double[] y64,
      String knownDigest,
      java.util.function.Consumer<String> whenDigested) {
    if (n <= 0) {
      throw new IllegalArgumentException("a partition needs at least one sample");
    }
    if (d <= 0) {
      throw new IllegalArgumentException("a partition needs at least one feature");
    }
    int xl = x != null ? x.length : x64.length;
    int yl = y != null ? y.length : y64.length;
    if ((long) n * d != xl || yl != n) {
      throw new IllegalArgumentException(
          "partition arrays do not match n=" + n + ", d=" + d + ": x=" + xl + ", y=" + yl);
    }
    this.n = n;
    this.d = d;
    this.x = x;
    this.y = y;
    this.x64 = x64;
    this.y64 = y64;
    this.digest = knownDigest;
    this.whenDigested = whenDigested;
  }

  /**
   * A binary64 partition (the exact solver's data at {@link Precision#F64}).
   *
   * @param x feature-major values, length n*d (not copied)
   * @param y targets, length n (not copied)
   * @param knownDigest the digest of this content, or null to compute it on first use
   * @param whenDigested told the digest once computed here, or null
   */
  public static Partition ofBinary64(
      int n,
      int d,
      double[] x,
      double[] y,
      String knownDigest,
      java.util.function.Consumer<String> whenDigested) {
    java.util.Objects.requireNonNull(x, "x");
    java.util.Objects.requireNonNull(y, "y");
    return new Partition(n, d, null, null, x, y, knownDigest, whenDigested);
  }

  /** A binary64 partition whose digest is computed on first use. */
  public static Partition ofBinary64(int n, int d, double[] x, double[] y) {
    return ofBinary64(n, d, x, y, null, null);
  }

  /** This partition with a digest the caller vouches for (a sidecar's), or told once computed. */
  public Partition withDigest(
      String knownDigest, java.util.function.Consumer<String> whenDigested) {
    return new Partition(n, d, x, y, x64, y64, knownDigest, whenDigested);
  }

  /** The precision its values are held in. */
  public Precision precision() {
    return x64 != null ? Precision.F64 : Precision.F32;
  }

  /**
   * This partition's values in binary64 (exact: every binary32 value is a binary64 value); a
   * binary64 partition itself. The digest is the binary64 partition's.
   */
  public Partition widened() {
    if (x64 != null) {
      return this;
    }
    double[] wx = new double[x.length];
    for (int k = 0; k < wx.length; k++) {
      wx[k] = x[k];
    }
    double[] wy = new double[y.length];
    for (int k = 0; k < wy.length; k++) {
      wy[k] = y[k];
    }
    return ofBinary64(n, d, wx, wy);
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

  /** A binary32 value (binary32 partitions only, as {@link #featureMajor()}). */
  public float x(int sample, int feature) {
    return featureMajor()[feature * n + sample];
  }

  /** A binary32 target (binary32 partitions only). */
  public float y(int sample) {
    return targets()[sample];
  }

  /** A value as binary64, of either precision. */
  public double x64(int sample, int feature) {
    return x64 != null ? x64[feature * n + sample] : x[feature * n + sample];
  }

  /** A target as binary64, of either precision. */
  public double y64(int sample) {
    return y64 != null ? y64[sample] : y[sample];
  }

  /**
   * The binary32 feature-major array itself (read-only by convention; backends upload it).
   *
   * @throws IllegalStateException for a binary64 partition: gradient descent reads binary32 data
   */
  public float[] featureMajor() {
    requireBinary32();
    return x;
  }

  /** The binary32 targets (binary32 partitions only). */
  public float[] targets() {
    requireBinary32();
    return y;
  }

  /** The binary64 feature-major array (binary64 partitions only; read-only by convention). */
  public double[] featureMajor64() {
    requireBinary64();
    return x64;
  }

  /** The binary64 targets (binary64 partitions only). */
  public double[] targets64() {
    requireBinary64();
    return y64;
  }

  private void requireBinary32() {
    if (x == null) {
      throw new IllegalStateException(
          "a binary64 partition has no binary32 values (gradient descent reads binary32 data)");
    }
  }

  private void requireBinary64() {
    if (x64 == null) {
      throw new IllegalStateException("a binary32 partition has no binary64 arrays");
    }
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
