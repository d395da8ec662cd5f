package parreg.solver;

/**
 * The exact least-squares solution of binary64 data, in rational arithmetic: the centred (or raw)
 * normal equations with the ridge term, {@code (C + n l2 I) w = C_xy}, solved by Gaussian
 * elimination over the rationals; the intercept {@code mean(y) - sum_j w_j mean(x_j)}. Returns the
 * weights then the intercept (where fitted), exact.
 */
final class RationalLeastSquares {
  private RationalLeastSquares() {}

  static Rational[] solve(ColumnData data, boolean bias, double l2) {
    int n = data.samples();
    int d = data.features();
    int m = d + 1; // features and the label
    Rational[][] z = new Rational[m][n];
    for (int c = 0; c < m; c++) {
      for (int i = 0; i < n; i++) {
        z[c][i] = Rational.of(data.value(c, i));
      }
    }
    Rational rn = Rational.of(n);
    Rational[] mean = new Rational[m];
    for (int c = 0; c < m; c++) {
      Rational s = Rational.ZERO;
      if (bias) {
        for (int i = 0; i < n; i++) {
          s = s.add(z[c][i]);
        }
        s = s.div(rn);
      }
      mean[c] = s;
    }
    Rational[][] centred = new Rational[m][n];
    for (int c = 0; c < m; c++) {
      for (int i = 0; i < n; i++) {
        centred[c][i] = z[c][i].sub(mean[c]);
      }
    }
    Rational[][] a = new Rational[d][d + 1];
    Rational ridge = rn.mul(Rational.of(l2));
    for (int j = 0; j < d; j++) {
      for (int k = j; k <= d; k++) {
        Rational s = Rational.ZERO;
        for (int i = 0; i < n; i++) {
          s = s.add(centred[j][i].mul(centred[k][i]));
        }
        if (k == j) {
          s = s.add(ridge);
        }
        a[j][k] = s;
        if (k < d) {
          a[k][j] = s;
        }
      }
    }
    Rational[] w = gauss(a, d);
    Rational[] out = new Rational[d + (bias ? 1 : 0)];
    System.arraycopy(w, 0, out, 0, d);
    if (bias) {
      Rational b = mean[d];
      for (int j = 0; j < d; j++) {
        b = b.sub(w[j].mul(mean[j]));
      }
      out[d] = b;
    }
    return out;
  }

  /** Solves the augmented system {@code a[d][d+1]}; throws where it is singular. */
  static Rational[] gauss(Rational[][] a, int d) {
    for (int c = 0; c < d; c++) {
      int p = c;
      while (p < d && a[p][c].signum() == 0) {
        p++;
      }
      if (p == d) {
        throw new ArithmeticException("singular at column " + c);
      }
      Rational[] t = a[p];
      a[p] = a[c];
      a[c] = t;
      for (int r = c + 1; r < d; r++) {
        if (a[r][c].signum() == 0) {
          continue;
        }
        Rational f = a[r][c].div(a[c][c]);
        for (int k = c; k <= d; k++) {
          a[r][k] = a[r][k].sub(f.mul(a[c][k]));
        }
      }
    }
    Rational[] x = new Rational[d];
    for (int r = d - 1; r >= 0; r--) {
      Rational s = a[r][d];
      for (int k = r + 1; k < d; k++) {
        s = s.sub(a[r][k].mul(x[k]));
      }
      x[r] = s.div(a[r][r]);
    }
    return x;
  }
}
