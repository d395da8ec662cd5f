package parreg.solver;

/**
 * Double-double ("double-word") arithmetic: a value is an unevaluated sum {@code hi + lo} of two
 * binary64 numbers with {@code |lo| <= ulp(hi)/2}, about 106 significant bits. Every operation is a
 * fixed sequence of IEEE binary64 operations rounded to nearest ({@link Math#fma} is the IEEE fused
 * multiply-add, one rounding), so a CUDA kernel that writes the same sequence ({@code __dadd_rn},
 * {@code __fma_rn}, no contraction) gets the same bits.
 *
 * <p>The algorithms and their relative error bounds ({@code u = 2^-53}) are those of Joldes, Muller
 * and Popescu, "Tight and rigorous error bounds for basic building blocks of double-word
 * arithmetic", ACM TOMS 44 (2017): {@link #add} is their AccurateDWPlusDW ({@code 3u^2 + 13u^3}),
 * {@link #mul} DWTimesDW with FMA ({@code 5u^2}), {@link #div} DWDivDW ({@code 15u^2 + 56u^3}).
 *
 * <p>A result is written to {@code out[0]} (hi) and {@code out[1]} (lo); {@code out} may be one of
 * the operands' arrays only where the method says so. Methods that return a double return hi and
 * put nothing anywhere.
 */
final class DoubleDouble {
  private DoubleDouble() {}

  /** The exact error of {@code s = a + b} (Knuth's TwoSum; no condition on a, b). */
  static double twoSumErr(double a, double b, double s) {
    double bb = s - a;
    return (a - (s - bb)) + (b - bb);
  }

  /**
   * The exact error of {@code s = a + b} where {@code |a| >= |b|} or a is 0 (Dekker's Fast2Sum).
   */
  static double fastTwoSumErr(double a, double b, double s) {
    return b - (s - a);
  }

  /** The exact error of {@code p = a * b} (TwoProd with FMA), barring underflow. */
  static double twoProdErr(double a, double b, double p) {
    return Math.fma(a, b, -p);
  }

  /** {@code (zh, zl) = (xh, xl) + (yh, yl)}: AccurateDWPlusDW. */
  static void add(double xh, double xl, double yh, double yl, double[] out) {
    double sh = xh + yh;
    double sl = twoSumErr(xh, yh, sh);
    double th = xl + yl;
    double tl = twoSumErr(xl, yl, th);
    double c = sl + th;
    double vh = sh + c;
    double vl = fastTwoSumErr(sh, c, vh);
    double w = tl + vl;
    double zh = vh + w;
    out[0] = zh;
    out[1] = fastTwoSumErr(vh, w, zh);
  }

  /** {@code (hi[i], lo[i]) += (yh, yl)} in place: {@link #add}. */
  static void addTo(double[] hi, double[] lo, int i, double yh, double yl) {
    double xh = hi[i];
    double xl = lo[i];
    double sh = xh + yh;
    double sl = twoSumErr(xh, yh, sh);
    double th = xl + yl;
    double tl = twoSumErr(xl, yl, th);
    double c = sl + th;
    double vh = sh + c;
    double vl = fastTwoSumErr(sh, c, vh);
    double w = tl + vl;
    double zh = vh + w;
    hi[i] = zh;
    lo[i] = fastTwoSumErr(vh, w, zh);
  }

  /** {@code (xh, xl) * (yh, yl)}: DWTimesDW with FMA (Joldes et al., Algorithm 12). */
  static void mul(double xh, double xl, double yh, double yl, double[] out) {
    double ch = xh * yh;
    double cl1 = twoProdErr(xh, yh, ch);
    double tl0 = xl * yl;
    double tl1 = Math.fma(xh, yl, tl0);
    double cl2 = Math.fma(xl, yh, tl1);
    double cl3 = cl1 + cl2;
    double zh = ch + cl3;
    out[0] = zh;
    out[1] = fastTwoSumErr(ch, cl3, zh);
  }

  /** {@code (xh, xl) / (yh, yl)}: DWDivDW (Joldes et al., Algorithm 17). */
  static void div(double xh, double xl, double yh, double yl, double[] out) {
    double th = xh / yh;
    // (rh, rl) = (yh, yl) * th, DWTimesFP (Algorithm 9)
    double ph = yh * th;
    double pl1 = twoProdErr(yh, th, ph);
    double pl3 = Math.fma(yl, th, pl1);
    double rh = ph + pl3;
    double rl = fastTwoSumErr(ph, pl3, rh);
    double pih = xh - rh;
    double dl = xl - rl;
    double delta = pih + dl;
    double tl = delta / yh;
    double zh = th + tl;
    out[0] = zh;
    out[1] = fastTwoSumErr(th, tl, zh);
  }

  /**
   * {@code sqrt(xh, xl)} for {@code xh > 0}: one Newton step on the binary64 square root {@code s},
   * {@code s + (x - s^2) / (2s)} with {@code s^2} exact by TwoProd; relative error about {@code
   * 4u^2}. Returns (0, 0) for {@code xh <= 0}.
   */
  static void sqrt(double xh, double xl, double[] out) {
    if (!(xh > 0)) {
      out[0] = 0.0;
      out[1] = 0.0;
      return;
    }
    double s = Math.sqrt(xh);
    double p = s * s;
    double pe = twoProdErr(s, s, p);
    double r = ((xh - p) - pe) + xl;
    double t = r / (2.0 * s);
    double zh = s + t;
    out[0] = zh;
    out[1] = fastTwoSumErr(s, t, zh);
  }
}
