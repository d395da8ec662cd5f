package parreg.device;

/**
 * The reference computation of one participant's local sums (SPEC section 2, steps 1 to 3 and the
 * loss), written for clarity. It is the oracle every other backend is tested against.
 *
 * <p>Java {@code float} and {@code double} arithmetic is IEEE 754 with round-to-nearest-even and
 * gradual underflow (strict since Java 17), and javac/HotSpot never contract {@code a*b+c} into a
 * fused multiply-add, so each operation below is rounded separately, as the policy requires.
 */
public final class ReferenceKernel {
  private ReferenceKernel() {}

  /**
   * @param p the partition
   * @param start first sample of the batch
   * @param length samples in the batch (>= 1)
   * @param params binary64 parameters, bias last when {@code bias}
   * @param bias whether the last parameter is a bias
   */
  public static LocalSums compute(
      Partition p, int start, int length, double[] params, boolean bias) {
    int d = p.features();
    if (params.length != RunContract.parameterCount(d, bias)) {
      throw new IllegalArgumentException(
          "expected "
              + RunContract.parameterCount(d, bias)
              + " parameters for d="
              + d
              + ", got "
              + params.length);
    }
    if (length < 1 || start < 0 || start + length > p.samples()) {
      throw new IllegalArgumentException(
          "batch [" + start + ", " + (start + length) + ") outside partition of " + p.samples());
    }
    // Step 1: round the parameters to binary32 (nearest, ties to even; subnormals kept).
    float[] w32 = new float[d];
    for (int j = 0; j < d; j++) {
      w32[j] = (float) params[j];
    }
    float b32 = bias ? (float) params[d] : 0f;

    // Step 2: residuals in binary32, one rounding per operation, features in index order.
    float[] r = new float[length];
    for (int i = 0; i < length; i++) {
      float acc = 0f;
      for (int j = 0; j < d; j++) {
        float prod = w32[j] * p.x(start + i, j);
        acc = acc + prod;
      }
      if (bias) {
        acc = acc + b32;
      }
      r[i] = acc - p.y(start + i);
    }

    // Step 3: per-sample gradients g[i][j] = r * x (binary32), widened exactly, summed in the
    // documented order. The bias coordinate sums r itself.
    double[] s = new double[params.length];
    for (int j = 0; j < d; j++) {
      final int jj = j;
      s[j] = ReductionOrder.sum(length, i -> (double) (r[i] * p.x(start + i, jj)));
    }
    if (bias) {
      s[d] = ReductionOrder.sum(length, i -> (double) r[i]);
    }
    double loss = ReductionOrder.sum(length, i -> (double) r[i] * (double) r[i]);
    return new LocalSums(s, loss, length);
  }
}
