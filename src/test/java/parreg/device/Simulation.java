package parreg.device;

import java.util.List;

/**
 * The uninterrupted run, in one thread: every participant's contribution from the CPU backend,
 * combined by {@link UpdateRule}, step after step. What a cluster must equal to the bit.
 */
public final class Simulation {
  private Simulation() {}

  public static double[] run(RunContract c, List<Partition> partitions, long steps) {
    return run(c, partitions, steps, CpuBackend.Mode.FAST);
  }

  public static double[] run(
      RunContract c, List<Partition> partitions, long steps, CpuBackend.Mode mode) {
    double[] w = c.initialWeights();
    double rate = c.rate().value();
    CpuBackend[] b = new CpuBackend[partitions.size()];
    Batching[] batching = new Batching[partitions.size()];
    for (int p = 0; p < b.length; p++) {
      b[p] = new CpuBackend(mode, 2);
      b[p].load(partitions.get(p), c.bias());
      batching[p] = new Batching(partitions.get(p).samples(), c.batchSize());
    }
    for (long k = 1; k <= steps; k++) {
      LocalSums[] set = new LocalSums[b.length];
      for (int p = 0; p < b.length; p++) {
        int batch = batching[p].batchOfStep(k);
        set[p] = b[p].launch(w, batching[p].start(batch), batching[p].length(batch)).await();
      }
      w = UpdateRule.apply(w, set, rate).parameters();
    }
    for (CpuBackend x : b) {
      x.close();
    }
    return w;
  }
}
