package parreg.solver;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The tile rule of {@link GramOrder} in SIMD lanes (the incubating Vector API of JDK 17; the JVM
 * needs {@code --add-modules jdk.incubator.vector}): a lane is one entry {@code (j, k)}, and it
 * does exactly what {@link ScalarTiles} does for that entry, sample after sample in index order.
 * The tile is packed in column blocks of {@code L} (the vector's lanes) columns, sample-major
 * inside a block ({@link ColumnData#packBlocks}): column {@code c} of sample {@code i} at {@code (c
 * / L) T L + i L + c % L}. Vectors run along {@code k}, so a register block of 4 rows by 2 vectors
 * of columns is 8 (or 4 double-double) independent accumulators per sample. In the binary32 rule
 * the lane update is one fused multiply-add, which has the bits of {@code acc + a * b} because the
 * product is exact. Columns and rows past the triangle are computed from the packed zeros and
 * discarded. Row ranges start at multiples of 4 ({@link GramPass#panelRows}), so a register block's
 * 4 rows lie in one column block. Without the module this class is never loaded.
 */
final class VectorTiles {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;
  private static final int L = S.length();
  private static final int R = 4;

  private VectorTiles() {}

  /** Column blocks of a packed tile of {@code m} columns: room for the widest register block. */
  static int blocks(int m) {
    return (m + L - 1) / L + 2;
  }

  /** Lanes of a vector. */
  static int lanes() {
    return L;
  }

  static void binary32(double[] buf, int len, int m, int r0, int r1, int base, double[] th) {
    int tl = GramOrder.TILE * L;
    double[] tmp = new double[R * 2 * L];
    for (int j0 = r0; j0 < r1; j0 += R) {
      for (int k0 = (j0 / L) * L; k0 < m; k0 += 2 * L) {
        if (m - k0 <= L) { // the last columns fit one vector: a block of 4 rows by 1 vector
          edge32(buf, len, j0, k0, m, r1, base, th, tmp);
          continue;
        }
        DoubleVector c00 = DoubleVector.zero(S);
        DoubleVector c01 = c00;
        DoubleVector c10 = c00;
        DoubleVector c11 = c00;
        DoubleVector c20 = c00;
        DoubleVector c21 = c00;
        DoubleVector c30 = c00;
        DoubleVector c31 = c00;
        int ob = (k0 / L) * tl;
        int oa = (j0 / L) * tl + j0 % L;
        for (int i = 0; i < len; i++) {
          int ii = i * L;
          DoubleVector b0 = DoubleVector.fromArray(S, buf, ob + ii);
          DoubleVector b1 = DoubleVector.fromArray(S, buf, ob + tl + ii);
          DoubleVector a = DoubleVector.broadcast(S, buf[oa + ii]);
          c00 = a.fma(b0, c00);
          c01 = a.fma(b1, c01);
          a = DoubleVector.broadcast(S, buf[oa + ii + 1]);
          c10 = a.fma(b0, c10);
          c11 = a.fma(b1, c11);
          a = DoubleVector.broadcast(S, buf[oa + ii + 2]);
          c20 = a.fma(b0, c20);
          c21 = a.fma(b1, c21);
          a = DoubleVector.broadcast(S, buf[oa + ii + 3]);
          c30 = a.fma(b0, c30);
          c31 = a.fma(b1, c31);
        }
        int w = 2 * L;
        c00.intoArray(tmp, 0);
        c01.intoArray(tmp, L);
        c10.intoArray(tmp, w);
        c11.intoArray(tmp, w + L);
        c20.intoArray(tmp, 2 * w);
        c21.intoArray(tmp, 2 * w + L);
        c30.intoArray(tmp, 3 * w);
        c31.intoArray(tmp, 3 * w + L);
        scatter(tmp, null, w, j0, k0, m, r1, base, th, null);
      }
    }
  }

  /**
   * The binary32 rule for rows {@code j0 .. j0+3} and the one vector of columns from {@code k0}.
   */
  private static void edge32(
      double[] buf, int len, int j0, int k0, int m, int r1, int base, double[] th, double[] tmp) {
    int tl = GramOrder.TILE * L;
    int ob = (k0 / L) * tl;
    int oa = (j0 / L) * tl + j0 % L;
    DoubleVector c0 = DoubleVector.zero(S);
    DoubleVector c1 = c0;
    DoubleVector c2 = c0;
    DoubleVector c3 = c0;
    for (int i = 0; i < len; i++) {
      int ii = i * L;
      DoubleVector b = DoubleVector.fromArray(S, buf, ob + ii);
      c0 = DoubleVector.broadcast(S, buf[oa + ii]).fma(b, c0);
      c1 = DoubleVector.broadcast(S, buf[oa + ii + 1]).fma(b, c1);
      c2 = DoubleVector.broadcast(S, buf[oa + ii + 2]).fma(b, c2);
      c3 = DoubleVector.broadcast(S, buf[oa + ii + 3]).fma(b, c3);
    }
    c0.intoArray(tmp, 0);
    c1.intoArray(tmp, L);
    c2.intoArray(tmp, 2 * L);
    c3.intoArray(tmp, 3 * L);
    scatter(tmp, null, L, j0, k0, m, r1, base, th, null);
  }

  /**
   * The binary64 rule. Per lane and sample: {@code p = a * b}, {@code e = fma(a, b, -p)}, then
   * {@link DoubleDouble#add} of {@code (p, e)} to the accumulator, operation for operation.
   */
  static void binary64(
      double[] buf, int len, int m, int r0, int r1, int base, double[] th, double[] tl) {
    double[] tmpH = new double[R * L];
    double[] tmpL = new double[R * L];
    int tile = GramOrder.TILE * L;
    for (int j0 = r0; j0 < r1; j0 += R) {
      for (int k0 = (j0 / L) * L; k0 < m; k0 += L) {
        int ob = (k0 / L) * tile;
        int oa = (j0 / L) * tile + j0 % L;
        DoubleVector h0 = DoubleVector.zero(S);
        DoubleVector l0 = h0;
        DoubleVector h1 = h0;
        DoubleVector l1 = h0;
        DoubleVector h2 = h0;
        DoubleVector l2 = h0;
        DoubleVector h3 = h0;
        DoubleVector l3 = h0;
        for (int i = 0; i < len; i++) {
          int ii = i * L;
          DoubleVector b = DoubleVector.fromArray(S, buf, ob + ii);
          DoubleVector a;
          DoubleVector p;
          DoubleVector e;
          DoubleVector sh;
          DoubleVector bb;
          DoubleVector sl;
          DoubleVector t;
          DoubleVector u;
          DoubleVector c;
          DoubleVector vh;
          DoubleVector vl;
          DoubleVector w;
          a = DoubleVector.broadcast(S, buf[oa + ii]);
          p = a.mul(b);
          e = a.fma(b, p.neg());
          sh = h0.add(p);
          bb = sh.sub(h0);
          sl = h0.sub(sh.sub(bb)).add(p.sub(bb));
          t = l0.add(e);
          bb = t.sub(l0);
          u = l0.sub(t.sub(bb)).add(e.sub(bb));
          c = sl.add(t);
          vh = sh.add(c);
          vl = c.sub(vh.sub(sh));
          w = u.add(vl);
          h0 = vh.add(w);
          l0 = w.sub(h0.sub(vh));
          a = DoubleVector.broadcast(S, buf[oa + ii + 1]);
          p = a.mul(b);
          e = a.fma(b, p.neg());
          sh = h1.add(p);
          bb = sh.sub(h1);
          sl = h1.sub(sh.sub(bb)).add(p.sub(bb));
          t = l1.add(e);
          bb = t.sub(l1);
          u = l1.sub(t.sub(bb)).add(e.sub(bb));
          c = sl.add(t);
          vh = sh.add(c);
          vl = c.sub(vh.sub(sh));
          w = u.add(vl);
          h1 = vh.add(w);
          l1 = w.sub(h1.sub(vh));
          a = DoubleVector.broadcast(S, buf[oa + ii + 2]);
          p = a.mul(b);
          e = a.fma(b, p.neg());
          sh = h2.add(p);
          bb = sh.sub(h2);
          sl = h2.sub(sh.sub(bb)).add(p.sub(bb));
          t = l2.add(e);
          bb = t.sub(l2);
          u = l2.sub(t.sub(bb)).add(e.sub(bb));
          c = sl.add(t);
          vh = sh.add(c);
          vl = c.sub(vh.sub(sh));
          w = u.add(vl);
          h2 = vh.add(w);
          l2 = w.sub(h2.sub(vh));
          a = DoubleVector.broadcast(S, buf[oa + ii + 3]);
          p = a.mul(b);
          e = a.fma(b, p.neg());
          sh = h3.add(p);
          bb = sh.sub(h3);
          sl = h3.sub(sh.sub(bb)).add(p.sub(bb));
          t = l3.add(e);
          bb = t.sub(l3);
          u = l3.sub(t.sub(bb)).add(e.sub(bb));
          c = sl.add(t);
          vh = sh.add(c);
          vl = c.sub(vh.sub(sh));
          w = u.add(vl);
          h3 = vh.add(w);
          l3 = w.sub(h3.sub(vh));
        }
        h0.intoArray(tmpH, 0);
        l0.intoArray(tmpL, 0);
        h1.intoArray(tmpH, L);
        l1.intoArray(tmpL, L);
        h2.intoArray(tmpH, 2 * L);
        l2.intoArray(tmpL, 2 * L);
        h3.intoArray(tmpH, 3 * L);
        l3.intoArray(tmpL, 3 * L);
        scatter(tmpH, tmpL, L, j0, k0, m, r1, base, th, tl);
      }
    }
  }

  /**
   * Stores a register block's lanes that lie in the triangle: row {@code j0 + r}, column {@code k0
   * + c} from {@code hi[r * w + c]} (and {@code lo}), for rows below {@code r1} and columns {@code
   * j <= k < m}.
   */
  private static void scatter(
      double[] hi,
      double[] lo,
      int w,
      int j0,
      int k0,
      int m,
      int r1,
      int base,
      double[] th,
      double[] tl) {
    for (int r = 0; r < R; r++) {
      int j = j0 + r;
      if (j >= r1) {
        break;
      }
      int from = Math.max(j, k0);
      int to = Math.min(m, k0 + w);
      if (from >= to) {
        continue;
      }
      int e = GramOrder.index(j, from, m) - base;
      System.arraycopy(hi, r * w + (from - k0), th, e, to - from);
      if (lo != null) {
        System.arraycopy(lo, r * w + (from - k0), tl, e, to - from);
      }
    }
  }

  /**
   * {@code (bh[e], bl[e]) = (ah[e], al[e]) + (bh[e], bl[e])} for {@code e < count}: {@link
   * DoubleDouble#add} lane by lane (the tail in scalar code, the same operations).
   */
  static void addInto(double[] ah, double[] al, double[] bh, double[] bl, int count) {
    int e = 0;
    for (; e + L <= count; e += L) {
      DoubleVector xh = DoubleVector.fromArray(S, ah, e);
      DoubleVector xl = DoubleVector.fromArray(S, al, e);
      DoubleVector yh = DoubleVector.fromArray(S, bh, e);
      DoubleVector yl = DoubleVector.fromArray(S, bl, e);
      DoubleVector sh = xh.add(yh);
      DoubleVector bb = sh.sub(xh);
      DoubleVector sl = xh.sub(sh.sub(bb)).add(yh.sub(bb));
      DoubleVector t = xl.add(yl);
      bb = t.sub(xl);
      DoubleVector u = xl.sub(t.sub(bb)).add(yl.sub(bb));
      DoubleVector c = sl.add(t);
      DoubleVector vh = sh.add(c);
      DoubleVector vl = c.sub(vh.sub(sh));
      DoubleVector w = u.add(vl);
      DoubleVector zh = vh.add(w);
      zh.intoArray(bh, e);
      w.sub(zh.sub(vh)).intoArray(bl, e);
    }
    double[] out = new double[2];
    for (; e < count; e++) {
      DoubleDouble.add(ah[e], al[e], bh[e], bl[e], out);
      bh[e] = out[0];
      bl[e] = out[1];
    }
  }
}
