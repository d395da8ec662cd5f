package parreg.solver;

import java.util.List;

/**
 * The training summary of an exact least-squares fit, in the shape of statsmodels' OLS summary and
 * Spark's {@code LinearRegressionTrainingSummary}: plain fields, so a JSON writer maps it directly.
 * Values that do not exist are NaN: standard errors, t and p without residual degrees of freedom or
 * with {@code l2 > 0} (the ridge estimator is biased; its classical standard errors do not apply),
 * R-squared where the total sum of squares is 0.
 *
 * @param solver the solver's versioned name
 * @param order the statistics pass's versioned order
 * @param observations the samples (the mass)
 * @param parameters weights plus the intercept where fitted
 * @param residualDf {@code observations - parameters}
 * @param intercept whether an intercept was fitted
 * @param l2 the ridge penalty
 * @param coefficients the features' weights in order, then the intercept
 * @param residualSumOfSquares of the double-double fit, computed in double-double
 * @param totalSumOfSquares about the mean with an intercept, about 0 without (as R and statsmodels)
 * @param rSquared {@code 1 - RSS / TSS}
 * @param adjustedRSquared {@code 1 - (1 - R^2) (n - k) / df}, {@code k} = 1 with an intercept, else
 *     0
 * @param residualStdDev {@code sqrt(RSS / df)} (NIST's "residual standard deviation", R's sigma)
 * @param rmse {@code sqrt(RSS / n)} (Spark's rootMeanSquaredError)
 * @param condition the solver's 1-norm condition estimate of the scaled system
 */
public record RegressionSummary(
    String solver,
    String order,
    long observations,
    int parameters,
    long residualDf,
    boolean intercept,
    double l2,
    List<Coefficient> coefficients,
    double residualSumOfSquares,
    double totalSumOfSquares,
    double rSquared,
    double adjustedRSquared,
    double residualStdDev,
    double rmse,
    double condition) {

  /** Name of the intercept's coefficient. */
  public static final String INTERCEPT = "(intercept)";

  public RegressionSummary {
    coefficients = List.copyOf(coefficients);
  }

  /**
   * One parameter: its estimate, standard error, t statistic and two-sided p-value (Student t with
   * the residual degrees of freedom).
   */
  public record Coefficient(String name, double estimate, double stdError, double t, double p) {}
}
