package parreg.device.data;

/**
 * Decimal text to binary: the one place where a CSV cell becomes a number, binary32 ({@link
 * #toFloat}) or binary64 ({@link #toDouble}, data of precision f64), each correctly rounded from
 * the decimal text (never binary32 through binary64: that double rounding can differ).
 *
 * <p>The accepted grammar is {@code [+-]digits[.digits][(e|E)[+-]digits]}, also {@code .5} and
 * {@code 5.}: no hexadecimal, no type suffix ({@code 1f}, {@code 1d}), no {@code NaN} or {@code
 * Infinity}, no spaces (the caller trims them).
 */
public final class Decimals {
  private Decimals() {}

  private static final double[] POW10 = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22
  };

  /** As {@link #toFloat(char[], int, int)}, on {@code s[from, to)}. */
  public static float toFloat(String s, int from, int to) {
    char[] c = new char[to - from];
    s.getChars(from, to, c, 0);
    return toFloat(c, 0, c.length);
  }

  /**
   * The decimal text {@code s[from, to)} correctly rounded to binary32 (round to nearest, ties to
   * even, as {@link Float#parseFloat}), or NaN if it is not a decimal number of the accepted
   * grammar. Infinite when it rounds to infinity.
   *
   * <p>Fast path (Clinger): with at most 15 significant digits {@code M} and a decimal exponent
   * {@code |e| <= 22}, {@code M} and {@code 10^|e|} are exact binary64 values, so one binary64
   * multiplication or division gives {@code D = RN64(v)}, correctly rounded. Rounding {@code D} on
   * to binary32 gives {@code RN32(v)} unless {@code D} lies exactly on a binary32 midpoint: every
   * binary32 midpoint is a binary64 value, and rounding to binary64 is monotonic, so {@code D} is
   * on the same side of each midpoint as {@code v} unless it is the midpoint itself. Those cases,
   * and all others, go to {@link Float#parseFloat}, which rounds correctly. The range of the fast
   * path ({@code 1e-22 .. 9e37}) has no binary32 subnormals and no overflow.
   */
  public static float toFloat(char[] s, int from, int to) {
    return (float) parse(s, from, to, false);
  }

  /** As {@link #toDouble(char[], int, int)}, on {@code s[from, to)}. */
  public static double toDouble(String s, int from, int to) {
    char[] c = new char[to - from];
    s.getChars(from, to, c, 0);
    return toDouble(c, 0, c.length);
  }

  /**
   * The decimal text {@code s[from, to)} correctly rounded to binary64 (as {@link
   * Double#parseDouble}, of the grammar above only), or NaN if it is not a decimal number of the
   * accepted grammar; infinite when it rounds to infinity. Fast path (Clinger): at most 15
   * significant digits and {@code |e| <= 22} take one correctly rounded binary64 multiplication or
   * division of exact operands; the rest go to {@link Double#parseDouble}.
   */
  public static double toDouble(char[] s, int from, int to) {
    return parse(s, from, to, true);
  }

  /** The text's value rounded to binary64 ({@code wide}) or binary32 (returned widened), or NaN. */
  private static double parse(char[] s, int from, int to, boolean wide) {
    int i = from;
    boolean neg = false;
    if (i < to && (s[i] == '+' || s[i] == '-')) {
      neg = s[i] == '-';
      i++;
    }
    long m = 0;
    int exp10 = 0;
    int digits = 0;
    boolean exact = true;
    final long limit = 100_000_000_000_000L; // m < 1e14 before *10 + 9 keeps m < 1e15 < 2^53
    char c;
    while (i < to && (c = s[i]) >= '0' && c <= '9') {
      if (m < limit) {
        m = m * 10 + (c - '0');
      } else {
        exact = false;
      }
      digits++;
      i++;
    }
    if (i < to && s[i] == '.') {
      i++;
      while (i < to && (c = s[i]) >= '0' && c <= '9') {
        if (m < limit) {
          m = m * 10 + (c - '0');
          exp10--;
        } else {
          exact = false;
        }
        digits++;
        i++;
      }
    }
    if (digits == 0) {
      return Double.NaN;
    }
    if (i < to && (s[i] == 'e' || s[i] == 'E')) {
      i++;
      boolean eneg = false;
      if (i < to && (s[i] == '+' || s[i] == '-')) {
        eneg = s[i] == '-';
        i++;
      }
      int e = 0;
      int ed = 0;
      while (i < to && (c = s[i]) >= '0' && c <= '9') {
        if (e < 100_000) {
          e = e * 10 + (c - '0');
        }
        ed++;
        i++;
      }
      if (ed == 0) {
        return Double.NaN;
      }
      exp10 += eneg ? -e : e;
    }
    if (i != to) {
      return Double.NaN;
    }
    if (exact) {
      if (m == 0) {
        return neg ? -0.0 : 0.0;
      }
      if (exp10 >= -22 && exp10 <= 22) {
        double dv = exp10 >= 0 ? (double) m * POW10[exp10] : (double) m / POW10[-exp10];
        if (wide) {
          return neg ? -dv : dv;
        }
        long bits = Double.doubleToRawLongBits(dv);
        if ((bits & ((1L << 29) - 1)) != (1L << 28)) {
          float f = (float) dv;
          return neg ? -f : f;
        }
      }
    }
    String text = new String(s, from, to - from);
    return wide ? Double.parseDouble(text) : Float.parseFloat(text);
  }
}
