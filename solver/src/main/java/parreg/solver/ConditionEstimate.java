package parreg.solver;

/**
 * The 1-norm condition number {@code ||A||_1 ||A^-1||_1} of the factored (scaled) system, with
 * {@code ||A^-1||_1} estimated by Hager's method as refined by Higham (LAPACK {@code dlacn2}): at
 * most five pairs of solves with the factor, then Higham's alternating test vector; the estimate is
 * a lower bound, in practice within a factor of 3. Fixed operations, so every node reports the same
 * bits.
 */
final class ConditionEstimate {
  private ConditionEstimate() {}

  static double of(CholeskyFactor f, double norm1, int p) {
    if (p == 0) {
      return 1.0;
    }
    double[] xh = new double[p];
    double[] xl = new double[p];
    double[] yh = new double[p];
    double[] yl = new double[p];
    double[] sh = new double[p];
    double[] sl = new double[p];
    double[] zh = new double[p];
    double[] zl = new double[p];
    java.util.Arrays.fill(xh, 1.0 / p);
    double est = 0;
    int last = -1;
    for (int iter = 0; iter < 5; iter++) {
      f.solve(xh, xl, yh, yl);
      est = 0;
      for (int i = 0; i < p; i++) {
        est += Math.abs(yh[i]);
        sh[i] = yh[i] >= 0 ? 1.0 : -1.0;
      }
      f.solve(sh, sl, zh, zl); // A is symmetric: A^-T = A^-1
      int j = 0;
      double ztx = 0;
      for (int i = 0; i < p; i++) {
        if (Math.abs(zh[i]) > Math.abs(zh[j])) {
          j = i;
        }
        ztx += zh[i] * xh[i];
      }
      if (Math.abs(zh[j]) <= ztx || j == last) {
        break;
      }
      last = j;
      java.util.Arrays.fill(xh, 0.0);
      xh[j] = 1.0;
    }
    for (int i = 0; i < p; i++) {
      xh[i] = (i % 2 == 0 ? 1 : -1) * (1 + (double) i / Math.max(1, p - 1));
      xl[i] = 0.0;
    }
    f.solve(xh, xl, yh, yl);
    double alt = 0;
    for (int i = 0; i < p; i++) {
      alt += Math.abs(yh[i]);
    }
    est = Math.max(est, 2 * alt / (3 * p));
    return norm1 * est;
  }
}
