package parreg.solver;

/**
 * A pivoted Cholesky factor {@code A = P L L^T P^T} in double-double ({@link PivotedCholesky}
 * builds it): column {@code c} of {@code L} is {@code h[c][r] + l[c][r]} for rows {@code r >= c},
 * position {@code k} holds original column {@code perm[k]}. Triangular solves run in a fixed order
 * (forward column by column, backward as row dot products, t ascending), so their bits are fixed.
 */
final class CholeskyFactor {
  private final int p;
  private final double[][] h;
  private final double[][] l;
  private final int[] perm;

  CholeskyFactor(double[][] h, double[][] l, int[] perm) {
    this.p = h.length;
    this.h = h;
    this.l = l;
    this.perm = perm;
  }

  /** Solves {@code L^T x = y} in place over the leading {@code k} positions. */
  void backward(double[] yh, double[] yl, int k) {
    double[] out = new double[2];
    for (int c = k - 1; c >= 0; c--) {
      double sh = yh[c];
      double sl = yl[c];
      for (int t = c + 1; t < k; t++) {
        DoubleDouble.mul(h[c][t], l[c][t], yh[t], yl[t], out);
        DoubleDouble.add(sh, sl, -out[0], -out[1], out);
        sh = out[0];
        sl = out[1];
      }
      DoubleDouble.div(sh, sl, h[c][c], l[c][c], out);
      yh[c] = out[0];
      yl[c] = out[1];
    }
  }

  /** Solves {@code L y = b} in place over the leading {@code k} positions (column by column). */
  void forward(double[] bh, double[] bl, int k) {
    double[] out = new double[2];
    for (int c = 0; c < k; c++) {
      DoubleDouble.div(bh[c], bl[c], h[c][c], l[c][c], out);
      double yh = out[0];
      double yl = out[1];
      bh[c] = yh;
      bl[c] = yl;
      DdLanes.subtractScaled(bh, bl, c + 1, h[c], l[c], c + 1, k - c - 1, yh, yl);
    }
  }

  /**
   * Solves {@code A x = b} (original indexing) where the factorisation had full rank: {@code x = P
   * L^-T L^-1 P^T b}.
   */
  void solve(double[] bh, double[] bl, double[] xh, double[] xl) {
    double[] wh = new double[p];
    double[] wl = new double[p];
    for (int k = 0; k < p; k++) {
      wh[k] = bh[perm[k]];
      wl[k] = bl[perm[k]];
    }
    forward(wh, wl, p);
    backward(wh, wl, p);
    for (int k = 0; k < p; k++) {
      xh[perm[k]] = wh[k];
      xl[perm[k]] = wl[k];
    }
  }

  /** {@code |L^-1 P^T u|^2 = u^T A^-1 u}, for the intercept's variance. */
  void inverseForm(double[] uh, double[] ul, double[] out) {
    double[] wh = new double[p];
    double[] wl = new double[p];
    for (int k = 0; k < p; k++) {
      wh[k] = uh[perm[k]];
      wl[k] = ul[perm[k]];
    }
    forward(wh, wl, p);
    sumOfSquares(wh, wl, 0, out);
  }

  /**
   * The diagonal of {@code A^-1} (original indexing): squared column norms of {@code L^-1}, the
   * columns on up to {@code threads} threads.
   */
  double[][] inverseDiagonal(int threads) {
    double[] dh = new double[p];
    double[] dl = new double[p];
    Parallel.run( // columns are independent: each writes its own entry
        (long) p * p * p > (1 << 18) ? threads : 1,
        p,
        k -> {
          double[] eh = new double[p];
          double[] el = new double[p];
          double[] out = new double[2];
          eh[k] = 1.0;
          forwardFrom(eh, el, k);
          sumOfSquares(eh, el, k, out);
          dh[perm[k]] = out[0];
          dl[perm[k]] = out[1];
        });
    return new double[][] {dh, dl};
  }

  private void forwardFrom(double[] bh, double[] bl, int k0) {
    double[] out = new double[2];
    for (int c = k0; c < p; c++) {
      DoubleDouble.div(bh[c], bl[c], h[c][c], l[c][c], out);
      double yh = out[0];
      double yl = out[1];
      bh[c] = yh;
      bl[c] = yl;
      DdLanes.subtractScaled(bh, bl, c + 1, h[c], l[c], c + 1, p - c - 1, yh, yl);
    }
  }

  private static void sumOfSquares(double[] vh, double[] vl, int from, double[] out) {
    double sh = 0;
    double sl = 0;
    double[] sq = new double[2];
    for (int r = from; r < vh.length; r++) {
      DoubleDouble.mul(vh[r], vl[r], vh[r], vl[r], sq);
      DoubleDouble.add(sh, sl, sq[0], sq[1], sq);
      sh = sq[0];
      sl = sq[1];
    }
    out[0] = sh;
    out[1] = sl;
  }
}
