package parreg.device;

/**
 * Hold-out metrics of a regression model, accumulated one row at a time in binary64 so that a file
 * larger than memory can be judged: n, RMSE, MAE and R².
 *
 * <p>Deterministic: every sum runs in row order, so the same rows in the same order give the same
 * bits on every machine. The squared and absolute errors are plain running sums. The spread of y
 * that R² divides by uses Welford's update (running mean and sum of squared deviations), because
 * {@code sum y^2 - n * mean^2} cancels catastrophically when the targets sit far from zero.
 */
public final class RegressionMetrics {
  private long n;
  private double sumSquaredError;
  private double sumAbsoluteError;
  private double meanY;
  private double squaredDeviationsY;

  /** Adds one row: its target and the model's prediction. */
  public void add(double y, double prediction) {
    double e = y - prediction;
    n++;
    sumSquaredError += e * e;
    sumAbsoluteError += Math.abs(e);
    double delta = y - meanY;
    meanY += delta / n;
    squaredDeviationsY += delta * (y - meanY);
  }

  public long n() {
    return n;
  }

  /** Root mean squared error, {@code sqrt(SSE / n)}. */
  public double rmse() {
    return Math.sqrt(sumSquaredError / n);
  }

  /** Mean absolute error. */
  public double mae() {
    return sumAbsoluteError / n;
  }

  /**
   * The coefficient of determination {@code 1 - SSE / SST}; NaN when every target is the same (SST
   * = 0), where it is undefined.
   */
  public double r2() {
    return squaredDeviationsY == 0 ? Double.NaN : 1.0 - sumSquaredError / squaredDeviationsY;
  }
}
