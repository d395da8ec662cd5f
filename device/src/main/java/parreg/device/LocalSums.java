package parreg.device;

/**
 * One participant's contribution to one step: the binary64 gradient sum {@code S_p} (one entry per
 * parameter, bias last), the sum of squared residuals, and the mass {@code m_p} (samples in the
 * batch, an unsigned 64-bit count).
 */
public record LocalSums(double[] gradient, double lossSum, long mass) {
  public LocalSums {
    gradient = gradient.clone();
  }

  @Override
  public double[] gradient() {
    return gradient.clone();
  }

  public int length() {
    return gradient.length;
  }

  public double gradient(int j) {
    return gradient[j];
  }

  /** Bitwise equality: what "recomputes to the same bits" means. */
  public boolean sameBits(LocalSums o) {
    return mass == o.mass
        && Double.doubleToRawLongBits(lossSum) == Double.doubleToRawLongBits(o.lossSum)
        && Bits.sameBits(gradient, o.gradient);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LocalSums s && sameBits(s);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(gradient) * 31 + Long.hashCode(mass);
  }

  @Override
  public String toString() {
    // An exact solver's statistics hold up to millions of values: show the head of such a vector.
    String sums =
        gradient.length <= 64
            ? Bits.hexList(gradient)
            : Bits.hexList(java.util.Arrays.copyOf(gradient, 16))
                + " ... ("
                + gradient.length
                + " values)";
    return "LocalSums{S="
        + sums
        + ", loss="
        + Bits.hex(lossSum)
        + ", m="
        + Long.toUnsignedString(mass)
        + "}";
  }
}
