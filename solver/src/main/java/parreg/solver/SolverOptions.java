package parreg.solver;

/**
 * What the model is: with {@code bias} the design is {@code [x, 1]} and the intercept is fitted
 * from the means (never penalised); without, the regression goes through the origin. {@code l2}
 * (ridge, {@code >= 0}) adds {@code (l2 / 2) * sum_j w_j^2} to the loss {@code (1 / 2n) * sum_i
 * r_i^2}, in the features' own units, the loss that gradient descent minimises with the same value:
 * the normal equations become {@code (C + n l2 I) w = C_xy} ({@link ScaledSystem}).
 */
public record SolverOptions(boolean bias, double l2) {
  public SolverOptions {
    if (!(l2 >= 0) || Double.isInfinite(l2)) {
      throw new IllegalArgumentException("l2 must be a finite number >= 0, not " + l2);
    }
  }

  /** Least squares with an intercept and no penalty. */
  public static SolverOptions withBias() {
    return new SolverOptions(true, 0.0);
  }
}
