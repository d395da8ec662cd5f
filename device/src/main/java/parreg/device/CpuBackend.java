package parreg.device;

/**
 * The CPU backend: the {@link ReferenceKernel} run on the calling thread. Its fence is the
 * completion of that computation, so the GPU actor's launch-then-await protocol is exercised the
 * same way as on a device.
 */
public final class CpuBackend implements KernelBackend {
  private Partition partition;
  private boolean bias;
  private boolean pending;

  @Override
  public BackendInfo info() {
    String cpu = System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " cores";
    return new BackendInfo("cpu", "CPU (" + cpu + ")", "none", "reference kernel, " + ReductionOrder.VERSION);
  }

  @Override
  public void load(Partition partition, boolean bias) {
    this.partition = partition;
    this.bias = bias;
  }

  @Override
  public Launch launch(double[] params, int start, int length) {
    if (partition == null) {
      throw new IllegalStateException("launch before load");
    }
    if (pending) {
      throw new IllegalStateException("a launch is already in flight: await its fence first");
    }
    pending = true;
    LocalSums result = ReferenceKernel.compute(partition, start, length, params, bias);
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
  }
}
