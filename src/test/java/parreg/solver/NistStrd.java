package parreg.solver;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One NIST StRD linear least-squares dataset (test resource {@code nist/NAME.dat}): its data, the
 * model's design and NIST's certified values as printed (strings, so their digits are known).
 *
 * <p>Designs: Norris, NoInt1, NoInt2 regress y on x (NoInt without intercept); Longley on x1..x6;
 * Pontius (degree 2), Filip (10) and Wampler1-5 (5) on the powers {@code x, x^2, ...}. A power is
 * the binary64 value nearest to the exact power of the binary64 x ({@code BigDecimal} exact power,
 * rounded once); the data values are the binary64 values nearest to the printed decimals.
 */
final class NistStrd {
  static final String[] NAMES = {
    "Norris",
    "Pontius",
    "NoInt1",
    "NoInt2",
    "Filip",
    "Longley",
    "Wampler1",
    "Wampler2",
    "Wampler3",
    "Wampler4",
    "Wampler5"
  };

  final String name;
  final boolean intercept;
  final int n;
  final int d;
  final double[] x;
  final double[] y;
  final String[] estimates;
  final String[] stdDevs;
  final String residualSd;
  final String rSquared;

  private NistStrd(String name, String text) {
    this.name = name;
    String[] lines = text.split("\r?\n");
    int[] cert = range(text, "Certified Values");
    int[] data = range(text, "Data");
    List<String> est = new ArrayList<>();
    List<String> sds = new ArrayList<>();
    String rsd = null;
    String r2 = null;
    Pattern b = Pattern.compile("^\\s*B(\\d+)\\s+(\\S+)\\s+(\\S+)\\s*$");
    Pattern sd = Pattern.compile("Standard Deviation\\s+(\\S+)\\s*$");
    Pattern rs = Pattern.compile("R-Squared\\s+(\\S+)\\s*$");
    for (int i = cert[0] - 1; i < cert[1]; i++) {
      Matcher m = b.matcher(lines[i]);
      if (m.matches()) {
        est.add(m.group(2));
        sds.add(m.group(3));
        continue;
      }
      m = sd.matcher(lines[i]);
      if (m.find()) {
        rsd = m.group(1);
      }
      m = rs.matcher(lines[i]);
      if (m.find()) {
        r2 = m.group(1);
      }
    }
    this.intercept = !name.startsWith("NoInt");
    this.estimates = est.toArray(new String[0]);
    this.stdDevs = sds.toArray(new String[0]);
    this.residualSd = rsd;
    this.rSquared = r2;
    List<double[]> rows = new ArrayList<>();
    for (int i = data[0] - 1; i < data[1]; i++) {
      String t = lines[i].strip();
      if (!t.isEmpty()) {
        String[] f = t.split("\\s+");
        double[] row = new double[f.length];
        for (int k = 0; k < f.length; k++) {
          row[k] = Double.parseDouble(f[k]);
        }
        rows.add(row);
      }
    }
    this.n = rows.size();
    int degree =
        switch (name) {
          case "Pontius" -> 2;
          case "Filip" -> 10;
          default -> name.startsWith("Wampler") ? 5 : 0;
        };
    int columns = rows.get(0).length - 1;
    this.d = degree > 0 ? degree : columns;
    this.x = new double[n * d];
    this.y = new double[n];
    for (int i = 0; i < n; i++) {
      double[] row = rows.get(i);
      y[i] = row[0];
      for (int j = 0; j < d; j++) {
        x[j * n + i] = degree > 0 ? new BigDecimal(row[1]).pow(j + 1).doubleValue() : row[1 + j];
      }
    }
    if (estimates.length != d + (intercept ? 1 : 0) || rsd == null || r2 == null) {
      throw new IllegalStateException(name + ": certified values not found");
    }
  }

  /** Lines "{@code label} (lines A to B)" of the header, 1-based and inclusive. */
  private static int[] range(String text, String label) {
    Matcher m = Pattern.compile(label + "\\s+\\(lines (\\d+) to (\\d+)\\)").matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("no " + label + " range");
    }
    return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
  }

  static NistStrd load(String name) {
    try (InputStream in = NistStrd.class.getResourceAsStream("/nist/" + name + ".dat")) {
      if (in == null) {
        throw new IllegalStateException("missing resource nist/" + name + ".dat");
      }
      return new NistStrd(name, new String(in.readAllBytes(), StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  ColumnData columns() {
    return ColumnData.of(x, y, n, d);
  }

  /** Certified parameters in parreg's layout: weights B1..Bd, then B0 where there is one. */
  String[] certifiedInLayout(String[] printed) {
    if (!intercept) {
      return printed.clone();
    }
    String[] out = new String[printed.length];
    System.arraycopy(printed, 1, out, 0, d);
    out[d] = printed[0];
    return out;
  }

  /** Significant digits of a printed value (15 in these files); 15 for a printed zero. */
  static int digits(String printed) {
    String mant = printed.toUpperCase().split("E")[0].replace("-", "").replace("+", "");
    String digits = mant.replace(".", "").replaceFirst("^0+", "");
    return digits.isEmpty() ? 15 : digits.length();
  }

  /**
   * The log relative error {@code -log10(|b - c| / |c|)} of {@code b} against the printed value,
   * capped at its digits; for a certified 0 the log absolute error {@code -log10 |b|}.
   */
  static double lre(double b, String printed) {
    BigDecimal c = new BigDecimal(printed);
    int cap = digits(printed);
    if (Double.isNaN(b)) {
      return 0;
    }
    BigDecimal err = new BigDecimal(b).subtract(c).abs();
    if (err.signum() == 0) {
      return cap;
    }
    double e = c.signum() == 0 ? err.doubleValue() : err.doubleValue() / c.abs().doubleValue();
    return Math.max(0, Math.min(cap, -Math.log10(e)));
  }
}
