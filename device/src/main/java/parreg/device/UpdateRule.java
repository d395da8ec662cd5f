package parreg.device;

/**
 * Combination and update (SPEC section 2, steps 4 and 5), identical on every node.
 *
 * <p>{@code S = S_0 + S_1 + ... + S_{P-1}} in participant-id order (starting from {@code S_0}),
 * {@code M = m_0 + ... + m_{P-1}} as an unsigned 64-bit sum, {@code G = S / M} per coordinate in
 * binary64, then {@code w = w - rate * G} (multiply, then subtract, each rounded). The reported
 * loss is {@code (L_0 + ... + L_{P-1}) / (2M)}.
 *
 * <p>With a ridge penalty {@code l2 > 0} (the loss {@code (1/2M) sum r^2 + (l2/2) |w|^2}, the bias
 * not penalised) a feature's gradient is {@code G_j + l2 * w_j} (multiply, then add, each rounded,
 * at the parameters before the step), then the same update; the bias's is {@code G_b}. With {@code
 * l2 = 0} nothing is added: the bits are the unpenalised rule's.
 */
public final class UpdateRule {
  private UpdateRule() {}

  /** The parameters after a step and the step's loss. */
  public record Outcome(double[] parameters, double loss, long mass) {}

  /**
   * @param params parameters before the step
   * @param contributions one per participant, indexed by participant id
   * @param rate the learning rate as binary64
   */
  public static Outcome apply(double[] params, LocalSums[] contributions, double rate) {
    return apply(params, contributions, rate, 0.0, false);
  }

  /**
   * The update with a ridge penalty.
   *
   * @param params parameters before the step (features, then the bias where {@code bias})
   * @param contributions one per participant, indexed by participant id
   * @param rate the learning rate as binary64
   * @param l2 the ridge penalty as binary64, {@code >= 0}
   * @param bias whether the last parameter is the bias (never penalised)
   */
  public static Outcome apply(
      double[] params, LocalSums[] contributions, double rate, double l2, boolean bias) {
    if (contributions.length == 0) {
      throw new IllegalArgumentException("no contributions");
    }
    int n = params.length;
    double[] s = contributions[0].gradient();
    if (s.length != n) {
      throw new IllegalArgumentException(
          "participant 0 sent " + s.length + " gradient entries, expected " + n);
    }
    long mass = contributions[0].mass();
    double lossSum = contributions[0].lossSum();
    for (int p = 1; p < contributions.length; p++) {
      LocalSums c = contributions[p];
      if (c.length() != n) {
        throw new IllegalArgumentException(
            "participant " + p + " sent " + c.length() + " gradient entries, expected " + n);
      }
      for (int j = 0; j < n; j++) {
        s[j] = s[j] + c.gradient(j);
      }
      long before = mass;
      mass = mass + c.mass();
      if (Long.compareUnsigned(mass, before) < 0) {
        throw new ArithmeticException("total mass overflows 64 bits");
      }
      lossSum = lossSum + c.lossSum();
    }
    if (mass == 0) {
      throw new ArithmeticException("total mass is zero");
    }
    double m = unsignedToDouble(mass);
    double[] w = params.clone();
    int penalised = l2 == 0.0 ? 0 : bias ? n - 1 : n;
    for (int j = 0; j < n; j++) {
      double g = s[j] / m;
      if (j < penalised) {
        g = g + l2 * w[j];
      }
      w[j] = w[j] - rate * g;
    }
    double loss = lossSum / (2.0 * m);
    return new Outcome(w, loss, mass);
  }

  static double unsignedToDouble(long v) {
    if (v >= 0) {
      return (double) v;
    }
    // Values at or above 2^63: exact halving keeps the rounding correct.
    return ((double) ((v >>> 1) | (v & 1))) * 2.0;
  }

  /** Prediction {@code sum w_j x_j (+ b)} in binary64, index order, for a trained model. */
  public static double predict(double[] params, boolean bias, double[] x) {
    int d = params.length - (bias ? 1 : 0);
    if (x.length != d) {
      throw new IllegalArgumentException(
          "the model has " + d + " features, the input has " + x.length);
    }
    // Start from the first product, not from 0.0, so that a -0.0 product keeps its sign.
    double acc = d == 0 ? 0.0 : params[0] * x[0];
    for (int j = 1; j < d; j++) {
      acc = acc + params[j] * x[j];
    }
    if (bias) {
      acc = acc + params[d];
    }
    return acc;
  }
}
