package parreg.solver;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link DdLanes}' SIMD lanes (needs {@code --add-modules jdk.incubator.vector}; only called where
 * {@link GramPass#VECTOR_AVAILABLE}).
 */
final class DdVectorLanes {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;
  private static final int L = S.length();

  private DdVectorLanes() {}

  /** The whole vectors of {@link DdLanes#subtractScaled}; returns how many entries it did. */
  static int lanes(
      double[] sh,
      double[] sl,
      int s0,
      double[] ch,
      double[] cl,
      int c0,
      int len,
      double yh,
      double yl) {
    DoubleVector vyh = DoubleVector.broadcast(S, yh);
    DoubleVector vyl = DoubleVector.broadcast(S, yl);
    int r = 0;
    for (; r + L <= len; r += L) {
      DoubleVector xh = DoubleVector.fromArray(S, ch, c0 + r);
      DoubleVector xl = DoubleVector.fromArray(S, cl, c0 + r);
      // DoubleDouble.mul(xh, xl, yh, yl)
      DoubleVector p = xh.mul(vyh);
      DoubleVector p1 = xh.fma(vyh, p.neg());
      DoubleVector t0 = xl.mul(vyl);
      DoubleVector t1 = xh.fma(vyl, t0);
      DoubleVector p2 = xl.fma(vyh, t1);
      DoubleVector p3 = p1.add(p2);
      DoubleVector zh = p.add(p3);
      DoubleVector zl = p3.sub(zh.sub(p));
      // DoubleDouble.add(s, -z)
      DoubleVector ah = DoubleVector.fromArray(S, sh, s0 + r);
      DoubleVector al = DoubleVector.fromArray(S, sl, s0 + r);
      DoubleVector bh = zh.neg();
      DoubleVector bl = zl.neg();
      DoubleVector uh = ah.add(bh);
      DoubleVector bb = uh.sub(ah);
      DoubleVector ul = ah.sub(uh.sub(bb)).add(bh.sub(bb));
      DoubleVector th = al.add(bl);
      bb = th.sub(al);
      DoubleVector tl = al.sub(th.sub(bb)).add(bl.sub(bb));
      DoubleVector c = ul.add(th);
      DoubleVector vh = uh.add(c);
      DoubleVector vl = c.sub(vh.sub(uh));
      DoubleVector w = tl.add(vl);
      DoubleVector rh = vh.add(w);
      rh.intoArray(sh, s0 + r);
      w.sub(rh.sub(vh)).intoArray(sl, s0 + r);
    }
    return r;
  }
}
