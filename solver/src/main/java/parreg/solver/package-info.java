/**
 * Exact linear least squares from one pass (SPEC section 2b, solver {@code exact}): the sufficient
 * statistics of a partition in a fixed, versioned operation order ({@link parreg.solver.GramOrder},
 * computed by {@link parreg.solver.GramPass}, mergeable across participants as {@link
 * parreg.solver.GramStats}), the solver that turns statistics into parameters ({@link
 * parreg.solver.LeastSquaresSolver}, {@link parreg.solver.ExactSolver}) and the training summary
 * ({@link parreg.solver.RegressionSummary}). docs/SOLVER.md gives the error analysis.
 *
 * <p>Plain Java arithmetic written out operation by operation: this package depends on nothing of
 * parreg and nothing of Pekko (enforced by {@code LayeringTest}), and on no numerical library, so
 * every node computes the same bits and a device backend can reproduce the pass.
 */
package parreg.solver;
