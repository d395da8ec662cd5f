package parreg.solver;

/**
 * The normal equations built from the statistics, centred and scaled, in double-double.
 *
 * <p>With an intercept, the means are {@code mu_c = S_{c,1} / n} and the centred cross-products
 * {@code C_jk = S_jk - S_{j,1} mu_k} (features and label); without, {@code C} is the raw {@code S}
 * and the regression goes through the origin. The ridge term makes {@code M = C + n l2 I} on the
 * features. The system is scaled to unit diagonal, {@code A = D^-1 M D^-1} with {@code D_j =
 * sqrt(M_jj)}, {@code b = D^-1 C_xy}; its solution {@code z} gives {@code w = D^-1 z}. Jacobi
 * scaling is within a factor {@code d} of the best diagonal scaling for Cholesky (van der Sluis).
 *
 * <p>Each column gets a pivot tolerance in units of its scaled diagonal: {@code tau_j = 2^10 eps
 * (S_jj + n l2) / M_jj}, where {@code eps} bounds the statistics' relative rounding error ({@link
 * #EPS_BINARY32}, {@link #EPS_BINARY64}) and the ratio is the loss of relative accuracy in
 * centring. A column whose centred square sum is at the level of that noise ({@code tau_j >= 1}) is
 * constant; its row and column of {@code A} are left zero.
 */
final class ScaledSystem {
  /**
   * Bound on the error of a binary32-rule entry relative to {@code sum_i |z_j z_k|}: {@code (T - 1)
   * u / (1 - (T - 1) u)} in the tile plus {@code 3.01 u^2} per tree level and merge, below {@code
   * 2^-45} ({@code u = 2^-53}, {@code T = 256}; docs/SOLVER.md).
   */
  static final double EPS_BINARY32 = 0x1p-45;

  /**
   * Of a binary64-rule entry: {@code 3.01 u^2} per double-double addition, {@code T - 1} in the
   * tile, one per tree level and per merged participant: below {@code 2^-96} while tree levels plus
   * participants stay under 40 (beyond, the tolerance's margin over the bound shrinks below {@code
   * 2^10}).
   */
  static final double EPS_BINARY64 = 0x1p-96;

  /** Safety factor of the pivot tolerance over the statistics' error bound. */
  static final double TOLERANCE_FACTOR = 0x1p10;

  final GramStats stats;
  final int d;
  final boolean bias;
  final double n;
  final double[] meanH;
  final double[] meanL;
  final double[] scaleH;
  final double[] scaleL;
  final double[] tau;
  final double[][] aH;
  final double[][] aL;
  final double[] bH;
  final double[] bL;

  ScaledSystem(GramStats stats, SolverOptions options) {
    this.stats = stats;
    this.d = stats.features();
    this.bias = options.bias();
    this.n = (double) stats.mass();
    int y = GramOrder.label(d);
    int one = GramOrder.one(d);
    double[] out = new double[2];
    meanH = new double[d + 1];
    meanL = new double[d + 1];
    if (bias) {
      for (int c = 0; c <= d; c++) {
        DoubleDouble.div(stats.hi(c, one), stats.lo(c, one), n, 0.0, out);
        meanH[c] = out[0];
        meanL[c] = out[1];
      }
    }
    double ridgeH = n * options.l2();
    double ridgeL = DoubleDouble.twoProdErr(n, options.l2(), ridgeH);
    double eps = stats.dataBits() == 32 ? EPS_BINARY32 : EPS_BINARY64;
    scaleH = new double[d];
    scaleL = new double[d];
    tau = new double[d];
    for (int j = 0; j < d; j++) {
      centred(j, j, out);
      DoubleDouble.add(out[0], out[1], ridgeH, ridgeL, out);
      double mjj = out[0];
      double raw = stats.hi(j, j) + ridgeH;
      if (mjj > 0 && raw / mjj < 1 / (TOLERANCE_FACTOR * eps)) {
        tau[j] = TOLERANCE_FACTOR * eps * (raw / mjj);
        DoubleDouble.sqrt(out[0], out[1], out);
        scaleH[j] = out[0];
        scaleL[j] = out[1];
      } else {
        tau[j] = Double.POSITIVE_INFINITY;
      }
    }
    aH = new double[d][d];
    aL = new double[d][d];
    bH = new double[d];
    bL = new double[d];
    for (int k = 0; k < d; k++) {
      if (scaleH[k] == 0) {
        aH[k][k] = 1.0; // a constant column: rejected by its tolerance before it is used
        continue;
      }
      for (int j = k; j < d; j++) {
        if (scaleH[j] == 0) {
          continue;
        }
        if (j == k) {
          aH[k][k] = 1.0;
          continue;
        }
        centred(j, k, out);
        DoubleDouble.div(out[0], out[1], scaleH[j], scaleL[j], out);
        DoubleDouble.div(out[0], out[1], scaleH[k], scaleL[k], out);
        aH[k][j] = out[0];
        aL[k][j] = out[1];
        aH[j][k] = out[0];
        aL[j][k] = out[1];
      }
      centred(k, y, out);
      DoubleDouble.div(out[0], out[1], scaleH[k], scaleL[k], out);
      bH[k] = out[0];
      bL[k] = out[1];
    }
  }

  /**
   * {@code C_jk} for features or the label ({@code j, k <= d}): {@code S_jk - S_{j,1} mu_k} with an
   * intercept, {@code S_jk} without. No ridge.
   */
  void centred(int j, int k, double[] out) {
    double h = stats.hi(j, k);
    double l = stats.lo(j, k);
    if (!bias) {
      out[0] = h;
      out[1] = l;
      return;
    }
    int one = GramOrder.one(d);
    DoubleDouble.mul(stats.hi(j, one), stats.lo(j, one), meanH[k], meanL[k], out);
    DoubleDouble.add(h, l, -out[0], -out[1], out);
  }

  /**
   * The 1-norm of the scaled matrix (its largest column sum of magnitudes), from the high parts.
   */
  double norm1() {
    double best = 0;
    for (int k = 0; k < d; k++) {
      double s = 0;
      for (int j = 0; j < d; j++) {
        s += Math.abs(aH[k][j]);
      }
      best = Math.max(best, s);
    }
    return best;
  }
}
