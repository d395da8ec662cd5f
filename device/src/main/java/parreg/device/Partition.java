package parreg.device;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One participant's data in binary32, stored feature-major: feature {@code j} of sample {@code i}
 * is {@code x[j * n + i]}. Feature-major puts consecutive samples of one feature next to each
 * other, which is what the lane order of {@link ReductionOrder} reads: coalesced on a GPU, unit
 * stride for SIMD on a CPU.
 *
 * <p>The digest hashes the canonical content (d, n, then every row's feature bits and y bits in
 * row order), so the same rows give the same digest whatever file format they came from.
 */
public final class Partition {
  private final int n;
  private final int d;
  private final float[] x;
  private final float[] y;
  private volatile String digest;

  /**
   * @param n samples (> 0)
   * @param d features (> 0)
   * @param x feature-major values, length n*d (not copied: the caller hands it over)
   * @param y targets, length n (not copied)
   */
  public Partition(int n, int d, float[] x, float[] y) {
    if (n <= 0) {
      throw new IllegalArgumentException("a partition needs at least one sample");
    }
    if (d <= 0) {
      throw new IllegalArgumentException("a partition needs at least one feature");
    }
    if ((long) n * d != x.length || y.length != n) {
      throw new IllegalArgumentException(
          "partition arrays do not match n=" + n + ", d=" + d + ": x=" + x.length + ", y=" + y.length);
    }
    this.n = n;
    this.d = d;
    this.x = x;
    this.y = y;
  }

  /** Builds a partition from rows ({@code rows[i][j]}) and targets. */
  public static Partition ofRows(float[][] rows, float[] y) {
    int n = rows.length;
    int d = n == 0 ? 0 : rows[0].length;
    float[] x = new float[n * d];
    for (int i = 0; i < n; i++) {
      if (rows[i].length != d) {
        throw new IllegalArgumentException("row " + i + " has " + rows[i].length + " features, expected " + d);
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

  public String digest() {
    String dg = digest;
    if (dg == null) {
      dg = computeDigest();
      digest = dg;
    }
    return dg;
  }

  public PartitionInfo info(int participant) {
    return new PartitionInfo(participant, digest(), n, d);
  }

  private String computeDigest() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      md.update("parreg-partition/v1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      byte[] buf = new byte[8192];
      int pos = 0;
      putInt(buf, 0, d);
      putInt(buf, 4, n);
      md.update(buf, 0, 8);
      for (int i = 0; i < n; i++) {
        for (int j = 0; j <= d; j++) {
          float v = j < d ? x[j * n + i] : y[i];
          if (pos + 4 > buf.length) {
            md.update(buf, 0, pos);
            pos = 0;
          }
          putInt(buf, pos, Float.floatToRawIntBits(v));
          pos += 4;
        }
      }
      md.update(buf, 0, pos);
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void putInt(byte[] b, int off, int v) {
    b[off] = (byte) v;
    b[off + 1] = (byte) (v >>> 8);
    b[off + 2] = (byte) (v >>> 16);
    b[off + 3] = (byte) (v >>> 24);
  }
}
