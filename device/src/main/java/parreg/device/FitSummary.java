package parreg.device;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import parreg.solver.RegressionSummary;

/**
 * The training summary of an exact run (SPEC section 2b) as the plain map that {@code status
 * --json}, the exported checkpoint and {@code parreg summary --json} print: every number finite or
 * null (JSON has no NaN), the coefficients in the model's order (features, then the intercept).
 */
public final class FitSummary {
  private FitSummary() {}

  /** The summary of the exact step committed with {@code contributions}. */
  public static RegressionSummary of(RunContract contract, LocalSums[] contributions) {
    return ExactStep.fit(contract, contributions).summary(featureNames(contract.features()));
  }

  /** The features' names where the data do not name them: {@code x1 .. xd}, as SPEC section 5. */
  public static List<String> featureNames(int d) {
    List<String> names = new ArrayList<>(d);
    for (int j = 1; j <= d; j++) {
      names.add("x" + j);
    }
    return names;
  }

  /**
   * As {@link #json(RegressionSummary)}, with the precision of the run's data ({@code f32} or
   * {@code f64}) after the solver.
   */
  public static Map<String, Object> json(RunContract contract, RegressionSummary s) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : json(s).entrySet()) {
      m.put(e.getKey(), e.getValue());
      if (e.getKey().equals("solver")) {
        m.put("precision", contract.precision().flag());
      }
    }
    return m;
  }

  public static Map<String, Object> json(RegressionSummary s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("solver", s.solver());
    m.put("order", s.order());
    m.put("passes", 1);
    m.put("observations", s.observations());
    m.put("parameters", s.parameters());
    m.put("residualDf", s.residualDf());
    m.put("intercept", s.intercept());
    m.put("l2", s.l2());
    List<Map<String, Object>> coefficients = new ArrayList<>();
    for (RegressionSummary.Coefficient c : s.coefficients()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("name", c.name());
      e.put("estimate", number(c.estimate()));
      e.put("estimateBits", Bits.hex(c.estimate()));
      e.put("stdError", number(c.stdError()));
      e.put("t", number(c.t()));
      e.put("p", number(c.p()));
      coefficients.add(e);
    }
    m.put("coefficients", coefficients);
    m.put("rSquared", number(s.rSquared()));
    m.put("adjustedRSquared", number(s.adjustedRSquared()));
    m.put("rmse", number(s.rmse()));
    m.put("residualStdDev", number(s.residualStdDev()));
    m.put("residualSumOfSquares", number(s.residualSumOfSquares()));
    m.put("totalSumOfSquares", number(s.totalSumOfSquares()));
    m.put("condition", number(s.condition()));
    return m;
  }

  private static Double number(double v) {
    return Double.isFinite(v) ? v : null;
  }
}
