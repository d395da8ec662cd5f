package parreg.device;

import java.math.BigInteger;

/**
 * A learning rate kept exactly as the user gave it ("1/4", "0.25", "3e-2") and applied as the
 * binary64 value nearest to it.
 *
 * <p>A rational {@code p/q} with {@code |p|, |q| < 2^53} is converted by one IEEE division of the
 * two exactly representable operands, which is correctly rounded; a decimal goes through {@link
 * Double#parseDouble}, which is correctly rounded too. The text is what the contract compares, so
 * "1/4" and "0.25" are different contracts even though they apply the same value.
 */
public record LearningRate(String text, double value) {

  private static final BigInteger LIMIT = BigInteger.ONE.shiftLeft(53);

  public static LearningRate parse(String text) {
    String t = text.strip();
    double v;
    int slash = t.indexOf('/');
    try {
      if (slash >= 0) {
        BigInteger p = new BigInteger(t.substring(0, slash).strip());
        BigInteger q = new BigInteger(t.substring(slash + 1).strip());
        if (q.signum() <= 0) {
          throw new IllegalArgumentException(
              "learning rate '" + text + "': denominator must be > 0");
        }
        if (p.abs().compareTo(LIMIT) >= 0 || q.compareTo(LIMIT) >= 0) {
          throw new IllegalArgumentException(
              "learning rate '" + text + "': numerator and denominator must be below 2^53");
        }
        v = p.doubleValue() / q.doubleValue();
      } else {
        v = Double.parseDouble(t);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "learning rate '" + text + "' is not a number or a ratio p/q");
    }
    if (!Double.isFinite(v) || v <= 0) {
      throw new IllegalArgumentException("learning rate '" + text + "' must be finite and > 0");
    }
    return new LearningRate(t, v);
  }
}
