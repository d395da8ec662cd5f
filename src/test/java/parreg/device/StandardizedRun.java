package parreg.device;

import java.util.List;

/**
 * A standardized descent run in one thread ({@link StandardizedDescent}): every participant's
 * contribution from the CPU backend plus its moments, the update and the stop rule of the training
 * actor, step after step. What a cluster must equal to the bit.
 */
public final class StandardizedRun {
  private StandardizedRun() {}

  /** The parameters and the step the run ended at (converged, or the step limit). */
  public record Result(double[] parameters, long steps, boolean converged, double loss) {}

  public static Result run(RunContract c, List<Partition> partitions, long maxSteps) {
    double[] w = c.initialWeights();
    CpuBackend[] b = new CpuBackend[partitions.size()];
    Batching[] batching = new Batching[partitions.size()];
    double[][] moments = new double[b.length][];
    for (int p = 0; p < b.length; p++) {
      b[p] = new CpuBackend(CpuBackend.Mode.FAST, 1);
      b[p].load(partitions.get(p), c.bias());
      batching[p] = new Batching(partitions.get(p).samples(), c.batchSize());
      moments[p] = StandardizedDescent.moments(partitions.get(p));
    }
    long k = 1;
    boolean converged = false;
    double loss = Double.NaN;
    try {
      for (; k <= maxSteps; k++) {
        LocalSums[] set = new LocalSums[b.length];
        for (int p = 0; p < b.length; p++) {
          int batch = batching[p].batchOfStep(k);
          LocalSums s = b[p].launch(w, batching[p].start(batch), batching[p].length(batch)).await();
          set[p] = StandardizedDescent.contribution(s, moments[p]);
        }
        double[] before = w;
        StandardizedDescent.Step step = StandardizedDescent.apply(c, w, set);
        w = step.outcome().parameters();
        loss = step.outcome().loss();
        if (k < maxSteps && StandardizedDescent.converged(c, before, set)) {
          converged = true;
          break;
        }
      }
    } finally {
      for (CpuBackend x : b) {
        x.close();
      }
    }
    return new Result(w, Math.min(k, maxSteps), converged, loss);
  }
}
