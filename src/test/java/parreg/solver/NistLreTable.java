package parreg.solver;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The NIST StRD linear least-squares table: per dataset, the smallest log relative error (LRE) of
 * the solver's coefficients, of their standard deviations, of the residual standard deviation and
 * of R-squared against NIST's certified values; the same smallest coefficient LRE for the exact
 * (rational) least-squares solution of the binary64 design, which is what binary64 data allow; the
 * digits to which the solver agrees with that exact solution; and the condition estimate.
 *
 * <p>Run: {@code java -cp target/classes:target/test-classes parreg.solver.NistLreTable}.
 */
public final class NistLreTable {
  private NistLreTable() {}

  /** One dataset's row. */
  record Row(
      String name,
      int n,
      int params,
      double coefficients,
      double stdDevs,
      double residualSd,
      double rSquared,
      double exactDesign,
      double agreement,
      double condition) {}

  static Row row(NistStrd s) {
    ColumnData data = s.columns();
    GramStats stats = GramPass.compute(data, 2);
    LeastSquaresFit fit = new ExactSolver().fit(stats, new SolverOptions(s.intercept, 0.0));
    RegressionSummary sum = fit.summary(null);
    double[] w = fit.solution().parameters();
    String[] est = s.certifiedInLayout(s.estimates);
    String[] sds = s.certifiedInLayout(s.stdDevs);
    Rational[] exact = RationalLeastSquares.solve(data, s.intercept, 0.0);
    double coef = 99;
    double sd = 99;
    double design = 99;
    double agree = 99;
    for (int j = 0; j < w.length; j++) {
      coef = Math.min(coef, NistStrd.lre(w[j], est[j]));
      sd = Math.min(sd, NistStrd.lre(sum.coefficients().get(j).stdError(), sds[j]));
      double e = exact[j].toDouble();
      design = Math.min(design, NistStrd.lre(e, est[j]));
      double rel = Math.abs(w[j] - e) / Math.abs(e);
      agree = Math.min(agree, rel == 0 ? 16 : Math.min(16, -Math.log10(rel)));
    }
    return new Row(
        s.name,
        s.n,
        w.length,
        coef,
        sd,
        NistStrd.lre(sum.residualStdDev(), s.residualSd),
        NistStrd.lre(sum.rSquared(), s.rSquared),
        design,
        agree,
        sum.condition());
  }

  static List<Row> rows() {
    List<Row> out = new ArrayList<>();
    for (String name : NistStrd.NAMES) {
      out.add(row(NistStrd.load(name)));
    }
    return out;
  }

  static String table(List<Row> rows) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "NIST StRD linear least squares, solver %s, order %s, binary64 data%n"
                + "minimum LRE against the certified values (capped at their 15 digits)%n",
            ExactSolver.NAME,
            GramOrder.VERSION));
    b.append(
        String.format(
            Locale.ROOT,
            "%-9s %3s %2s %6s %6s %6s %6s   %11s %10s %9s%n",
            "dataset",
            "n",
            "p",
            "coef",
            "sd",
            "resSD",
            "R2",
            "exact-b64",
            "agree",
            "cond1"));
    for (Row r : rows) {
      b.append(
          String.format(
              Locale.ROOT,
              "%-9s %3d %2d %6.1f %6.1f %6.1f %6.1f   %11.1f %10.1f %9.1e%n",
              r.name(),
              r.n(),
              r.params(),
              r.coefficients(),
              r.stdDevs(),
              r.residualSd(),
              r.rSquared(),
              r.exactDesign(),
              r.agreement(),
              r.condition()));
    }
    b.append(
        "exact-b64: the exact least-squares solution of the binary64 design (rational arithmetic);"
            + " agree: digits shared by the solver and that solution\n");
    return b.toString();
  }

  public static void main(String[] args) {
    System.out.print(table(rows()));
  }
}
