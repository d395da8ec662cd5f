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
      DdLanes.subtractScaled(sh, sl, 0, h[t], l[t], r0, len, h[t][j], l[t][j]);
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
    factor().backward(ch, cl, k);
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

  List<RankDeficientException.Collinear> rejected() {
    return rejected;
  }

  /** The factor (meaningful for solving where nothing was rejected). */
  CholeskyFactor factor() {
    return new CholeskyFactor(h, l, perm);
  }
}
