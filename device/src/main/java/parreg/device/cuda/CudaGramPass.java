package parreg.device.cuda;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static parreg.device.cuda.CudaCard.run;

import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import parreg.device.ExactStep;
import parreg.device.KernelBackend;
import parreg.device.LocalSums;
import parreg.solver.GramOrder;
import parreg.solver.GramStats;

/**
 * The exact solver's statistics pass on the card ({@link GramOrder}, binary32 rule), over the
 * partition {@link CudaBackend} keeps resident, with the bits of {@link
 * parreg.solver.ReferenceGramPass}: gram_stats.cu's {@code gram_tiles_o} (a block per patch of 4 x
 * 4 cells of the packed triangle and aligned block of {@code 2^blockLog} tiles), then {@code
 * gram_tree_o} over the blocks' values in groups of {@value #GROUP} until one value an entry is
 * left, then the triangle's high and low parts come back into pinned memory behind an event.
 *
 * <p>Patches: where the triangle has at most {@value #ONE_PATCH_CELLS} cell rows ({@code d <= 86})
 * one patch holds all its cells (one block column, the partition's columns read once a block);
 * otherwise strips of 16 cell rows, a triangular patch on the diagonal and 16 x 16 cells off it.
 * The block size of tiles only spreads the work (as few tiles a block as keep the grid within
 * {@value #BLOCKS_PER_SM} blocks an SM: many waves, a short last one, few block values to reduce);
 * no bit depends on it, on the patches or on the card.
 */
final class CudaGramPass implements AutoCloseable {
  /** The module of the statistics kernels, loaded beside the local sums'. */
  static final String PTX_RESOURCE = "/parreg/kernels/gram_stats.ptx";

  /** Cell rows up to which one patch holds the whole triangle (its cells fit 256 threads). */
  static final int ONE_PATCH_CELLS = 22;

  /** Cell rows of a strip where the triangle takes several patches. */
  static final int STRIP = 16;

  /** Values a tree block reduces (log2: 5). */
  static final int GROUP = 32;

  private static final int GROUP_LOG = 5;

  /** The most tiles a block of gram_tiles_o reduces (its counter's levels, GS_LEVELS - 1). */
  static final int MAX_BLOCK_LOG = 12;

  /** Blocks an SM the choice of blockLog allows at most (many waves: a short last one). */
  static final int BLOCKS_PER_SM = 64;

  private final CudaCard card;
  private final CUstream stream;
  private final int d;
  private final long n;
  private final int entries;
  private final int tiles;
  private final int blockLog;
  private final int blocks;
  private final int blockThreads;
  private final int smem;
  private final int patchCount;
  private final CUfunction tilesFn;
  private final CUfunction treeFn;
  private final Pointer common;
  private final CUdeviceptr dPatches;
  private final CUdeviceptr[] dHi = new CUdeviceptr[2];
  private final CUdeviceptr[] dLo = new CUdeviceptr[2];
  private final Pointer hResult = new Pointer();
  private final DoubleBuffer hResultView;
  private final CUevent evBegin = new CUevent();
  private final CUevent evEnd = new CUevent();
  private final List<CUdeviceptr> allocated = new ArrayList<>();
  private boolean hostAllocated;
  private boolean closed;

  /**
   * Prepares the pass over the resident partition: x at {@code dX} in {@code layout}, y at {@code
   * dY}, {@code n} samples of {@code d} features; kernels from {@code card}, launched on {@code
   * stream}.
   */
  CudaGramPass(
      CudaCard card,
      CUstream stream,
      CUdeviceptr dX,
      CUdeviceptr dY,
      long n,
      int d,
      ResidentLayout layout) {
    this.card = card;
    this.stream = stream;
    this.d = d;
    this.n = n;
    int m = GramOrder.columns(d);
    this.entries = GramOrder.entries(m);
    this.tiles = GramOrder.tiles(n);
    List<int[]> patches = patches(m);
    this.patchCount = patches.size();
    int cr = (m + 3) / 4;
    this.blockThreads = blockThreads(cr);
    this.smem = sharedBytes(cr);
    this.blockLog = blockLog(patchCount, tiles, card.smCount);
    this.blocks = tiles == 0 ? 0 : ((tiles - 1) >> blockLog) + 1;
    tilesFn = card.function("gram_tiles_o");
    treeFn = card.function("gram_tree_o");
    try {
      run(
          cuFuncSetAttribute(
              tilesFn, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
          "cuFuncSetAttribute(gram_tiles_o)");
      int[] packed = new int[4 * patchCount];
      for (int i = 0; i < patchCount; i++) {
        System.arraycopy(patches.get(i), 0, packed, 4 * i, 4);
      }
      dPatches = alloc(4L * packed.length);
      run(cuMemcpyHtoD(dPatches, Pointer.to(packed), 4L * packed.length), "cuMemcpyHtoD(patches)");
      // the blocks' values, then the tree's levels alternately in the second buffer (a group's
      // values each) and the first
      long[] values = {
        8L * entries * Math.max(1, blocks), 8L * entries * ((blocks + GROUP - 1) / GROUP)
      };
      for (int b = 0; b < 2; b++) {
        dHi[b] = alloc(values[b]);
        dLo[b] = alloc(values[b]);
      }
      run(cuMemAllocHost(hResult, 16L * entries), "cuMemAllocHost(statistics)");
      hostAllocated = true;
      hResultView =
          hResult.getByteBuffer(0, 16L * entries).order(ByteOrder.nativeOrder()).asDoubleBuffer();
      run(cuEventCreate(evBegin, 0), "cuEventCreate");
      run(cuEventCreate(evEnd, 0), "cuEventCreate");
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    common =
        Pointer.to(
            Pointer.to(dX),
            Pointer.to(dY),
            Pointer.to(new long[] {n}),
            Pointer.to(new int[] {d}),
            Pointer.to(new int[] {layout.sliceFeatures()}),
            Pointer.to(new int[] {layout.quadLog()}),
            Pointer.to(new int[] {layout.groupLog()}),
            Pointer.to(dPatches),
            Pointer.to(new int[] {blockLog}),
            Pointer.to(new int[] {tiles}),
            Pointer.to(dHi[0]),
            Pointer.to(dLo[0]));
  }

  /**
   * The patches of a triangle of {@code m} columns, each {first cell row, first cell column, cell
   * rows, cell columns}; a diagonal patch has first row = first column.
   */
  static List<int[]> patches(int m) {
    int cr = (m + 3) / 4;
    List<int[]> p = new ArrayList<>();
    if (cr <= ONE_PATCH_CELLS) {
      p.add(new int[] {0, 0, cr, cr});
      return p;
    }
    for (int i = 0; STRIP * i < cr; i++) {
      for (int j = i; STRIP * j < cr; j++) {
        p.add(
            new int[] {
              STRIP * i, STRIP * j, Math.min(STRIP, cr - STRIP * i), Math.min(STRIP, cr - STRIP * j)
            });
      }
    }
    return p;
  }

  /**
   * Threads a block for {@code cr} cell rows: a thread a cell, and enough that a slice's column
   * quads take at most 4 each (gram_stats.cuh GS_UNITS).
   */
  static int blockThreads(int cr) {
    if (cr > ONE_PATCH_CELLS) {
      return 256;
    }
    int cells = cr * (cr + 1) / 2;
    return Math.min(256, Math.max(round32(cells), round32(8 * cr)));
  }

  /**
   * Whether a block's shared memory fits a card that allows {@code smemOptin} bytes a block (the
   * patches of d > 86 need 66 KB: not on compute capability 7.x, whose blocks get at most 64 KB).
   */
  static boolean fits(int d, int smemOptin) {
    return sharedBytes((GramOrder.columns(d) + 3) / 4) <= smemOptin;
  }

  /** Dynamic shared memory: two slice buffers of the widest patch's columns in binary64. */
  static int sharedBytes(int cr) {
    int doubles =
        cr <= ONE_PATCH_CELLS ? 32 * (4 * cr + 2) : 32 * ((4 * STRIP + 2) + (4 * STRIP + 2));
    return 2 * 8 * doubles;
  }

  /**
   * log2 of the tiles a block reduces: the smallest that leaves at most {@value #BLOCKS_PER_SM}
   * blocks an SM (fewer block values to write and reduce), at most {@value #MAX_BLOCK_LOG}.
   */
  static int blockLog(int patches, int tiles, int smCount) {
    int log = 0;
    long target = (long) BLOCKS_PER_SM * smCount;
    while (log < MAX_BLOCK_LOG && (long) patches * (((tiles - 1L) >> log) + 1) > target) {
      log++;
    }
    return log;
  }

  private static int round32(int v) {
    return (v + 31) / 32 * 32;
  }

  private CUdeviceptr alloc(long bytes) {
    CUdeviceptr ptr = new CUdeviceptr();
    run(cuMemAlloc(ptr, Math.max(bytes, 16)), "cuMemAlloc(" + bytes + " bytes)");
    allocated.add(ptr);
    return ptr;
  }

  /**
   * Enqueues the pass on the stream and returns its fence; {@code retired} runs once its result has
   * been read (the backend's one-launch-at-a-time bookkeeping).
   */
  KernelBackend.Launch launch(Runnable retired) {
    card.makeCurrent();
    run(cuEventRecord(evBegin, stream), "cuEventRecord");
    int src = 0;
    if (blocks > 0) {
      run(
          cuLaunchKernel(
              tilesFn, patchCount, blocks, 1, blockThreads, 1, 1, smem, stream, common, null),
          "cuLaunchKernel(gram_tiles_o)");
      int count = blocks;
      while (count > 1) {
        int groups = ((count - 1) >> GROUP_LOG) + 1;
        Pointer args =
            Pointer.to(
                Pointer.to(dHi[src]),
                Pointer.to(dLo[src]),
                Pointer.to(dHi[1 - src]),
                Pointer.to(dLo[1 - src]),
                Pointer.to(new int[] {count}),
                Pointer.to(new int[] {GROUP_LOG}),
                Pointer.to(new long[] {entries}));
        run(
            cuLaunchKernel(
                treeFn, (entries + 127) / 128, groups, 1, 128, 1, 1, 0, stream, args, null),
            "cuLaunchKernel(gram_tree_o)");
        src = 1 - src;
        count = groups;
      }
      run(
          cuMemcpyDtoHAsync(hResult, dHi[src], 8L * entries, stream),
          "cuMemcpyDtoHAsync(statistics)");
      run(
          cuMemcpyDtoHAsync(hResult.withByteOffset(8L * entries), dLo[src], 8L * entries, stream),
          "cuMemcpyDtoHAsync(statistics)");
    }
    run(cuEventRecord(evEnd, stream), "cuEventRecord");
    return new GramLaunch(retired);
  }

  /** The fence of one pass: the event recorded after the result's copy. */
  private final class GramLaunch implements KernelBackend.Launch {
    private final Runnable retired;
    private LocalSums result;
    private double millis = Double.NaN;

    GramLaunch(Runnable retired) {
      this.retired = retired;
    }

    @Override
    public boolean isRetired() {
      if (result != null) {
        return true;
      }
      card.makeCurrent();
      int rc = cuEventQuery(evEnd);
      if (rc == CUresult.CUDA_ERROR_NOT_READY) {
        return false;
      }
      run(rc, "cuEventQuery");
      return true;
    }

    @Override
    public LocalSums await() {
      if (result != null) {
        return result;
      }
      card.makeCurrent();
      run(cuEventSynchronize(evEnd), "cuEventSynchronize");
      double[] hi = new double[entries];
      double[] lo = new double[entries];
      if (blocks > 0) {
        hResultView.get(0, hi);
        hResultView.get(entries, lo);
      }
      float[] ms = {0f};
      run(cuEventElapsedTime(ms, evBegin, evEnd), "cuEventElapsedTime");
      millis = ms[0];
      result = ExactStep.contribution(new GramStats(d, 32, n, hi, lo));
      retired.run();
      return result;
    }

    /** Kernels and the result's copy, by the device's events. */
    @Override
    public double deviceMillis() {
      return millis;
    }
  }

  /** The tiles' block size chosen (log2), for the benchmark's report. */
  int blockLog() {
    return blockLog;
  }

  int patchCount() {
    return patchCount;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (CUdeviceptr p : allocated) {
      cuMemFree(p);
    }
    if (hostAllocated) {
      cuMemFreeHost(hResult);
    }
    cuEventDestroy(evBegin);
    cuEventDestroy(evEnd);
  }
}
