package parreg.device;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fast CPU computation of one participant's local sums: the same bits as {@link
 * ReferenceKernel} (SPEC section 2, reduction order {@value ReductionOrder#VERSION}), computed with
 * unit-stride loops over the feature-major columns and split among a fixed pool of threads.
 *
 * <p>How it keeps the reference's bits:
 *
 * <ul>
 *   <li><b>Residuals.</b> For a block of consecutive samples, {@code r[i] = 0f}, then for each
 *       feature {@code j} in index order {@code r[i] = r[i] + w32[j] * x[j][i]}, then {@code + b32}
 *       (bias) and {@code - y[i]}. Each sample sees exactly the reference's operations in the
 *       reference's order, each rounded to binary32 separately (Java never contracts to FMA); the
 *       loop only runs across samples instead of across features, which is what vectorises.
 *   <li><b>Lanes.</b> A tile's 32 lane accumulators per coordinate are an array of 32 doubles;
 *       samples {@code c .. c+31} of a tile (c a multiple of 32) add one value to each lane, in
 *       chunk order, so lane {@code l} still adds samples {@code l, l+32, ...} in index order from
 *       {@code +0.0}. A tile may be processed in sub-blocks of any multiple of 32 samples (the lane
 *       accumulators persist across sub-blocks), which keeps the working set in cache without
 *       changing any lane's sequence of additions.
 *   <li><b>Tiles.</b> Lanes are combined by {@link ReductionOrder#pairwise}. The batch's tiles are
 *       cut into chunks of {@code 2^k} tiles aligned at multiples of {@code 2^k}; each chunk is a
 *       complete subtree of the tile tree (the last chunk, possibly short, is the subtree of its
 *       tiles with the same odd carries), so the threads reduce chunks independently and the
 *       calling thread combines the chunk sums with the same pairwise tree. The result does not
 *       depend on {@code k} or on the thread count ({@code FastCpuKernelTest} checks both).
 * </ul>
 *
 * <p>Two implementations of the inner loops, same bits: plain Java loops (the residual loop is
 * auto-vectorised by C2, but JDK 17's C2 does not vectorise the binary32-to-binary64 widening, so
 * the lane updates stay scalar), and {@code VectorLanes}, explicit 512-bit SIMD through the
 * incubating Vector API, used when {@link #VECTOR_AVAILABLE}. In the SIMD path the residuals of 64
 * samples are held in four registers while the features run in the inner loop; each sample still
 * sees the same operations in the same order. No path uses a fused multiply-add.
 *
 * <p>Thread safety: one {@code compute} at a time per instance (the backend's one-launch-in-flight
 * rule); the pool's threads are daemons and are stopped by {@link #close()}.
 */
public final class FastCpuKernel implements AutoCloseable {
  /** Target bytes of X per sub-block: small enough to be re-read from L1/L2. */
  private static final int SUB_BLOCK_BYTES = 128 * 1024;

  /**
   * Fewest samples per sub-block (a multiple of 32). At large d a sub-block of fewer samples reads
   * each feature row in runs too short for the hardware prefetcher (measured: d = 1024 ran at a
   * third of the speed with 32-sample sub-blocks).
   */
  private static final int MIN_SUB_BLOCK = 128;

  /**
   * Whether the explicit SIMD path ({@code VectorLanes}, on the incubating {@code
   * jdk.incubator.vector} module) can be used: the JVM was started with {@code --add-modules
   * jdk.incubator.vector}, the CPU has 512-bit vectors (AVX-512) and {@code
   * -Dparreg.cpu.vector=false} was not given. Otherwise the kernel runs the plain loops, which give
   * the same bits, more slowly.
   */
  public static final boolean VECTOR_AVAILABLE = probeVector();

  private final int threads;
  private final boolean vector;
  private final ExecutorService pool;

  /** A kernel with one thread per available processor. */
  public FastCpuKernel() {
    this(Runtime.getRuntime().availableProcessors());
  }

  /**
   * @param threads threads that compute (>= 1): the calling thread and a fixed pool of {@code
   *     threads - 1} daemon threads; 1 computes on the calling thread alone
   */
  public FastCpuKernel(int threads) {
    this(threads, VECTOR_AVAILABLE);
  }

  /**
   * @param threads worker threads (>= 1)
   * @param vector use the SIMD path (requires {@link #VECTOR_AVAILABLE}); false forces the plain
   *     loops (tests check both against the reference)
   */
  FastCpuKernel(int threads, boolean vector) {
    if (vector && !VECTOR_AVAILABLE) {
      throw new IllegalArgumentException("the jdk.incubator.vector module is not available");
    }
    this.vector = vector;
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    this.threads = threads;
    if (threads == 1) {
      this.pool = null;
    } else {
      AtomicInteger count = new AtomicInteger();
      ThreadFactory tf =
          r -> {
            Thread t = new Thread(r, "parreg-cpu-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
          };
      this.pool = Executors.newFixedThreadPool(threads - 1, tf);
    }
  }

  public int threads() {
    return threads;
  }

  /** "simd" or "scalar", with the thread count: for the backend's info line. */
  public String describe() {
    return (vector ? "simd (jdk.incubator.vector)" : "scalar loops")
        + ", "
        + threads
        + (threads == 1 ? " thread" : " threads");
  }

  private static boolean probeVector() {
    if (!Boolean.parseBoolean(System.getProperty("parreg.cpu.vector", "true"))) {
      return false;
    }
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      return false;
    }
    try {
      // VectorLanes uses 512-bit shapes; where the CPU has narrower vectors the Vector API would
      // fall back to slow Java code, so the plain loops are used instead.
      return VectorLanes.nativeWidthIs512() && VectorLanes.selfCheck();
    } catch (LinkageError | RuntimeException e) {
      return false;
    }
  }

  /** Same contract and same bits as {@link ReferenceKernel#compute}. */
  public LocalSums compute(Partition p, int start, int length, double[] params, boolean bias) {
    int tiles = ReductionOrder.tiles(Math.max(length, 0));
    int perChunk = Integer.highestOneBit(Math.max(1, tiles / (4 * threads)));
    return compute(p, start, length, params, bias, perChunk);
  }

  /**
   * As {@link #compute(Partition, int, int, double[], boolean)} with an explicit chunk size (tiles
   * per chunk, a power of two); the bits do not depend on it. Visible for tests.
   */
  LocalSums compute(
      Partition p, int start, int length, double[] params, boolean bias, int chunkTiles) {
    int d = p.features();
    if (params.length != RunContract.parameterCount(d, bias)) {
      throw new IllegalArgumentException(
          "expected "
              + RunContract.parameterCount(d, bias)
              + " parameters for d="
              + d
              + ", got "
              + params.length);
    }
    if (length < 1 || start < 0 || start > p.samples() - length) {
      throw new IllegalArgumentException(
          "batch ["
              + start
              + ", "
              + ((long) start + length)
              + ") outside partition of "
              + p.samples());
    }
    if (chunkTiles < 1 || Integer.bitCount(chunkTiles) != 1) {
      throw new IllegalArgumentException("chunk size must be a power of two, got " + chunkTiles);
    }
    float[] w32 = new float[d];
    for (int j = 0; j < d; j++) {
      w32[j] = (float) params[j];
    }
    float b32 = bias ? (float) params[d] : 0f;
    int tiles = ReductionOrder.tiles(length);
    int chunks = (tiles + chunkTiles - 1) / chunkTiles;
    double[][] chunkSums = new double[chunks][];

    if (pool == null || chunks == 1) {
      TileWorker w = new TileWorker(p, start, length, w32, b32, bias, chunkTiles, vector);
      for (int c = 0; c < chunks; c++) {
        chunkSums[c] = w.chunk(c);
      }
    } else {
      // The calling thread works too: threads - 1 pool workers plus the caller take chunks from
      // one counter; which thread computes a chunk does not change its bits.
      AtomicInteger next = new AtomicInteger();
      Runnable work =
          () -> {
            TileWorker w = new TileWorker(p, start, length, w32, b32, bias, chunkTiles, vector);
            for (int c = next.getAndIncrement(); c < chunks; c = next.getAndIncrement()) {
              chunkSums[c] = w.chunk(c);
            }
          };
      int helpers = Math.min(threads, chunks) - 1;
      List<Future<?>> fs = new ArrayList<>(helpers);
      for (int k = 0; k < helpers; k++) {
        fs.add(pool.submit(work));
      }
      RuntimeException failure = null;
      try {
        work.run();
      } catch (RuntimeException e) {
        failure = e;
      }
      for (Future<?> f : fs) {
        try {
          f.get();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while computing local sums", e);
        } catch (ExecutionException e) {
          throw new IllegalStateException("local sums failed: " + e.getCause(), e.getCause());
        }
      }
      if (failure != null) {
        throw failure;
      }
    }

    double[] column = new double[chunks];
    double[] s = new double[params.length];
    for (int k = 0; k < params.length; k++) { // d gradient coordinates, then the bias if any
      s[k] = combine(chunkSums, k, column);
    }
    double loss = combine(chunkSums, d + 1, column);
    return new LocalSums(s, loss, length);
  }

  /** Coordinate k of the chunk sums combined by the tile tree's upper levels. */
  private static double combine(double[][] chunkSums, int k, double[] column) {
    int chunks = chunkSums.length;
    for (int c = 0; c < chunks; c++) {
      column[c] = chunkSums[c][k];
    }
    return ReductionOrder.pairwise(column, chunks);
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }

  /** One thread's scratch and the per-tile computation. */
  private static final class TileWorker {
    private final float[] x;
    private final float[] y;
    private final int n;
    private final int d;
    private final int start;
    private final int length;
    private final float[] w32;
    private final float b32;
    private final boolean bias;
    private final int chunkTiles;
    private final int subBlock;
    private final boolean vector;
    private final float[] r = new float[ReductionOrder.TILE];

    /** Lane accumulators: coordinate k's 32 lanes at [32 k, 32 k + 32); k = d is bias, d+1 loss. */
    private final double[] acc;

    private final double[] lanes = new double[ReductionOrder.LANES];

    /** Tile sums of the current chunk: tile t's coordinate k at [t * coords + k]. */
    private final double[] tileSums;

    private final double[] column;

    TileWorker(
        Partition p,
        int start,
        int length,
        float[] w32,
        float b32,
        boolean bias,
        int chunkTiles,
        boolean vector) {
      this.vector = vector;
      this.x = p.featureMajor();
      this.y = p.targets();
      this.n = p.samples();
      this.d = p.features();
      this.start = start;
      this.length = length;
      this.w32 = w32;
      this.b32 = b32;
      this.bias = bias;
      int tiles = ReductionOrder.tiles(length);
      this.chunkTiles = Math.min(chunkTiles, tiles);
      int sb = (SUB_BLOCK_BYTES / (4 * d)) & ~(ReductionOrder.LANES - 1);
      this.subBlock = Math.max(MIN_SUB_BLOCK, Math.min(ReductionOrder.TILE, sb));
      this.acc = new double[(d + 2) * ReductionOrder.LANES];
      this.tileSums = new double[this.chunkTiles * (d + 2)];
      this.column = new double[this.chunkTiles];
    }

    /** The sums (d gradient coordinates, bias, loss) of chunk c: the pairwise tree of its tiles. */
    double[] chunk(int c) {
      int coords = d + 2;
      int tiles = ReductionOrder.tiles(length);
      int firstTile = c * chunkTiles;
      int count = Math.min(chunkTiles, tiles - firstTile);
      for (int t = 0; t < count; t++) {
        tile(firstTile + t, t * coords);
      }
      double[] out = new double[coords];
      for (int k = 0; k < coords; k++) {
        for (int t = 0; t < count; t++) {
          column[t] = tileSums[t * coords + k];
        }
        out[k] = ReductionOrder.pairwise(column, count);
      }
      return out;
    }

    /** Computes tile t's sums into tileSums[at .. at + d + 2). */
    private void tile(int t, int at) {
      java.util.Arrays.fill(acc, 0.0);
      int tileBegin = start + t * ReductionOrder.TILE;
      int tileEnd = Math.min(tileBegin + ReductionOrder.TILE, start + length);
      for (int s0 = tileBegin; s0 < tileEnd; s0 += subBlock) {
        int len = Math.min(subBlock, tileEnd - s0);
        residuals(s0, len);
        accumulate(s0, len);
      }
      int coords = d + 2;
      for (int k = 0; k < coords; k++) {
        System.arraycopy(acc, k * ReductionOrder.LANES, lanes, 0, ReductionOrder.LANES);
        tileSums[at + k] = ReductionOrder.pairwise(lanes, ReductionOrder.LANES);
      }
    }

    /** r[0..len) for samples s0..s0+len: features in index order, then bias, then minus y. */
    private void residuals(int s0, int len) {
      if (vector) {
        VectorLanes.residuals(x, n, d, w32, bias, b32, y, s0, len, r);
        return;
      }
      float[] r = this.r;
      float[] x = this.x;
      for (int i = 0; i < len; i++) {
        r[i] = 0f;
      }
      for (int j = 0; j < d; j++) {
        float wj = w32[j];
        int off = j * n + s0;
        for (int i = 0; i < len; i++) {
          r[i] = r[i] + wj * x[off + i];
        }
      }
      if (bias) {
        float b = b32;
        for (int i = 0; i < len; i++) {
          r[i] = r[i] + b;
        }
      }
      float[] y = this.y;
      for (int i = 0; i < len; i++) {
        r[i] = r[i] - y[s0 + i];
      }
    }

    /**
     * Adds the sub-block's widened per-sample values to the lane accumulators. The sub-block starts
     * at a multiple of 32 within its tile, so its sample c goes to lane c mod 32.
     */
    private void accumulate(int s0, int len) {
      final int lanesN = ReductionOrder.LANES;
      float[] r = this.r;
      float[] x = this.x;
      double[] acc = this.acc;
      int full = len & ~(lanesN - 1);
      int rest = len - full;
      for (int j = 0; j < d; j++) {
        int off = j * n + s0;
        int a = j * lanesN;
        if (vector) {
          VectorLanes.accumulate(r, x, off, full, acc, a);
        } else {
          for (int c = 0; c < full; c += lanesN) {
            for (int l = 0; l < lanesN; l++) {
              acc[a + l] = acc[a + l] + (double) (r[c + l] * x[off + c + l]);
            }
          }
        }
        for (int l = 0; l < rest; l++) {
          acc[a + l] = acc[a + l] + (double) (r[full + l] * x[off + full + l]);
        }
      }
      int ab = d * lanesN;
      int al = (d + 1) * lanesN;
      int c0 = 0;
      if (vector) {
        VectorLanes.biasAndLoss(r, full, bias, acc, ab, al);
        c0 = full;
      }
      for (int c = c0; c < len; c += lanesN) {
        int m = Math.min(lanesN, len - c);
        for (int l = 0; l < m; l++) {
          double rv = (double) r[c + l];
          if (bias) {
            acc[ab + l] = acc[ab + l] + rv;
          }
          acc[al + l] = acc[al + l] + rv * rv;
        }
      }
    }
  }
}
