package parreg.device;

import java.util.StringJoiner;

/** Binary64 bit patterns as the hex strings used in status, evidence and contract text. */
public final class Bits {
  private Bits() {}

  public static String hex(double v) {
    return String.format("0x%016x", Double.doubleToRawLongBits(v));
  }

  public static String[] hex(double[] v) {
    String[] out = new String[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = hex(v[i]);
    }
    return out;
  }

  public static String hexList(double[] v) {
    StringJoiner j = new StringJoiner(",", "[", "]");
    for (double x : v) {
      j.add(hex(x));
    }
    return j.toString();
  }

  public static double parseHex(String s) {
    String t = s.startsWith("0x") || s.startsWith("0X") ? s.substring(2) : s;
    return Double.longBitsToDouble(Long.parseUnsignedLong(t, 16));
  }

  /** Bitwise equality of two binary64 arrays (distinguishes -0.0 from +0.0, NaN payloads). */
  public static boolean sameBits(double[] a, double[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
        return false;
      }
    }
    return true;
  }
}
