package parreg.solver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The training summary against rational arithmetic, and the p-values against exact values. */
class RegressionSummaryTest {
  @Test
  void pValuesMatchExactValues() {
    // I_x(df/2, 1/2) at x = df / (df + t^2), by mpmath 1.3.0 at 40 digits
    double[][] cases = {
      {2.0, 10, 0.073388034770740366},
      {0.5, 3, 0.65144796484815099},
      {10.0, 1, 0.063451034861107139},
      {3.5, 71, 0.00080802891816276951},
      {0.0, 5, 1.0},
      {-2.5, 15, 0.024505803246513845},
      {40.0, 30, 1.3726045194406403e-27},
      {1.2, 2.5, 0.33143883766587756},
      {2.2, 1e4, 0.027829686326735081},
      {6.0, 1e5, 1.9799294556017626e-9},
      {1.96, 1e6, 0.049996067585269791}
    };
    for (double[] c : cases) {
      double p = StudentT.twoSidedP(c[0], c[1]);
      double tol = c[1] <= 1e4 ? 1e-12 : 1e-10;
      assertEquals(c[2], p, tol * c[2], "t=" + c[0] + " df=" + c[1]);
    }
    assertTrue(Double.isNaN(StudentT.twoSidedP(1, 0)));
    assertEquals(0.0, StudentT.twoSidedP(Double.POSITIVE_INFINITY, 4));
  }

  @Test
  void summaryMatchesRationalArithmetic() {
    SplittableRandom r = new SplittableRandom(21);
    int n = 60;
    int d = 3;
    double[][] p = ExactSolverTest.problem(r, n, d, true);
    ColumnData data = ColumnData.of(p[0], p[1], n, d);
    LeastSquaresFit fit =
        new ExactSolver().fit(GramPass.compute(data, 2), SolverOptions.withBias());
    RegressionSummary s = fit.summary(List.of("a", "b", "c"));
    Rational[] w = RationalLeastSquares.solve(data, true, 0);
    // exact residuals, RSS, TSS of the exact solution
    Rational rss = Rational.ZERO;
    Rational my = Rational.ZERO;
    for (int i = 0; i < n; i++) {
      my = my.add(Rational.of(p[1][i]));
    }
    my = my.div(Rational.of(n));
    Rational tss = Rational.ZERO;
    for (int i = 0; i < n; i++) {
      Rational e = Rational.of(p[1][i]).sub(w[d]);
      for (int j = 0; j < d; j++) {
        e = e.sub(w[j].mul(Rational.of(p[0][j * n + i])));
      }
      rss = rss.add(e.mul(e));
      Rational t = Rational.of(p[1][i]).sub(my);
      tss = tss.add(t.mul(t));
    }
    assertEquals(rss.toDouble(), s.residualSumOfSquares(), 1e-14 * rss.toDouble());
    assertEquals(tss.toDouble(), s.totalSumOfSquares(), 1e-15 * tss.toDouble());
    double r2 = 1 - rss.div(tss).toDouble();
    assertEquals(r2, s.rSquared(), 1e-15);
    assertEquals(1 - (1 - r2) * (n - 1) / (n - d - 1), s.adjustedRSquared(), 1e-14);
    assertEquals(n - d - 1, s.residualDf());
    double sigma2 = rss.toDouble() / (n - d - 1);
    assertEquals(Math.sqrt(sigma2), s.residualStdDev(), 1e-14 * Math.sqrt(sigma2));
    assertEquals(Math.sqrt(rss.toDouble() / n), s.rmse(), 1e-14 * s.rmse());
    // standard errors: sigma^2 (C^-1)_jj for the weights, sigma^2 (1/n + m' C^-1 m) for the bias
    Rational[][] inv = centredInverse(data);
    Rational[] mean = new Rational[d];
    for (int j = 0; j < d; j++) {
      Rational m = Rational.ZERO;
      for (int i = 0; i < n; i++) {
        m = m.add(Rational.of(p[0][j * n + i]));
      }
      mean[j] = m.div(Rational.of(n));
    }
    Rational quad = Rational.ONE.div(Rational.of(n));
    for (int j = 0; j < d; j++) {
      for (int k = 0; k < d; k++) {
        quad = quad.add(mean[j].mul(inv[j][k]).mul(mean[k]));
      }
    }
    for (int j = 0; j <= d; j++) {
      RegressionSummary.Coefficient c = s.coefficients().get(j);
      double v = j < d ? inv[j][j].toDouble() : quad.toDouble();
      double se = Math.sqrt(sigma2 * v);
      assertEquals(se, c.stdError(), 1e-13 * se, "se " + j);
      assertEquals(c.estimate() / c.stdError(), c.t());
      assertEquals(StudentT.twoSidedP(c.t(), n - d - 1), c.p());
    }
    assertEquals("c", s.coefficients().get(2).name());
    assertEquals(RegressionSummary.INTERCEPT, s.coefficients().get(d).name());
    assertEquals(ExactSolver.NAME, s.solver());
    assertEquals(GramOrder.VERSION, s.order());
  }

  private static Rational[][] centredInverse(ColumnData data) {
    int n = data.samples();
    int d = data.features();
    Rational[] mean = new Rational[d];
    for (int j = 0; j < d; j++) {
      Rational m = Rational.ZERO;
      for (int i = 0; i < n; i++) {
        m = m.add(Rational.of(data.value(j, i)));
      }
      mean[j] = m.div(Rational.of(n));
    }
    Rational[][] c = new Rational[d][d];
    for (int j = 0; j < d; j++) {
      for (int k = 0; k < d; k++) {
        Rational s = Rational.ZERO;
        for (int i = 0; i < n; i++) {
          s =
              s.add(
                  Rational.of(data.value(j, i))
                      .sub(mean[j])
                      .mul(Rational.of(data.value(k, i)).sub(mean[k])));
        }
        c[j][k] = s;
      }
    }
    Rational[][] inv = new Rational[d][d];
    for (int col = 0; col < d; col++) {
      Rational[][] a = new Rational[d][d + 1];
      for (int j = 0; j < d; j++) {
        System.arraycopy(c[j], 0, a[j], 0, d);
        a[j][d] = j == col ? Rational.ONE : Rational.ZERO;
      }
      Rational[] x = RationalLeastSquares.gauss(a, d);
      for (int j = 0; j < d; j++) {
        inv[j][col] = x[j];
      }
    }
    return inv;
  }

  @Test
  void ridgeAndNoResidualDegreesOfFreedomReportNaN() {
    SplittableRandom r = new SplittableRandom(22);
    double[][] p = ExactSolverTest.problem(r, 40, 2, false);
    GramStats stats = GramPass.compute(ColumnData.of(p[0], p[1], 40, 2), 1);
    RegressionSummary ridge =
        new ExactSolver().fit(stats, new SolverOptions(true, 0.1)).summary(null);
    assertTrue(Double.isNaN(ridge.coefficients().get(0).stdError()));
    assertTrue(ridge.rSquared() > 0 && ridge.rSquared() < 1);
    double[] x = {1, 2, 3};
    double[] y = {2, 5, 4};
    GramStats exact = GramPass.compute(ColumnData.of(x, y, 3, 1), 1);
    RegressionSummary none =
        new ExactSolver().fit(exact, new SolverOptions(false, 0)).summary(null);
    assertEquals(2, none.residualDf());
    assertTrue(none.coefficients().get(0).p() > 0);
    double[] x2 = {1, 2};
    double[] y2 = {2, 5};
    RegressionSummary fitted =
        new ExactSolver()
            .fit(GramPass.compute(ColumnData.of(x2, y2, 2, 1), 1), SolverOptions.withBias())
            .summary(null);
    assertEquals(0, fitted.residualDf());
    assertTrue(Double.isNaN(fitted.residualStdDev()));
    assertTrue(Double.isNaN(fitted.coefficients().get(0).p()));
    assertEquals(3.0, fitted.coefficients().get(0).estimate(), 1e-15);
  }

  @Test
  void theSummaryIsPlainJson() throws Exception {
    SplittableRandom r = new SplittableRandom(23);
    double[][] p = ExactSolverTest.problem(r, 50, 2, true);
    RegressionSummary s =
        new ExactSolver()
            .fit(GramPass.compute(ColumnData.of(p[0], p[1], 50, 2), 1), SolverOptions.withBias())
            .summary(List.of("u", "v"));
    ObjectMapper json = new ObjectMapper();
    JsonNode tree = json.readTree(json.writeValueAsString(s));
    assertEquals(ExactSolver.NAME, tree.get("solver").asText());
    assertEquals("v", tree.get("coefficients").get(1).get("name").asText());
    assertEquals(s.rSquared(), tree.get("rSquared").asDouble());
    assertEquals(3, tree.get("coefficients").size());
  }
}
