package parreg.solver;

/**
 * The factorisation's and the triangular solves' inner update in SIMD lanes: {@code s[s0 + r] =
 * s[s0 + r] - c[c0 + r] * y} in double-double for {@code r < len}, each lane doing exactly the
 * operations of {@link DoubleDouble#mul} (the column entry as the left operand) and {@link
 * DoubleDouble#add}. {@link #subtractScaled} picks the lanes ({@link DdVectorLanes}) or the plain
 * loop; the bits are the same.
 */
final class DdLanes {
  private DdLanes() {}

  /** {@code s -= c * y} over {@code len} entries, SIMD where {@link GramPass#VECTOR_AVAILABLE}. */
  static void subtractScaled(
      double[] sh,
      double[] sl,
      int s0,
      double[] ch,
      double[] cl,
      int c0,
      int len,
      double yh,
      double yl) {
    subtractScaled(sh, sl, s0, ch, cl, c0, len, yh, yl, GramPass.VECTOR_AVAILABLE);
  }

  /** As above; {@code vector} false forces the plain loop (tests compare the two). */
  static void subtractScaled(
      double[] sh,
      double[] sl,
      int s0,
      double[] ch,
      double[] cl,
      int c0,
      int len,
      double yh,
      double yl,
      boolean vector) {
    // The SIMD lanes sit in a class of their own, loaded only where the Vector API module is
    // present: a JVM without it (a plain bin/parreg command) runs the plain loop, same bits.
    int r = vector ? DdVectorLanes.lanes(sh, sl, s0, ch, cl, c0, len, yh, yl) : 0;
    double[] out = new double[2];
    for (; r < len; r++) {
      DoubleDouble.mul(ch[c0 + r], cl[c0 + r], yh, yl, out);
      DoubleDouble.add(sh[s0 + r], sl[s0 + r], -out[0], -out[1], out);
      sh[s0 + r] = out[0];
      sl[s0 + r] = out[1];
    }
  }
}
