package parreg.device;

/**
 * The CPU backend. By default it runs {@link FastCpuKernel} (SIMD loops, one thread per processor);
 * {@link Mode#REFERENCE} runs the {@link ReferenceKernel} itself on the calling thread. Both give
 * the same bits. The computation finishes inside {@link #launch}, so its fence is already retired
 * when returned, and the GPU actor's launch-then-await protocol is exercised the same way as on a
 * device.
 */
public final class CpuBackend implements KernelBackend {
  /** Which CPU computation runs. */
  public enum Mode {
    /** {@link FastCpuKernel}: same bits, vectorised, multi-threaded. */
    FAST,
    /** {@link ReferenceKernel}: the oracle, one thread. */
    REFERENCE
  }

  private final Mode mode;
  private final int threads;
  private final FastCpuKernel fast;
  private Partition partition;
  private boolean bias;
  private boolean pending;

  /** The fast kernel with one thread per available processor. */
  public CpuBackend() {
    this(Mode.FAST, Runtime.getRuntime().availableProcessors());
  }

  /**
   * @param mode which computation
   * @param threads worker threads of the fast kernel (>= 1; ignored by the reference)
   */
  public CpuBackend(Mode mode, int threads) {
    this.mode = mode;
    this.threads = threads;
    this.fast = mode == Mode.FAST ? new FastCpuKernel(threads) : null;
  }

  public Mode mode() {
    return mode;
  }

  @Override
  public BackendInfo info() {
    String cpu =
        System.getProperty("os.arch")
            + ", "
            + Runtime.getRuntime().availableProcessors()
            + " cores";
    String kernel = mode == Mode.FAST ? "fast kernel, " + fast.describe() : "reference kernel";
    return new BackendInfo(
        "cpu", "CPU (" + cpu + ")", "none", kernel + ", " + ReductionOrder.VERSION);
  }

  @Override
  public void load(Partition partition, boolean bias) {
    this.partition = partition;
    this.bias = bias;
  }

  @Override
  public Launch launch(double[] params, int start, int length) {
    return run(
        () ->
            mode == Mode.FAST
                ? fast.compute(partition, start, length, params, bias)
                : ReferenceKernel.compute(partition, start, length, params, bias));
  }

  @Override
  public Launch launchStatistics() {
    return run(() -> statistics(partition, mode == Mode.FAST ? threads : 1));
  }

  /**
   * The exact solver's statistics of a partition (binary32 or binary64, each with its rule of
   * {@link parreg.solver.GramOrder}): {@link parreg.solver.GramPass} on {@code threads} threads,
   * the bits of {@link parreg.solver.ReferenceGramPass} at every count.
   */
  public static LocalSums statistics(Partition p, int threads) {
    parreg.solver.ColumnData data =
        p.precision() == Precision.F64
            ? parreg.solver.ColumnData.of(
                p.featureMajor64(), p.targets64(), p.samples(), p.features())
            : parreg.solver.ColumnData.of(p.featureMajor(), p.targets(), p.samples(), p.features());
    return ExactStep.contribution(
        threads > 1
            ? parreg.solver.GramPass.compute(data, threads)
            : parreg.solver.ReferenceGramPass.compute(data));
  }

  private Launch run(java.util.function.Supplier<LocalSums> computation) {
    if (partition == null) {
      throw new IllegalStateException("launch before load");
    }
    if (pending) {
      throw new IllegalStateException("a launch is already in flight: await its fence first");
    }
    pending = true;
    LocalSums result;
    try {
      result = computation.get();
    } catch (RuntimeException e) {
      pending = false;
      throw e;
    }
    return new Launch() {
      private boolean consumed;

      @Override
      public boolean isRetired() {
        return true;
      }

      @Override
      public LocalSums await() {
        if (!consumed) {
          consumed = true;
          pending = false;
        }
        return result;
      }
    };
  }

  @Override
  public void close() {
    partition = null;
    if (fast != null) {
      fast.close();
    }
  }
}
