package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The CSV reader's decimal parser rounds exactly as {@link Float#parseFloat} does. */
class DecimalParsingTest {

  static void check(String text) {
    int expected = Float.floatToRawIntBits(Float.parseFloat(text));
    int actual = Float.floatToRawIntBits(CsvPartitionFormat.parseDecimal(text, 0, text.length()));
    assertEquals(
        expected,
        actual,
        () ->
            "'"
                + text
                + "': expected "
                + Float.parseFloat(text)
                + ", got "
                + CsvPartitionFormat.parseDecimal(text, 0, text.length()));
  }

  @Test
  void midpointsAndEdgesFallBackToCorrectRounding() {
    // integers on binary32 midpoints: ties to even
    for (String s :
        new String[] {
          "16777217",
          "16777219",
          "3.3554434e7",
          "33554438",
          "-16777217",
          "1.6777217E7",
          "0",
          "-0",
          "+0.0",
          "-0e99",
          "1e22",
          "1e23",
          "1e-22",
          "1e-23",
          "9007199254740993",
          "123456789012345678",
          "3.4028235e38",
          "3.4028236e38",
          "3.40282357e38",
          "1.4e-45",
          "7.0e-46",
          "7.1e-46",
          "1.17549435E-38",
          "0.1",
          "0.2",
          "0.30000001192092896",
          ".5",
          "5.",
          "-.5e-3",
          "00000000000000000000012.5"
        }) {
      check(s);
    }
    assertTrue(Float.isNaN(CsvPartitionFormat.parseDecimal("1e", 0, 2)));
    assertTrue(Float.isNaN(CsvPartitionFormat.parseDecimal(".", 0, 1)));
    assertTrue(Float.isNaN(CsvPartitionFormat.parseDecimal("+", 0, 1)));
    assertTrue(Float.isNaN(CsvPartitionFormat.parseDecimal("1.2.3", 0, 5)));
    assertTrue(Float.isNaN(CsvPartitionFormat.parseDecimal("NaN", 0, 3)));
    assertTrue(Float.isNaN(CsvPartitionFormat.parseDecimal("1d", 0, 2)));
    assertTrue(Float.isInfinite(CsvPartitionFormat.parseDecimal("1e39", 0, 4)));
  }

  @Test
  void randomDecimalsRoundLikeParseFloat() {
    SplittableRandom rnd = new SplittableRandom(2024);
    for (int k = 0; k < 300_000; k++) {
      // random floats printed by Float.toString, and random digit strings of 1..20 digits
      if (k % 3 == 0) {
        check(
            Float.toString(Float.intBitsToFloat(rnd.nextInt()))
                .replace("Infinity", "1")
                .replace("NaN", "2"));
      } else {
        int nd = rnd.nextInt(1, 21);
        StringBuilder sb = new StringBuilder(rnd.nextBoolean() ? "-" : "");
        int dot = rnd.nextInt(0, nd + 1);
        for (int i = 0; i < nd; i++) {
          if (i == dot) {
            sb.append('.');
          }
          sb.append((char) ('0' + rnd.nextInt(10)));
        }
        if (rnd.nextBoolean()) {
          sb.append('e').append(rnd.nextInt(-50, 40));
        }
        check(sb.toString());
      }
    }
  }

  @Test
  void nearMidpointDecimalsOfRandomFloats() {
    // decimals within a few binary64 ulps of a binary32 midpoint exercise the fallback rule
    SplittableRandom rnd = new SplittableRandom(7);
    for (int k = 0; k < 100_000; k++) {
      float f = (float) Math.scalb(rnd.nextDouble(1, 2), rnd.nextInt(-60, 60));
      double mid = ((double) f + (double) Math.nextUp(f)) / 2;
      double near = mid + (rnd.nextInt(-2, 3)) * Math.ulp(mid);
      check(
          new java.math.BigDecimal(near)
              .round(new java.math.MathContext(rnd.nextInt(9, 16)))
              .toString());
      check(Double.toString(near));
    }
  }
}
