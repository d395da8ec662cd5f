package parreg.device;

/**
 * A device that computes local sums over a resident partition (SPEC section 3, GPU actor).
 *
 * <p>Call order: {@link #load} once; then any number of {@link #launch} calls, each followed by
 * {@link Launch#await()} before the next launch (one launch in flight at a time); then {@link
 * #close}. All calls come from one thread (a CUDA context is current per thread). Every
 * implementation returns, for the same inputs, the bits of {@link ReferenceKernel}.
 */
public interface KernelBackend extends AutoCloseable {

  BackendInfo info();

  /** Makes the partition resident on the device; called once, before any launch. */
  void load(Partition partition, boolean bias);

  /**
   * Starts the computation of the local sums of samples {@code [start, start + length)} at {@code
   * params} and returns its fence. Must not be called while a previous launch is pending.
   */
  Launch launch(double[] params, int start, int length);

  /**
   * Starts the exact solver's one pass over the whole partition ({@link ExactStep}): its statistics
   * in the order of {@link parreg.solver.GramOrder}, carried as a contribution, and returns its
   * fence. Must not be called while a previous launch is pending.
   */
  Launch launchStatistics();

  @Override
  void close();

  /** The fence of one launch. */
  interface Launch {
    /** True once the device has retired the launch (never blocks). */
    boolean isRetired();

    /** Blocks until the launch has retired, then reads back its result. */
    LocalSums await();

    /**
     * Device time of the launch in milliseconds as measured by the device itself (CUDA events),
     * valid after {@link #await()}; NaN where the backend has no such clock.
     */
    default double deviceMillis() {
      return Double.NaN;
    }
  }
}
