package parreg.solver;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * The statistics pass on the CPU: {@link GramOrder} over one partition, split into independent
 * tasks and combined so that the bits equal {@link ReferenceGramPass} at every thread count.
 *
 * <p>A task is one <i>panel</i> (consecutive rows of the packed triangle, {@value #PANEL_ENTRIES}
 * entries at most unless one row has more) times one <i>block</i> of {@code 2^b} consecutive tiles
 * starting at a multiple of {@code 2^b}: such a block is a complete subtree of the order's tree
 * (the last block the same partial subtree the order gives). Inside a task each tile is packed
 * sample-major, its tile values computed by {@link VectorTiles} (or {@link ScalarTiles}), and
 * pushed onto a binary counter of partial sums, which merges two equal-sized neighbours exactly
 * where the level-by-level tree does; at the end the counter's levels are folded from the smallest
 * up, which is how the level-by-level tree finishes an incomplete run. The blocks' values are then
 * combined by {@link GramOrder#pairwise}. The block size only balances the work; it does not change
 * the bits.
 */
public final class GramPass {
  /** System property: {@code false} turns the SIMD lanes off (same bits, slower). */
  public static final String VECTOR_PROPERTY = "parreg.cpu.vector";

  /**
   * Entries of the triangle per task at most (but at least one row): bounds a task's working set
   * (its partial sums hold a few times this many double-doubles) at large d.
   */
  static final int PANEL_ENTRIES = 1 << 16;

  /** Whether the SIMD path runs: the module is present, not turned off, and its self-check held. */
  public static final boolean VECTOR_AVAILABLE = probeVector();

  private GramPass() {}

  /** The statistics of one partition on {@code threads} threads (SIMD where available). */
  public static GramStats compute(ColumnData data, int threads) {
    return compute(data, threads, VECTOR_AVAILABLE);
  }

  /** As {@link #compute(ColumnData, int)}; {@code vector} false forces the plain loops. */
  static GramStats compute(ColumnData data, int threads, boolean vector) {
    return compute(data, threads, vector, PANEL_ENTRIES);
  }

  /**
   * As {@link #compute(ColumnData, int, boolean)} with another panel budget (tests: many panels).
   */
  static GramStats compute(ColumnData data, int threads, boolean vector, int panelEntries) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1: " + threads);
    }
    if (vector && !VECTOR_AVAILABLE) {
      throw new IllegalArgumentException("the SIMD path is not available");
    }
    int n = data.samples();
    int m = GramOrder.columns(data.features());
    int entries = GramOrder.entries(m);
    int tiles = GramOrder.tiles(n);
    int[] rows = panelRows(m, panelEntries);
    int panels = rows.length - 1;
    int wantBlocks = Math.max(1, (4 * threads + panels - 1) / panels);
    int log = 0;
    while (((tiles - 1) >> log) + 1 > wantBlocks && (1 << log) < tiles) {
      log++;
    }
    int blockLog = log;
    int blocks = tiles == 0 ? 1 : ((tiles - 1) >> blockLog) + 1;
    double[][] blockHi = new double[panels][];
    double[][] blockLo = new double[panels][];
    int[] base = new int[panels + 1];
    for (int p = 0; p < panels; p++) {
      base[p] = GramOrder.index(rows[p], rows[p], m);
    }
    base[panels] = entries;
    for (int p = 0; p < panels; p++) {
      int count = base[p + 1] - base[p];
      blockHi[p] = new double[blocks * count];
      blockLo[p] = new double[blocks * count];
    }
    Parallel.run(
        threads,
        panels * blocks,
        t -> {
          int p = t / blocks;
          int q = t % blocks;
          int r0 = rows[p];
          int r1 = rows[p + 1];
          int count = base[p + 1] - base[p];
          new Task(data, vector, m, r0, r1, base[p], count)
              .run(q << blockLog, Math.min(tiles, (q + 1) << blockLog), blockLog)
              .copyTo(blockHi[p], blockLo[p], q * count);
        });
    double[] hi = new double[entries];
    double[] lo = new double[entries];
    for (int p = 0; p < panels; p++) {
      int count = base[p + 1] - base[p];
      GramOrder.pairwise(blockHi[p], blockLo[p], blocks, count, 0, count);
      System.arraycopy(blockHi[p], 0, hi, base[p], count);
      System.arraycopy(blockLo[p], 0, lo, base[p], count);
    }
    return new GramStats(data.features(), data.dataBits(), n, hi, lo);
  }

  /**
   * Panel boundaries: rows {@code [rows[p], rows[p + 1])}, each panel within the budget where a row
   * allows, cut only at multiples of 4 (the SIMD register block's rows).
   */
  static int[] panelRows(int m, int budget) {
    int[] rows = new int[m + 1];
    int panels = 0;
    int entries = 0;
    for (int j = 0; j < m; j++) {
      if (j > 0 && j % 4 == 0 && entries + 4 * (m - j) > budget) {
        rows[++panels] = j;
        entries = 0;
      }
      entries += m - j;
    }
    rows[++panels] = m;
    return java.util.Arrays.copyOf(rows, panels + 1);
  }

  /** One panel over one block of tiles. */
  private static final class Task {
    private final ColumnData data;
    private final boolean vector;
    private final boolean binary32;
    private final int m;
    private final int r0;
    private final int r1;
    private final int base;
    private final int count;
    private double[] resultHi;
    private double[] resultLo;

    Task(ColumnData data, boolean vector, int m, int r0, int r1, int base, int count) {
      this.data = data;
      this.vector = vector;
      this.binary32 = data.dataBits() == 32;
      this.m = m;
      this.r0 = r0;
      this.r1 = r1;
      this.base = base;
      this.count = count;
    }

    /** Reduces tiles {@code [t0, t1)}, an aligned block of at most {@code 2^log} tiles. */
    Task run(int t0, int t1, int log) {
      int lanes = vector ? VectorTiles.lanes() : 0;
      int blocks = vector ? VectorTiles.blocks(m) : 0;
      double[] buf = new double[GramOrder.TILE * (vector ? lanes * blocks : m)];
      if (vector) {
        data.initBlocks(buf, lanes, blocks);
      }
      double[][] levelHi = new double[log + 1][];
      double[][] levelLo = new double[log + 1][];
      boolean[] full = new boolean[log + 1];
      double[] th = new double[count];
      double[] tl = new double[count];
      int n = data.samples();
      for (int t = t0; t < t1; t++) {
        int i0 = t * GramOrder.TILE;
        int len = Math.min(GramOrder.TILE, n - i0);
        if (vector) {
          data.packBlocks(i0, len, buf, lanes);
        } else {
          data.pack(i0, len, buf, m);
        }
        tileValues(buf, m, len, th, tl);
        int level = 0;
        while (full[level]) { // the left neighbour of equal size: merge, left operand first
          addInto(levelHi[level], levelLo[level], th, tl);
          full[level] = false;
          level++;
        }
        double[] spareHi = levelHi[level] != null ? levelHi[level] : new double[count];
        double[] spareLo = levelLo[level] != null ? levelLo[level] : new double[count];
        levelHi[level] = th;
        levelLo[level] = tl;
        full[level] = true;
        th = spareHi;
        tl = spareLo;
      }
      // fold: the smallest partial sum is the rightmost; each larger one is its left operand
      resultHi = null;
      for (int level = 0; level <= log; level++) {
        if (!full[level]) {
          continue;
        }
        if (resultHi == null) {
          resultHi = levelHi[level];
          resultLo = levelLo[level];
          continue;
        }
        addInto(levelHi[level], levelLo[level], resultHi, resultLo);
      }
      if (resultHi == null) { // no tiles: the empty sum
        resultHi = new double[count];
        resultLo = new double[count];
      }
      return this;
    }

    private void addInto(double[] ah, double[] al, double[] bh, double[] bl) {
      if (vector) {
        VectorTiles.addInto(ah, al, bh, bl, count);
      } else {
        ScalarTiles.addInto(ah, al, bh, bl, count);
      }
    }

    private void tileValues(double[] buf, int stride, int len, double[] th, double[] tl) {
      if (binary32) {
        if (vector) {
          VectorTiles.binary32(buf, len, m, r0, r1, base, th);
        } else {
          ScalarTiles.binary32(buf, stride, len, m, r0, r1, base, th);
        }
        Arrays.fill(tl, +0.0);
      } else if (vector) {
        VectorTiles.binary64(buf, len, m, r0, r1, base, th, tl);
      } else {
        ScalarTiles.binary64(buf, stride, len, m, r0, r1, base, th, tl);
      }
    }

    void copyTo(double[] hi, double[] lo, int at) {
      System.arraycopy(resultHi, 0, hi, at, count);
      System.arraycopy(resultLo, 0, lo, at, count);
    }
  }

  /**
   * Whether this JVM compiles hot code with C2, the compiler that turns Vector API calls into SIMD
   * instructions. Under C1 only ({@code -XX:TieredStopAtLevel=1..3}) or the interpreter the lanes
   * run as Java objects: {@code GramPassBench --n 20000 --d 64 --bits 64} took 37 s there against
   * 0.21 s under C2 and 1.6 s for the plain loop under C1 (2 cores, 2026-12-04), so the plain loop
   * runs instead (same bits).
   */
  static boolean optimizingJit() {
    boolean tiered = true;
    int stopAt = 4;
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.equals("-Xint")) {
        return false;
      } else if (a.equals("-XX:-TieredCompilation")) {
        tiered = false;
      } else if (a.equals("-XX:+TieredCompilation")) {
        tiered = true;
      } else if (a.startsWith("-XX:TieredStopAtLevel=")) {
        try {
          stopAt = Integer.parseInt(a.substring("-XX:TieredStopAtLevel=".length()).trim());
        } catch (NumberFormatException e) {
          stopAt = 4; // the JVM would not have started with it
        }
      }
    }
    return !tiered || stopAt >= 4;
  }

  private static boolean probeVector() {
    if (!Boolean.parseBoolean(System.getProperty(VECTOR_PROPERTY, "true"))) {
      return false;
    }
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty() || !optimizingJit()) {
      return false;
    }
    try {
      return VectorCheck.agrees();
    } catch (LinkageError e) {
      return false;
    }
  }
}
