package parreg.solver;

/**
 * A solver's answer: the parameters (one weight per feature, then the bias where fitted), an
 * estimate of the 1-norm condition number of the scaled system the solver factored, and the
 * solver's versioned name.
 */
public record Solution(double[] parameters, double condition, String solver) {
  public Solution {
    parameters = parameters.clone();
  }

  @Override
  public double[] parameters() {
    return parameters.clone();
  }

  /** Bitwise equality of the parameters and the condition estimate, and the same solver. */
  public boolean sameBits(Solution o) {
    if (parameters.length != o.parameters.length
        || Double.doubleToRawLongBits(condition) != Double.doubleToRawLongBits(o.condition)
        || !solver.equals(o.solver)) {
      return false;
    }
    for (int i = 0; i < parameters.length; i++) {
      if (Double.doubleToRawLongBits(parameters[i])
          != Double.doubleToRawLongBits(o.parameters[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Solution s && sameBits(s);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parameters) * 31 + solver.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Solution{").append(solver).append(", w=[");
    for (int i = 0; i < parameters.length; i++) {
      b.append(i > 0 ? "," : "")
          .append(String.format("0x%016x", Double.doubleToRawLongBits(parameters[i])));
    }
    return b.append("], cond=").append(condition).append('}').toString();
  }
}
