package parreg.device;

/**
 * Gradient descent in standardized coordinates, version {@value #VERSION} (the contract's solver
 * term {@code gd-standardized/v1;tol=T}, {@link SolverSpec#standardized}).
 *
 * <p><b>Contribution.</b> A participant's contribution to every step is the kernel's local sums at
 * the committed parameters (SPEC section 2, unchanged: binary32 residuals, binary64 sums in {@link
 * ReductionOrder}) followed by its partition's column moments: {@code S_0..S_{n-1} | N_p | sum_i
 * x_ij (j < d) | sum_i x_ij^2 (j < d)}, with {@code N_p} the partition's rows and each moment a
 * {@link ReductionOrder} sum over all rows of the binary32 value widened to binary64 (its square is
 * exact in binary64). Every step carries them, so each committed step determines its own update and
 * a journal replays without any state beyond the parameters.
 *
 * <p><b>Scaling.</b> The moments are merged in participant-id order (from participant 0, one
 * binary64 addition each). With a bias, {@code m_j = sum x / N}, {@code s_j = sqrt(sum x^2 / N -
 * m_j^2)}; a column whose variance is not above {@code 1e-10} of its mean square (constant, or
 * nearly) keeps {@code m_j = 0, s_j = sqrt(sum x^2 / N)} (1 where that is 0); without a bias {@code
 * m_j = 0} and {@code s_j} is the root mean square. The bound {@code L} of the largest eigenvalue
 * of the standardized Gram {@code [z 1]^T [z 1] / N} is its trace, {@code sum_j E[z_j^2] (+ 1)},
 * computed from the same moments: a Gram is positive semi-definite, so {@code L >= lambda_max}, and
 * the step {@code rate / L} with the default rate 1 is half the largest stable one: it cannot
 * diverge.
 *
 * <p><b>Update</b> (binary64, each operation rounded, sums in index order). The parameters stay in
 * original units, {@code w} and {@code b}, and are what the kernel is handed. {@code g = S / M} as
 * in {@link UpdateRule}; in standardized coordinates {@code v_j = w_j s_j}, {@code c = b + sum_j
 * w_j m_j}, {@code g'_j = (g_j - m_j g_b) / s_j}, {@code g'_b = g_b}; then {@code v_j -= (rate/L)
 * g'_j}, {@code c -= (rate/L) g'_b}, and back: {@code w_j = v_j / s_j}, {@code b = c - sum_j w_j
 * m_j}. The loss is {@code sum L_p / 2M}.
 *
 * <p><b>Ridge penalty</b> ({@code l2 > 0}, the term's {@code ;l2=L}). The loss minimised is {@code
 * (1/2M) sum r^2 + (l2/2) sum_j w_j^2} in original units, the exact solver's; the intercept is not
 * penalised. The scale is that of the penalised problem, {@code s_j = sqrt(var_j + l2)} ({@code
 * var_j} the variance above, or the mean square of a column not centred): the diagonal of the
 * penalised Hessian in original units, so that in standardized coordinates each feature's diagonal
 * is 1 (scaling by the bare {@code sqrt(var_j)} would leave the penalty's {@code l2 / var_j} there,
 * arbitrarily stiff for a column of small spread). In those coordinates the penalty is {@code
 * (l2/2) sum_j v_j^2 / s_j^2}, whose gradient {@code l2 v_j / s_j^2 = l2 w_j / s_j} joins the data
 * term before the division: {@code g'_j = ((g_j - m_j g_b) + l2 w_j) / s_j} at the parameters
 * before the step ({@code g'_b} as before). Its Hessian adds {@code diag(l2 / s_j^2)}, so {@code L}
 * is the penalised Hessian's trace, {@code sum_j (E[z_j^2] + l2 / s_j^2) (+ 1)}: still an upper
 * bound of its largest eigenvalue, and the step still cannot diverge. The reported loss stays the
 * data term. With {@code l2 = 0} nothing changes: the bits are the unpenalised rule's.
 *
 * <p><b>Stop.</b> The step's convergence measure is {@code max_j |g'_j| / sqrt(2 loss)}: the
 * largest correlation-like product of the residuals with a standardized column (and their mean over
 * their root mean square), scale-free; 0 where the residuals are 0 and so is {@code g'}; with a
 * penalty {@code g'} is the penalised gradient. The run stops after the first step whose measure is
 * at most the tolerance; every node computes it from the same committed set and the parameters it
 * was computed at, so all stop at the same step.
 */
public final class StandardizedDescent {
  public static final String VERSION = "gd-standardized/v1";

  /** A column whose variance is at most this fraction of its mean square is not centred. */
  static final double DEGENERATE = 1e-10;

  private StandardizedDescent() {}

  /** The merged column statistics: means, scales and the eigenvalue bound. */
  public record Scaling(double[] mean, double[] scale, double bound, double rows) {}

  /** The moments part of a contribution: {@code N_p | sum x_j | sum x_j^2}. */
  public static double[] moments(Partition p) {
    int d = p.features();
    int n = p.samples();
    double[] m = new double[1 + 2 * d];
    m[0] = n;
    for (int j = 0; j < d; j++) {
      final int jj = j;
      m[1 + j] = ReductionOrder.sum(n, i -> (double) p.x(i, jj));
      m[1 + d + j] =
          ReductionOrder.sum(
              n,
              i -> {
                double x = p.x(i, jj);
                return x * x;
              });
    }
    return m;
  }

  /** The kernel's sums followed by the moments: the contribution to a step. */
  public static LocalSums contribution(LocalSums kernel, double[] moments) {
    double[] s = kernel.gradient();
    double[] all = java.util.Arrays.copyOf(s, s.length + moments.length);
    System.arraycopy(moments, 0, all, s.length, moments.length);
    return new LocalSums(all, kernel.lossSum(), kernel.mass());
  }

  /** The number of values in a contribution under {@code contract}. */
  public static int contributionLength(RunContract contract) {
    return contract.parameterCount() + 1 + 2 * contract.features();
  }

  /** The scaling of the merged moments of a step's contributions. */
  public static Scaling scaling(RunContract contract, LocalSums[] set) {
    int d = contract.features();
    int n = contract.parameterCount();
    check(contract, set);
    double rows = set[0].gradient(n);
    double[] sum = new double[d];
    double[] sq = new double[d];
    for (int j = 0; j < d; j++) {
      sum[j] = set[0].gradient(n + 1 + j);
      sq[j] = set[0].gradient(n + 1 + d + j);
    }
    for (int p = 1; p < set.length; p++) {
      rows = rows + set[p].gradient(n);
      for (int j = 0; j < d; j++) {
        sum[j] = sum[j] + set[p].gradient(n + 1 + j);
        sq[j] = sq[j] + set[p].gradient(n + 1 + d + j);
      }
    }
    if (!(rows > 0)) {
      throw new ArithmeticException("the partitions hold no rows");
    }
    double l2 = contract.solverSpec().l2Value();
    double[] mean = new double[d];
    double[] scale = new double[d];
    double bound = contract.bias() ? 1.0 : 0.0;
    for (int j = 0; j < d; j++) {
      double meanSq = sq[j] / rows;
      double m = contract.bias() ? sum[j] / rows : 0.0;
      double var = meanSq - m * m;
      if (!contract.bias() || !(var > DEGENERATE * meanSq)) {
        m = 0.0;
        var = meanSq;
      }
      // with a penalty, the penalised Hessian's diagonal var + l2 (> 0)
      double s = l2 != 0.0 ? Math.sqrt(var + l2) : var > 0 ? Math.sqrt(var) : 1.0;
      mean[j] = m;
      scale[j] = s;
      // E[z_j^2] = (E[x^2] - 2 m E[x] + m^2) / s^2, from the same moments.
      double ez = (meanSq - 2.0 * m * (sum[j] / rows) + m * m) / (s * s);
      bound = bound + Math.max(ez, 0.0);
      if (l2 != 0.0) {
        // the penalty's Hessian diag(l2 / s_j^2) joins the trace
        bound = bound + l2 / (s * s);
      }
    }
    if (!(bound > 0)) {
      bound = 1.0;
    }
    return new Scaling(mean, scale, bound, rows);
  }

  private static void check(RunContract contract, LocalSums[] set) {
    if (set.length == 0) {
      throw new IllegalArgumentException("no contributions");
    }
    int len = contributionLength(contract);
    for (int p = 0; p < set.length; p++) {
      if (set[p].length() != len) {
        throw new IllegalArgumentException(
            "participant "
                + p
                + " sent "
                + set[p].length()
                + " values, a standardized step carries "
                + len);
      }
    }
  }

  /** A step's update and its convergence measure. */
  public record Step(UpdateRule.Outcome outcome, double measure) {}

  /**
   * The update of the parameters {@code params} by the step whose contributions are {@code set}
   * (computed at {@code params}).
   */
  public static Step apply(RunContract contract, double[] params, LocalSums[] set) {
    Scaling sc = scaling(contract, set);
    int d = contract.features();
    int n = contract.parameterCount();
    boolean bias = contract.bias();
    double[] s = new double[n];
    for (int j = 0; j < n; j++) {
      s[j] = set[0].gradient(j);
    }
    long mass = set[0].mass();
    double lossSum = set[0].lossSum();
    for (int p = 1; p < set.length; p++) {
      for (int j = 0; j < n; j++) {
        s[j] = s[j] + set[p].gradient(j);
      }
      long before = mass;
      mass = mass + set[p].mass();
      if (Long.compareUnsigned(mass, before) < 0) {
        throw new ArithmeticException("total mass overflows 64 bits");
      }
      lossSum = lossSum + set[p].lossSum();
    }
    if (mass == 0) {
      throw new ArithmeticException("total mass is zero");
    }
    double m = UpdateRule.unsignedToDouble(mass);
    double gb = bias ? s[d] / m : 0.0;
    double l2 = contract.solverSpec().l2Value();
    double[] gp = new double[n];
    for (int j = 0; j < d; j++) {
      double g = s[j] / m;
      double t = bias ? g - sc.mean()[j] * gb : g;
      if (l2 != 0.0) {
        t = t + l2 * params[j];
      }
      gp[j] = t / sc.scale()[j];
    }
    if (bias) {
      gp[d] = gb;
    }
    double rate = contract.rate().value() / sc.bound();
    double[] w = new double[n];
    double c = bias ? params[d] + dot(params, sc.mean(), d) : 0.0;
    for (int j = 0; j < d; j++) {
      double v = params[j] * sc.scale()[j];
      v = v - rate * gp[j];
      w[j] = v / sc.scale()[j];
    }
    if (bias) {
      c = c - rate * gp[d];
      w[d] = c - dot(w, sc.mean(), d);
    }
    double loss = lossSum / (2.0 * m);
    double worst = 0.0;
    for (double g : gp) {
      worst = Math.max(worst, Math.abs(g));
    }
    double rms = Math.sqrt(2.0 * loss);
    double measure = worst == 0.0 ? 0.0 : rms > 0 ? worst / rms : Double.POSITIVE_INFINITY;
    return new Step(new UpdateRule.Outcome(w, loss, mass), measure);
  }

  /**
   * Whether the step whose contributions are {@code set}, computed at the parameters {@code
   * before}, ends a run under {@code contract}.
   */
  public static boolean converged(RunContract contract, double[] before, LocalSums[] set) {
    double tol = contract.solverSpec().tolValue();
    // Without a penalty the measure depends on the set alone; with one, on before too.
    return tol > 0 && apply(contract, before, set).measure() <= tol;
  }

  /** {@code sum_j a_j b_j} over {@code j < d}, index order, from the first product. */
  private static double dot(double[] a, double[] b, int d) {
    if (d == 0) {
      return 0.0;
    }
    double acc = a[0] * b[0];
    for (int j = 1; j < d; j++) {
      acc = acc + a[j] * b[j];
    }
    return acc;
  }
}
