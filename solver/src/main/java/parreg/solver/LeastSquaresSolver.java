package parreg.solver;

/**
 * Statistics in, parameters out. Every node calls the same implementation on the same (merged)
 * statistics and gets the same bits: implementations are plain binary64 code with a fixed operation
 * order, named by {@link #name()} in the run contract.
 *
 * <p>Call order: build the statistics ({@link GramPass} per participant, {@link GramStats#merge} in
 * participant-id order), then {@link #solve}. A {@link RankDeficientException} means the statistics
 * do not determine the parameters; callers report it and exit with status 2.
 */
public interface LeastSquaresSolver {
  /** The solver's versioned name (part of the run contract). */
  String name();

  /**
   * The least-squares parameters: one binary64 weight per feature, then the bias where {@code
   * options.bias()}.
   *
   * @throws RankDeficientException where columns are collinear (the exception names them)
   */
  Solution solve(GramStats stats, SolverOptions options);
}
