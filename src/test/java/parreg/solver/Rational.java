package parreg.solver;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;

/** An exact rational number (test oracle arithmetic), always in lowest terms, denominator > 0. */
record Rational(BigInteger num, BigInteger den) {
  static final Rational ZERO = new Rational(BigInteger.ZERO, BigInteger.ONE);
  static final Rational ONE = new Rational(BigInteger.ONE, BigInteger.ONE);

  Rational {
    if (den.signum() == 0) {
      throw new ArithmeticException("zero denominator");
    }
    if (den.signum() < 0) {
      num = num.negate();
      den = den.negate();
    }
    BigInteger g = num.gcd(den);
    if (!g.equals(BigInteger.ONE) && g.signum() != 0) {
      num = num.divide(g);
      den = den.divide(g);
    }
    if (num.signum() == 0) {
      den = BigInteger.ONE;
    }
  }

  /** The exact value of a finite binary64 number. */
  static Rational of(double v) {
    if (v == 0) {
      return ZERO;
    }
    BigDecimal b = new BigDecimal(v);
    return b.scale() > 0
        ? new Rational(b.unscaledValue(), BigInteger.TEN.pow(b.scale()))
        : new Rational(b.toBigIntegerExact(), BigInteger.ONE);
  }

  static Rational of(long v) {
    return new Rational(BigInteger.valueOf(v), BigInteger.ONE);
  }

  Rational add(Rational o) {
    return new Rational(num.multiply(o.den).add(o.num.multiply(den)), den.multiply(o.den));
  }

  Rational sub(Rational o) {
    return new Rational(num.multiply(o.den).subtract(o.num.multiply(den)), den.multiply(o.den));
  }

  Rational mul(Rational o) {
    return new Rational(num.multiply(o.num), den.multiply(o.den));
  }

  Rational div(Rational o) {
    return new Rational(num.multiply(o.den), den.multiply(o.num));
  }

  int signum() {
    return num.signum();
  }

  /**
   * Correctly rounded to binary64 (via a 60-digit decimal, then the JDK's correctly rounded
   * conversion).
   */
  double toDouble() {
    return toBigDecimal().doubleValue();
  }

  BigDecimal toBigDecimal() {
    return new BigDecimal(num).divide(new BigDecimal(den), new MathContext(60));
  }
}
