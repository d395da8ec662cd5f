package parreg.solver;

import java.util.ArrayList;
import java.util.List;

/**
 * Computes a {@link RegressionSummary} from a fit. The residual sum of squares is a difference of
 * large numbers, {@code RSS = C_yy - 2 w'c + w'Cw} (centred moments without the ridge term, the
 * double-double weights), evaluated in double-double and clamped at 0. Standard errors come from
 * the diagonal of the scaled inverse, {@code Var(w_j) = sigma^2 (A^-1)_jj / M_jj} and {@code Var(b)
 * = sigma^2 (1/n + u' A^-1 u)} with {@code u_j = mu_j / D_j}, {@code sigma^2 = RSS / df}.
 */
final class SummaryCalculator {
  private SummaryCalculator() {}

  static RegressionSummary of(LeastSquaresFit fit, List<String> names) {
    ScaledSystem sys = fit.system;
    int d = sys.d;
    boolean bias = sys.bias;
    int y = GramOrder.label(d);
    double[] out = new double[2];
    double[] c = new double[2];
    long observations = sys.stats.mass();
    int params = d + (bias ? 1 : 0);
    long df = observations - params;
    double n = sys.n;

    sys.centred(y, y, c);
    double tssH = c[0];
    double tssL = c[1];
    double rh = tssH;
    double rl = tssL;
    for (int j = 0; j < d; j++) {
      sys.centred(j, y, c);
      DoubleDouble.mul(fit.wh[j], fit.wl[j], c[0], c[1], out);
      DoubleDouble.add(rh, rl, -2 * out[0], -2 * out[1], out);
      rh = out[0];
      rl = out[1];
      double ih = 0;
      double il = 0;
      for (int k = 0; k < d; k++) {
        sys.centred(j, k, c);
        DoubleDouble.mul(c[0], c[1], fit.wh[k], fit.wl[k], out);
        DoubleDouble.add(ih, il, out[0], out[1], out);
        ih = out[0];
        il = out[1];
      }
      DoubleDouble.mul(fit.wh[j], fit.wl[j], ih, il, out);
      DoubleDouble.add(rh, rl, out[0], out[1], out);
      rh = out[0];
      rl = out[1];
    }
    if (rh < 0) {
      rh = 0;
      rl = 0;
    }
    double rss = rh;
    double tss = tssH;
    double r2 = Double.NaN;
    if (tssH > 0) {
      DoubleDouble.div(rh, rl, tssH, tssL, out);
      r2 = 1 - out[0];
    }
    double dfd = df > 0 ? (double) df : Double.NaN;
    double adj = 1 - (1 - r2) * (n - (bias ? 1 : 0)) / dfd;
    double sigma2H = Double.NaN;
    double sigma2L = 0;
    if (df > 0) {
      DoubleDouble.div(rh, rl, dfd, 0.0, out);
      sigma2H = out[0];
      sigma2L = out[1];
    }
    double residualSd = Math.sqrt(sigma2H);
    double rmse = Math.sqrt(rss / n);

    boolean se = df > 0 && fit.options.l2() == 0;
    double[][] inv = se ? fit.factor.inverseDiagonal(fit.threads) : null;
    List<RegressionSummary.Coefficient> coefs = new ArrayList<>();
    double[] params64 = fit.solution().parameters();
    for (int j = 0; j < d; j++) {
      double sd = Double.NaN;
      if (se) {
        DoubleDouble.div(inv[0][j], inv[1][j], sys.scaleH[j], sys.scaleL[j], out);
        DoubleDouble.div(out[0], out[1], sys.scaleH[j], sys.scaleL[j], out);
        sd = standardError(out, sigma2H, sigma2L);
      }
      coefs.add(coefficient(name(names, j), params64[j], sd, df));
    }
    if (bias) {
      double sd = Double.NaN;
      if (se) {
        double[] uh = new double[d];
        double[] ul = new double[d];
        for (int j = 0; j < d; j++) {
          DoubleDouble.div(sys.meanH[j], sys.meanL[j], sys.scaleH[j], sys.scaleL[j], out);
          uh[j] = out[0];
          ul[j] = out[1];
        }
        fit.factor.inverseForm(uh, ul, out);
        DoubleDouble.add(out[0], out[1], 1 / n, Math.fma(-(1 / n), n, 1.0) / n, out);
        sd = standardError(out, sigma2H, sigma2L);
      }
      coefs.add(coefficient(RegressionSummary.INTERCEPT, params64[d], sd, df));
    }
    return new RegressionSummary(
        fit.solution().solver(),
        GramOrder.VERSION,
        observations,
        params,
        df,
        bias,
        fit.options.l2(),
        coefs,
        rss,
        tss,
        r2,
        adj,
        residualSd,
        rmse,
        fit.solution().condition());
  }

  /** {@code sqrt(sigma^2 * v)} with {@code v} in {@code out}, in double-double. */
  private static double standardError(double[] out, double sigma2H, double sigma2L) {
    DoubleDouble.mul(out[0], out[1], sigma2H, sigma2L, out);
    DoubleDouble.sqrt(out[0], out[1], out);
    return out[0];
  }

  private static RegressionSummary.Coefficient coefficient(
      String name, double estimate, double se, long df) {
    double t = estimate / se;
    double p = df > 0 ? StudentT.twoSidedP(t, df) : Double.NaN;
    return new RegressionSummary.Coefficient(name, estimate, se, t, p);
  }

  private static String name(List<String> names, int j) {
    return names != null && j < names.size() ? names.get(j) : "x" + j;
  }
}
