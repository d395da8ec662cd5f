package parreg.device;

/**
 * How a partition is cut into batches (SPEC section 5): consecutive runs of {@code batchSize}
 * samples, the last one possibly short; step k (k >= 1) uses batch {@code (k-1) mod
 * batchesPerEpoch}.
 */
public record Batching(int samples, int batchSize) {
  public Batching {
    if (samples <= 0) {
      throw new IllegalArgumentException("empty partition");
    }
    if (batchSize < 0) {
      throw new IllegalArgumentException("batch size must be >= 0");
    }
    if (batchSize == 0 || batchSize > samples) {
      batchSize = samples;
    }
  }

  public int batchesPerEpoch() {
    return (samples + batchSize - 1) / batchSize;
  }

  public int batchOfStep(long step) {
    if (step < 1) {
      throw new IllegalArgumentException("steps count from 1, got " + step);
    }
    return (int) ((step - 1) % batchesPerEpoch());
  }

  public int start(int batch) {
    return batch * batchSize;
  }

  public int length(int batch) {
    return Math.min(batchSize, samples - start(batch));
  }

  /** Completed epochs after {@code committed} steps. */
  public long epoch(long committed) {
    return committed / batchesPerEpoch();
  }
}
