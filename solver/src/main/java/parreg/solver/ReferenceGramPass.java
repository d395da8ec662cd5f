package parreg.solver;

/**
 * {@link GramOrder} written out literally, one entry and one sample at a time: every tile value,
 * then the level-by-level tree over them. Slow and memory-hungry (all tile values at once); the
 * oracle that {@link GramPass} and any device backend are checked against.
 */
public final class ReferenceGramPass {
  private ReferenceGramPass() {}

  public static GramStats compute(ColumnData data) {
    int n = data.samples();
    int m = GramOrder.columns(data.features());
    int entries = GramOrder.entries(m);
    int tiles = GramOrder.tiles(n);
    boolean binary32 = data.dataBits() == 32;
    int count = Math.max(tiles, 1);
    double[] hi = new double[count * entries];
    double[] lo = new double[count * entries];
    double[] out = new double[2];
    for (int t = 0; t < tiles; t++) {
      int begin = t * GramOrder.TILE;
      int end = Math.min(begin + GramOrder.TILE, n);
      for (int j = 0; j < m; j++) {
        for (int k = j; k < m; k++) {
          int e = t * entries + GramOrder.index(j, k, m);
          if (binary32) {
            double acc = +0.0;
            for (int i = begin; i < end; i++) {
              acc = acc + data.value(j, i) * data.value(k, i);
            }
            hi[e] = acc;
            lo[e] = +0.0;
          } else {
            double ah = +0.0;
            double al = +0.0;
            for (int i = begin; i < end; i++) {
              double a = data.value(j, i);
              double b = data.value(k, i);
              double p = a * b;
              DoubleDouble.add(ah, al, p, DoubleDouble.twoProdErr(a, b, p), out);
              ah = out[0];
              al = out[1];
            }
            hi[e] = ah;
            lo[e] = al;
          }
        }
      }
    }
    GramOrder.pairwise(hi, lo, tiles, entries, 0, entries);
    double[] h = java.util.Arrays.copyOf(hi, entries);
    double[] l = java.util.Arrays.copyOf(lo, entries);
    return new GramStats(data.features(), data.dataBits(), n, h, l);
  }
}
