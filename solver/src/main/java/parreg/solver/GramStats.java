package parreg.solver;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * Sufficient statistics of one participant (or of several, merged) for least squares of {@code y}
 * on {@code [x, 1]}, in the layout of {@link GramOrder} version {@value GramOrder#VERSION}: entry
 * {@code e} of the packed upper triangle of the {@code m = features + 2} columns {@code [x, y, 1]}
 * is the double-double {@code hi[e] + lo[e]}. The mass is the sample count (an unsigned 64-bit
 * integer). {@code dataBits} is 32 where features and labels were binary32 (the cheaper tile rule
 * of the order), else 64; it tells the solver which error bound the entries carry.
 *
 * <p>Primitive arrays, ints and a long only, so Kryo writes it with its record serializer. The
 * constructor takes the arrays over without copying them (a pass hands over what it built; at
 * {@code d = 4,096} they hold 134 MB); the accessors {@link #hi()} and {@link #lo()} return copies.
 */
public record GramStats(int features, int dataBits, long mass, double[] hi, double[] lo) {
  public GramStats {
    if (features < 0) {
      throw new IllegalArgumentException("features must be >= 0: " + features);
    }
    if (dataBits != 32 && dataBits != 64) {
      throw new IllegalArgumentException("dataBits must be 32 or 64: " + dataBits);
    }
    int e = GramOrder.entries(GramOrder.columns(features));
    if (hi.length != e || lo.length != e) {
      throw new IllegalArgumentException(
          "statistics of " + features + " features have " + e + " entries, not " + hi.length);
    }
  }

  @Override
  public double[] hi() {
    return hi.clone();
  }

  @Override
  public double[] lo() {
    return lo.clone();
  }

  /** Entries of the packed triangle. */
  public int entries() {
    return hi.length;
  }

  /** The high part of packed entry {@code e}. */
  public double hiAt(int e) {
    return hi[e];
  }

  /** The low part of packed entry {@code e}. */
  public double loAt(int e) {
    return lo[e];
  }

  /** Columns of the packed triangle: features, label, constant. */
  public int columns() {
    return GramOrder.columns(features);
  }

  /** The high part of entry {@code (j, k)} (either order). */
  public double hi(int j, int k) {
    return hi[GramOrder.index(Math.min(j, k), Math.max(j, k), columns())];
  }

  /** The low part of entry {@code (j, k)} (either order). */
  public double lo(int j, int k) {
    return lo[GramOrder.index(Math.min(j, k), Math.max(j, k), columns())];
  }

  /**
   * The statistics of the participants {@code parts[0], parts[1], ...} together, combined in that
   * order (participant-id order): entry by entry {@code ((S_0 + S_1) + S_2) + ...} in
   * double-double, masses summed. All parts must have the same features and data bits.
   */
  public static GramStats merge(GramStats... parts) {
    if (parts.length == 0) {
      throw new IllegalArgumentException("nothing to merge");
    }
    GramStats first = parts[0];
    double[] h = first.hi.clone();
    double[] l = first.lo.clone();
    long mass = first.mass;
    for (int p = 1; p < parts.length; p++) {
      GramStats s = parts[p];
      if (s.features != first.features || s.dataBits != first.dataBits) {
        throw new IllegalArgumentException(
            "participant "
                + p
                + " has "
                + s.features
                + " features of "
                + s.dataBits
                + " bits, participant 0 "
                + first.features
                + " of "
                + first.dataBits);
      }
      long sum = mass + s.mass;
      if (Long.compareUnsigned(sum, mass) < 0) {
        throw new ArithmeticException("the combined mass overflows 64 bits");
      }
      mass = sum;
      for (int e = 0; e < h.length; e++) {
        DoubleDouble.addTo(h, l, e, s.hi[e], s.lo[e]);
      }
    }
    return new GramStats(first.features, first.dataBits, mass, h, l);
  }

  /** Bitwise equality: what "recomputes to the same bits" means. */
  public boolean sameBits(GramStats o) {
    return features == o.features
        && dataBits == o.dataBits
        && mass == o.mass
        && sameBits(hi, o.hi)
        && sameBits(lo, o.lo);
  }

  private static boolean sameBits(double[] a, double[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GramStats s && sameBits(s);
  }

  @Override
  public int hashCode() {
    return (Arrays.hashCode(hi) * 31 + Arrays.hashCode(lo)) * 31 + Long.hashCode(mass);
  }

  @Override
  public String toString() {
    return "GramStats{d="
        + features
        + ", bits="
        + dataBits
        + ", n="
        + Long.toUnsignedString(mass)
        + ", hi="
        + hex(hi)
        + ", lo="
        + hex(lo)
        + "}";
  }

  private static String hex(double[] v) {
    StringJoiner j = new StringJoiner(",", "[", "]");
    for (double x : v) {
      j.add(String.format("0x%016x", Double.doubleToRawLongBits(x)));
    }
    return j.toString();
  }
}
