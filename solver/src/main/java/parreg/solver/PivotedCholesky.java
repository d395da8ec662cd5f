package parreg.solver;

import java.util.ArrayList;
import java.util.List;

/**
 * Cholesky factorisation with diagonal pivoting of a symmetric positive semi-definite matrix with
 * unit diagonal, in double-double, in place, as LAPACK's {@code dpstf2} orders it.
 *
 * <p>Storage is column-major: {@code h[c][r] + l[c][r]} is entry {@code (r, c)}; the matrix is
 * given full (both triangles). Step {@code j}: every remaining column whose Schur-complement
 * diagonal {@code work_i} is below its tolerance {@code tau_i} is set aside (it is, up to the
 * statistics' rounding, a combination of the columns chosen so far); the remaining column with the
 * largest {@code work_i} (ties: the smaller original index) is swapped to position {@code j}; then
 * {@code L_jj = sqrt(work_j)}, and for every remaining row {@code i > j}: {@code s = A_ij - sum_{t
 * < j} L_it L_jt} (t ascending, double-double), {@code L_ij = s / L_jj}, {@code work_i = work_i -
 * L_ij^2}. Rows are independent, so they are split among threads without changing a bit.
 */
final class PivotedCholesky {
  private final int p;
  private final double[][] h;
  private final double[][] l;
  private final double[] workH;
  private final double[] workL;
  private final double[] tau;
  private final int[] perm;
  private final List<RankDeficientException.Collinear> rejected = new ArrayList<>();
  private int rank;

  private PivotedCholesky(double[][] h, double[][] l, double[] tau) {
    this.p = h.length;
    this.h = h;
    this.l = l;
    this.tau = tau.clone();
    this.workH = new double[p];
    this.workL = new double[p];
    this.perm = new int[p];
    for (int i = 0; i < p; i++) {
      workH[i] = h[i][i];
      workL[i] = l[i][i];
      perm[i] = i;
    }
  }

  /** Factors {@code (h, l)} (overwritten) with the columns' tolerances {@code tau}. */
  static PivotedCholesky factor(double[][] h, double[][] l, double[] tau, int threads) {
    PivotedCholesky f = new PivotedCholesky(h, l, tau);
    f.run(threads);
    return f;
  }

  private void run(int threads) {
    int active = p;
    int j = 0;
    double[] out = new double[2];
    while (j < active) {
      for (int i = j; i < active; i++) {
        if (!(workH[i] >= tau[i])) {
          rejected.add(dependence(i, j));
          swap(i, active - 1);
          active--;
          i--;
        }
      }
      if (j >= active) {
        break;
      }
      int q = j;
      for (int i = j + 1; i < active; i++) {
        if (workH[i] > workH[q] || (workH[i] == workH[q] && perm[i] < perm[q])) {
          q = i;
        }
      }
      swap(j, q);
      DoubleDouble.sqrt(workH[j], workL[j], out);
      h[j][j] = out[0];
      l[j][j] = out[1];
      int col = j;
      int end = active;
      int rows = end - (j + 1);
      int chunk = 64;
      int chunks = (rows + chunk - 1) / chunk;
      int use = (long) rows * j > (1 << 14) ? threads : 1;
      Parallel.run(
          use,
          chunks,
          c -> column(col, col + 1 + c * chunk, Math.min(end, col + 1 + (c + 1) * chunk)));
      j++;
    }
    rank = j;
  }

  /** Rows {@code [r0, r1)} of column {@code j}, and their Schur diagonals. */
  private void column(int j, int r0, int r1) {
    int len = r1 - r0;
    double[] sh = new double[len];
    double[] sl = new double[len];
    System.arraycopy(h[j], r0, sh, 0, len);
    System.arraycopy(l[j], r0, sl, 0, len);
    double[] out = new double[2];
    for (int t = 0; t < j; t++) {
      double[] ch = h[t];
      double[] cl = l[t];
      double bh = ch[j];
      double bl = cl[j];
      for (int r = 0; r < len; r++) {
        DoubleDouble.mul(ch[r0 + r], cl[r0 + r], bh, bl, out);
        DoubleDouble.add(sh[r], sl[r], -out[0], -out[1], out);
        sh[r] = out[0];
        sl[r] = out[1];
      }
    }
    double dh = h[j][j];
    double dl = l[j][j];
    for (int r = 0; r < len; r++) {
      DoubleDouble.div(sh[r], sl[r], dh, dl, out);
      double lh = out[0];
      double ll = out[1];
      h[j][r0 + r] = lh;
      l[j][r0 + r] = ll;
      DoubleDouble.mul(lh, ll, lh, ll, out);
      DoubleDouble.add(workH[r0 + r], workL[r0 + r], -out[0], -out[1], out);
      workH[r0 + r] = out[0];
      workL[r0 + r] = out[1];
    }
  }

  /** Swaps positions a and b: rows and columns, Schur diagonals, tolerances, original indices. */
  private void swap(int a, int b) {
    if (a == b) {
      return;
    }
    double[] t = h[a];
    h[a] = h[b];
    h[b] = t;
    t = l[a];
    l[a] = l[b];
    l[b] = t;
    for (int c = 0; c < p; c++) {
      swap(h[c], a, b);
      swap(l[c], a, b);
    }
    swap(workH, a, b);
    swap(workL, a, b);
    swap(tau, a, b);
    int s = perm[a];
    perm[a] = perm[b];
    perm[b] = s;
  }

  private static void swap(double[] v, int a, int b) {
    double t = v[a];
    v[a] = v[b];
    v[b] = t;
  }

  /**
   * The column at position {@code i}, set aside at step {@code k}: the chosen columns it depends
   * on, from {@code c = L11^-T l_i} (its least-squares coefficients on them, scaled units), those
   * with {@code |c_t| > 2^-20 max |c|}.
   */
  private RankDeficientException.Collinear dependence(int i, int k) {
    double[] ch = new double[k];
    double[] cl = new double[k];
    for (int t = 0; t < k; t++) {
      ch[t] = h[t][i];
      cl[t] = l[t][i];
    }
    backward(ch, cl, k);
    double max = 0;
    for (int t = 0; t < k; t++) {
      max = Math.max(max, Math.abs(ch[t]));
    }
    List<Integer> on = new ArrayList<>();
    for (int t = 0; t < k; t++) {
      if (Math.abs(ch[t]) > 0x1p-20 * max) {
        on.add(perm[t]);
      }
    }
    int[] cols = on.stream().mapToInt(Integer::intValue).sorted().toArray();
    return new RankDeficientException.Collinear(perm[i], cols, Math.max(0, workH[i]));
  }

  /** Solves {@code L^T x = y} in place over the leading {@code k} positions. */
  private void backward(double[] yh, double[] yl, int k) {
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
  private void forward(double[] bh, double[] bl, int k) {
    double[] out = new double[2];
    for (int c = 0; c < k; c++) {
      DoubleDouble.div(bh[c], bl[c], h[c][c], l[c][c], out);
      double yh = out[0];
      double yl = out[1];
      bh[c] = yh;
      bl[c] = yl;
      for (int r = c + 1; r < k; r++) {
        DoubleDouble.mul(h[c][r], l[c][r], yh, yl, out);
        DoubleDouble.add(bh[r], bl[r], -out[0], -out[1], out);
        bh[r] = out[0];
        bl[r] = out[1];
      }
    }
  }

  List<RankDeficientException.Collinear> rejected() {
    return rejected;
  }

  int rank() {
    return rank;
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

  /** The diagonal of {@code A^-1} (original indexing): squared column norms of {@code L^-1}. */
  double[][] inverseDiagonal() {
    double[] dh = new double[p];
    double[] dl = new double[p];
    double[] out = new double[2];
    for (int k = 0; k < p; k++) {
      double[] eh = new double[p];
      double[] el = new double[p];
      eh[k] = 1.0;
      forwardFrom(eh, el, k);
      sumOfSquares(eh, el, k, out);
      dh[perm[k]] = out[0];
      dl[perm[k]] = out[1];
    }
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
      for (int r = c + 1; r < p; r++) {
        DoubleDouble.mul(h[c][r], l[c][r], yh, yl, out);
        DoubleDouble.add(bh[r], bl[r], -out[0], -out[1], out);
        bh[r] = out[0];
        bl[r] = out[1];
      }
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
