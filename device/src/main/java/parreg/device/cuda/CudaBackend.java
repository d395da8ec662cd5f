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
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD32;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static parreg.device.cuda.CudaCard.check;
import static parreg.device.cuda.CudaCard.run;

import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.KernelBackend;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.Workers;

/**
 * The CUDA backend: loads a partition onto a {@link CudaCard}, launches the kernels of its {@link
 * CudaPlan} and fences each launch with an event.
 *
 * <p>Load: x is converted on the host into the layout the plan reads ({@link ResidentLayout}, in
 * parallel) in chunks, each written into one of two pinned staging buffers and copied to the card
 * asynchronously, so that converting a chunk overlaps copying the previous one; it stays resident.
 * Launch: only the binary32 parameters go up (rounded on the host, as step 1 of SPEC section 2
 * says), the plan's kernels run on one stream, a tree pass combines the tile sums ({@link
 * ReductionOrder}), the {@code d + 2} result values (gradient, bias sum, loss sum) come back into
 * pinned memory, and an event recorded after that copy is the launch's fence.
 *
 * <p>The exact solver's pass ({@link #launchStatistics}) runs on the host by default ({@link
 * #STATISTICS_PROPERTY}); with {@code card} it runs {@link CudaGramPass} over the same resident x
 * and y, on the same stream, fenced the same way.
 *
 * <p>{@link #openForBenchmark} opens the same backend with a forced plan, or with the unordered
 * (atomic) variants of the benchmark's comparison module, whose bits depend on scheduling; those
 * are never used for training.
 */
public final class CudaBackend implements KernelBackend {
  private static final int TREE_GROUP = 1024;

  /** Floats in the flow, quad and spec kernels' by-value weight parameter (WParam): w[256], b. */
  private static final int FLOW_WEIGHTS = 257;

  /** Bytes of one pinned staging buffer of the upload (two are used). */
  private static final long STAGE_BYTES = 32L << 20;

  /** The cards the driver reports, in ordinal order. */
  public static List<CudaCard.DeviceDescription> devices() throws BackendUnavailableException {
    return CudaCard.devices();
  }

  /**
   * Opens the card named by {@code device}: an ordinal ("0"), a UUID as nvidia-smi prints it
   * ("GPU-xxxxxxxx-xxxx-..."), or the same 32 hex digits bare (dashes optional).
   */
  public static KernelBackend open(String device) throws BackendUnavailableException {
    boolean card = cardStatistics();
    return new CudaBackend(
        device,
        card
            ? List.of(CudaCard.PTX_RESOURCE, CudaGramPass.PTX_RESOURCE)
            : List.of(CudaCard.PTX_RESOURCE),
        true,
        null,
        card);
  }

  /**
   * System property choosing where a node's exact-solver pass runs on this backend: {@code host}
   * (the default: the CPU backend's pass over the partition this backend keeps) or {@code card}
   * ({@link CudaGramPass}). Both give the same bits; the card's kernels are checked bit for bit by
   * host emulation ({@code scripts/check/kernel-emu/run-gram.sh}) and by {@code CudaGramParityTest}
   * on a card, and become the default once that test has passed on one.
   */
  public static final String STATISTICS_PROPERTY = "parreg.cuda.statistics";

  static boolean cardStatistics() {
    String where = System.getProperty(STATISTICS_PROPERTY, "host");
    return switch (where) {
      case "host" -> false;
      case "card" -> true;
      default ->
          throw new IllegalArgumentException(
              "-D" + STATISTICS_PROPERTY + " = " + where + ": host or card");
    };
  }

  /**
   * For the benchmark and the parity tests: the product's kernels plus the comparison module at
   * {@code comparisonPtx} (a class-path resource, or null); {@code ordered = false} runs the
   * unordered atomic variants; {@code plan} forces a plan ({@link CudaPlan#choose}; null: the
   * normal choice).
   */
  public static CudaBackend openForBenchmark(
      String device, String comparisonPtx, boolean ordered, String plan)
      throws BackendUnavailableException {
    List<String> ptx = new ArrayList<>(List.of(CudaCard.PTX_RESOURCE, CudaGramPass.PTX_RESOURCE));
    if (comparisonPtx != null) {
      ptx.add(comparisonPtx);
    }
    return new CudaBackend(device, ptx, ordered, plan, true);
  }

  private final CudaCard card;
  private final boolean ordered;
  private final boolean cardStatistics;
  private final String forcedPlan;
  private final BackendInfo info;
  private final CUstream stream = new CUstream();
  private final CUevent evBegin = new CUevent();
  private final CUevent evKernel = new CUevent();
  private final CUevent evKernelEnd = new CUevent();
  private final CUevent evEnd = new CUevent();
  private final Pointer hParams = new Pointer();
  private final Pointer hResult = new Pointer();
  private boolean closed;

  // ---- resident partition and per-launch state ----
  private Partition partition;
  private boolean bias;
  private int d;
  private int coords; // d + 2
  private CudaPlan plan;
  private CUfunction mainFn;
  private CUfunction fallbackFn;
  private CUfunction gradFn;
  private CUfunction treeFn;
  private int mainOccupancy;

  /** Blocks of the deep plan's gradient pass that fit on one SM. */
  private int gradOccupancy;

  /** specp: its fallback (the split kernel of d, for batches at offsets) and its blocks an SM. */
  private CudaPlan specpFallback;

  private int fallbackOccupancy;

  private final float[] hWeights =
      new float[FLOW_WEIGHTS]; // flow, quad, spec: w32 and b32, passed by value
  private CUdeviceptr dX;
  private CUdeviceptr dY;
  private CUdeviceptr dParams;

  /** The widel plans' weights, zero-padded to the slice width; null for every other plan. */
  private CUdeviceptr dWeights;

  /**
   * The widec plans: blocks a cluster, and the clusters resident at once (widecClusters); set at
   * load, so that a launch neither parses the plan's name nor reads a system property.
   */
  private int widecBlocks;

  private int widecMaxClusters;

  private CUdeviceptr dPartA;
  private CUdeviceptr dPartB;
  private CUdeviceptr dR;
  private FloatBuffer hParamsView;
  private DoubleBuffer hResultView;
  private boolean pending;

  /** The statistics pass over the resident partition, made at its first launch. */
  private CudaGramPass gram;

  private long launches;
  private double loadSeconds = Double.NaN;

  private CudaBackend(
      String device, List<String> ptx, boolean ordered, String forcedPlan, boolean cardStatistics)
      throws BackendUnavailableException {
    this.ordered = ordered;
    this.cardStatistics = cardStatistics;
    this.forcedPlan = forcedPlan;
    this.card = new CudaCard(device, ptx);
    try {
      check(cuStreamCreate(stream, 0), "cuStreamCreate");
      for (CUevent e : new CUevent[] {evBegin, evKernel, evKernelEnd, evEnd}) {
        check(cuEventCreate(e, 0), "cuEventCreate");
      }
      check(cuMemAllocHost(hParams, 4L * 8192), "cuMemAllocHost");
      check(cuMemAllocHost(hResult, 8L * 8192), "cuMemAllocHost");
    } catch (BackendUnavailableException | RuntimeException e) {
      card.close();
      throw e;
    }
    CudaCard.DeviceDescription dd = card.description;
    info =
        new BackendInfo(
            "cuda",
            dd.name(),
            dd.uuid(),
            "compute capability "
                + card.computeMajor
                + "."
                + card.computeMinor
                + ", "
                + card.smCount
                + " SMs, driver "
                + card.driverString()
                + ", device ordinal "
                + dd.ordinal()
                + ", kernels "
                + card.images
                + ", order "
                + ReductionOrder.VERSION
                + (ordered ? "" : ", UNORDERED atomic variant (benchmark only)"));
  }

  @Override
  public BackendInfo info() {
    return info;
  }

  /** The plan chosen at {@link #load} ("small-1", "spec-64", "twopass", ...). */
  public String plan() {
    return plan.name();
  }

  /** Seconds {@link #load} took (plan, allocation, conversion and upload), NaN before. */
  public double loadSeconds() {
    return loadSeconds;
  }

  @Override
  public void load(Partition p, boolean withBias) {
    ensureOpen();
    if (partition != null) {
      throw new IllegalStateException("the partition is already loaded");
    }
    long t0 = System.nanoTime();
    card.makeCurrent();
    if (p.features() > 8190) {
      throw new IllegalArgumentException(
          "the CUDA backend supports up to 8190 features, not " + p.features());
    }
    this.d = p.features();
    this.coords = d + 2;
    this.bias = withBias;
    int n = p.samples();
    int maxTiles = ReductionOrder.tiles(n);
    long slices = ResidentLayout.slices(n);
    plan =
        CudaPlan.choose(
            d, slices, card.smemOptin, card.freeMemory(), ordered, forcedPlan, card.hopper);
    mainFn = card.function(plan.main());
    fallbackFn = plan.fallback() == null ? null : card.function(plan.fallback());
    gradFn = plan.grad() == null ? null : card.function(plan.grad());
    treeFn = card.function("tree_pass");
    // Block-per-tile kernels use more dynamic shared memory than the default 48 KB allows; the
    // fallback kernel (flow, quad, spec) runs with the same allowance.
    for (CUfunction f :
        new CUfunction[] {mainFn, plan.kernelFamily().octets() ? null : fallbackFn}) {
      if (f != null && plan.smem() > 0) {
        run(
            cuFuncSetAttribute(
                f,
                CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                plan.smem()),
            "cuFuncSetAttribute");
      }
    }
    mainOccupancy = CudaCard.occupancy(mainFn, plan.block(), plan.smem());
    gradOccupancy = gradFn == null ? 0 : CudaCard.occupancy(gradFn, 256, 0);
    if (plan.kernelFamily() == KernelFamily.SPECP) {
      specpFallback = CudaPlan.specpFallback(d);
      fallbackOccupancy =
          CudaCard.occupancy(fallbackFn, specpFallback.block(), specpFallback.smem());
    }
    ResidentLayout layout = ResidentLayout.of(plan, d);
    dX = alloc(4L * layout.sliceFloats() * slices);
    dY = alloc(4L * n);
    upload(p, layout, slices);
    dParams = alloc(4L * (d + 1));
    if (plan.kernelFamily().paddedWeights()) {
      // the widel kernels read the weights zero-padded to the slice width (uploaded per launch)
      dWeights = alloc(4L * plan.sliceFeatures());
      run(cuMemsetD32(dWeights, 0, plan.sliceFeatures()), "cuMemsetD32(weights)");
    }
    if (plan.kernelFamily() == KernelFamily.WIDEC) {
      widecBlocks = WidePlans.widecCluster(plan);
      widecMaxClusters = widecClusters(widecBlocks);
    }
    dPartA = alloc(8L * coords * Math.max(1, maxTiles));
    dPartB = alloc(8L * coords * Math.max(1, (maxTiles + TREE_GROUP - 1) / TREE_GROUP));
    if (plan.grad() != null) {
      dR = alloc(4L * n);
    } else if (plan.kernelFamily().ticketed()) {
      dR = alloc(4L * n + 4L * (2 + maxTiles)); // the residuals, then deepf's counters
    }
    hParamsView =
        hParams.getByteBuffer(0, 4L * (d + 1)).order(ByteOrder.nativeOrder()).asFloatBuffer();
    hResultView =
        hResult.getByteBuffer(0, 8L * coords).order(ByteOrder.nativeOrder()).asDoubleBuffer();
    this.partition = p;
    loadSeconds = (System.nanoTime() - t0) / 1e9;
  }

  /**
   * Uploads x in the plan's layout, then y, through two pinned staging buffers: chunk k is
   * converted into buffer k % 2 (on all load threads) while the copy of chunk k - 1 runs; a buffer
   * is refilled only after the event recorded behind its last copy has passed.
   */
  private void upload(Partition p, ResidentLayout layout, long slices) {
    long sliceBytes = 4L * layout.sliceFloats();
    int chunkSlices = (int) Math.max(1, Math.min(slices, STAGE_BYTES / sliceBytes));
    long stageBytes = Math.max(chunkSlices * sliceBytes, Math.min(STAGE_BYTES, 4L * p.samples()));
    Pointer[] stage = {new Pointer(), new Pointer()};
    CUevent[] copied = {new CUevent(), new CUevent()};
    boolean[] made = new boolean[4]; // stage 0, stage 1, event 0, event 1
    int threads = Workers.defaultThreads();
    try {
      for (int b = 0; b < 2; b++) {
        run(cuMemAllocHost(stage[b], stageBytes), "cuMemAllocHost(staging)");
        made[b] = true;
        run(cuEventCreate(copied[b], 0), "cuEventCreate");
        made[2 + b] = true;
      }
      FloatBuffer[] views = new FloatBuffer[2];
      for (int b = 0; b < 2; b++) {
        views[b] =
            stage[b].getByteBuffer(0, stageBytes).order(ByteOrder.nativeOrder()).asFloatBuffer();
      }
      int k = 0;
      for (long s0 = 0; s0 < slices; s0 += chunkSlices, k++) {
        int b = k & 1;
        int cs = (int) Math.min(chunkSlices, slices - s0);
        if (k >= 2) {
          run(cuEventSynchronize(copied[b]), "cuEventSynchronize(staging)");
        }
        layout.fill(p, s0, cs, views[b], threads);
        run(
            cuMemcpyHtoDAsync(
                dX.withByteOffset(sliceBytes * s0), stage[b], sliceBytes * cs, stream),
            "cuMemcpyHtoDAsync(x)");
        run(cuEventRecord(copied[b], stream), "cuEventRecord");
      }
      float[] y = p.targets();
      int per = (int) (stageBytes / 4);
      for (int i0 = 0; i0 < y.length; i0 += per, k++) {
        int b = k & 1;
        int c = Math.min(per, y.length - i0);
        run(cuEventSynchronize(copied[b]), "cuEventSynchronize(staging)");
        views[b].put(0, y, i0, c);
        run(
            cuMemcpyHtoDAsync(dY.withByteOffset(4L * i0), stage[b], 4L * c, stream),
            "cuMemcpyHtoDAsync(y)");
        run(cuEventRecord(copied[b], stream), "cuEventRecord");
      }
      run(cuStreamSynchronize(stream), "cuStreamSynchronize(upload)");
    } finally {
      if (made[0] || made[1]) {
        cuStreamSynchronize(stream); // after a failure: no copy may still read a buffer freed here
      }
      for (int b = 0; b < 2; b++) {
        if (made[2 + b]) {
          cuEventDestroy(copied[b]);
        }
        if (made[b]) {
          cuMemFreeHost(stage[b]);
        }
      }
    }
  }

  private static CUdeviceptr alloc(long bytes) {
    CUdeviceptr ptr = new CUdeviceptr();
    run(cuMemAlloc(ptr, Math.max(bytes, 16)), "cuMemAlloc(" + bytes + " bytes)");
    return ptr;
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the CUDA backend is closed");
    }
  }

  @Override
  public CudaLaunch launch(double[] params, int start, int length) {
    ensureOpen();
    if (partition == null) {
      throw new IllegalStateException("launch before load");
    }
    if (pending) {
      throw new IllegalStateException("a launch is already in flight: await its fence first");
    }
    if (params.length != RunContract.parameterCount(d, bias)) {
      throw new IllegalArgumentException(
          "expected "
              + RunContract.parameterCount(d, bias)
              + " parameters for d="
              + d
              + ", got "
              + params.length);
    }
    if (length < 1 || start < 0 || (long) start + length > partition.samples()) {
      throw new IllegalArgumentException(
          "batch ["
              + start
              + ", "
              + ((long) start + length)
              + ") outside partition of "
              + partition.samples());
    }
    card.makeCurrent();
    // Step 1 of SPEC section 2: round to binary32 on the host (Java's cast: nearest, ties to even,
    // subnormals kept), upload only these.
    for (int j = 0; j < d; j++) {
      hParamsView.put(j, (float) params[j]);
    }
    hParamsView.put(d, bias ? (float) params[d] : 0f);
    if (plan.kernelFamily().weightsByValue()) {
      java.util.Arrays.fill(hWeights, 0f);
      for (int j = 0; j < d; j++) {
        hWeights[j] = hParamsView.get(j);
      }
      hWeights[FLOW_WEIGHTS - 1] = hParamsView.get(d);
    }
    run(cuEventRecord(evBegin, stream), "cuEventRecord");
    run(cuMemcpyHtoDAsync(dParams, hParams, 4L * (d + 1), stream), "cuMemcpyHtoDAsync(params)");
    if (dWeights != null) {
      run(cuMemcpyHtoDAsync(dWeights, hParams, 4L * d, stream), "cuMemcpyHtoDAsync(weights)");
    }
    run(cuEventRecord(evKernel, stream), "cuEventRecord");
    CUdeviceptr result = enqueue(start, length);
    run(cuEventRecord(evKernelEnd, stream), "cuEventRecord");
    run(cuMemcpyDtoHAsync(hResult, result, 8L * coords, stream), "cuMemcpyDtoHAsync(result)");
    run(cuEventRecord(evEnd, stream), "cuEventRecord");
    pending = true;
    launches++;
    return new CudaLaunch(length);
  }

  /**
   * Blocks of {@code warpsPerBlock} warps for kernels that take one unit of work (a tile, a slice)
   * per warp, round robin: no more than fit on the card at once, and as few as give every warp the
   * same number of rounds (at 5.1 rounds a warp, a sixth round for a tenth of the warps would leave
   * the card nine tenths idle for a sixth of the time).
   */
  private static int balancedGrid(long units, int warpsPerBlock, int fullBlocks) {
    long fullWarps = (long) fullBlocks * warpsPerBlock;
    long rounds = Math.max(1, (units + fullWarps - 1) / fullWarps);
    long warps = (units + rounds - 1) / rounds;
    return (int) Math.max(1, Math.min(fullBlocks, (warps + warpsPerBlock - 1) / warpsPerBlock));
  }

  /** Enqueues the kernels of the plan; returns the buffer whose first d+2 values are the result. */
  private CUdeviceptr enqueue(int start, int length) {
    int tiles = ReductionOrder.tiles(length);
    CUdeviceptr out = dPartA;
    if (!ordered) {
      run(cuMemsetD32Async(dPartA, 0, 2L * coords, stream), "cuMemsetD32Async");
    }
    plan.kernelFamily().enqueue(new Batch(start, length, tiles, out));
    if (!ordered) {
      return out;
    }
    CUdeviceptr src = dPartA;
    CUdeviceptr dst = dPartB;
    int count = tiles;
    while (count > 1) {
      int groups = (count + TREE_GROUP - 1) / TREE_GROUP;
      Pointer args =
          Pointer.to(
              Pointer.to(src),
              Pointer.to(dst),
              Pointer.to(new int[] {count}),
              Pointer.to(new int[] {groups}));
      launchKernel(treeFn, groups, coords, 512, 0, args);
      CUdeviceptr t = src;
      src = dst;
      dst = t;
      count = groups;
    }
    return src;
  }

  /** One batch's launch, as the plan's {@link KernelFamily} reads it. */
  private final class Batch implements KernelFamily.Batch {
    private final int start;
    private final int length;
    private final int tiles;
    private final CUdeviceptr out;
    private final Pointer common;

    Batch(int start, int length, int tiles, CUdeviceptr out) {
      this.start = start;
      this.length = length;
      this.tiles = tiles;
      this.out = out;
      this.common = kernelArgs(start, length, out, tiles, Pointer.to(dR == null ? dParams : dR));
    }

    @Override
    public CudaPlan plan() {
      return plan;
    }

    @Override
    public int d() {
      return d;
    }

    @Override
    public int start() {
      return start;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public int tiles() {
      return tiles;
    }

    @Override
    public int full() {
      return card.smCount * mainOccupancy;
    }

    @Override
    public int gradFull() {
      return card.smCount * gradOccupancy;
    }

    @Override
    public int smCount() {
      return card.smCount;
    }

    @Override
    public CUfunction main() {
      return mainFn;
    }

    @Override
    public CUfunction fallback() {
      return fallbackFn;
    }

    @Override
    public CUfunction grad() {
      return gradFn;
    }

    @Override
    public Pointer common() {
      return common;
    }

    @Override
    public Pointer byValue() {
      return weightArgs(start, length, tiles, out);
    }

    @Override
    public Pointer lean() {
      return kernelArgs(start, length, out, tiles, Pointer.to(dWeights));
    }

    @Override
    public CudaPlan specpFallback() {
      return specpFallback;
    }

    @Override
    public int fallbackFull() {
      return card.smCount * fallbackOccupancy;
    }

    @Override
    public int widecBlocks() {
      return widecBlocks;
    }

    @Override
    public int widecMaxClusters() {
      return widecMaxClusters;
    }

    @Override
    public void resetTickets() {
      run(
          cuMemsetD32Async(dR.withByteOffset(4L * partition.samples()), 0, 2L + tiles, stream),
          "cuMemsetD32Async(tickets)");
    }

    @Override
    public void launch(CUfunction f, int grid, int block, int smem, Pointer args) {
      launchKernel(f, grid, 1, block, smem, args);
    }

    @Override
    public void twoPasses(CUfunction resid, int grid) {
      CudaBackend.this.twoPasses(resid, grid, tiles, common);
    }

    @Override
    public int balanced(long units, int warpsPerBlock, int fullBlocks) {
      return balancedGrid(units, warpsPerBlock, fullBlocks);
    }
  }

  /** The arguments of the kernels that take the weights by value (flow, quad, spec, narrow). */
  private Pointer weightArgs(int start, int length, int tiles, CUdeviceptr out) {
    return kernelArgs(start, length, out, tiles, Pointer.to(dParams), Pointer.to(hWeights));
  }

  /**
   * The arguments every kernel takes first, in local_sums.cuh's order (x, y, samples, d, batch
   * start and length, parameters, bias, out, tiles), then {@code last}, the kernel's own.
   */
  private Pointer kernelArgs(int start, int length, CUdeviceptr out, int tiles, Pointer... last) {
    Pointer[] args = new Pointer[10 + last.length];
    args[0] = Pointer.to(dX);
    args[1] = Pointer.to(dY);
    args[2] = Pointer.to(new long[] {partition.samples()});
    args[3] = Pointer.to(new int[] {d});
    args[4] = Pointer.to(new long[] {start});
    args[5] = Pointer.to(new int[] {length});
    args[6] = Pointer.to(dParams);
    args[7] = Pointer.to(new int[] {bias ? 1 : 0});
    args[8] = Pointer.to(out);
    args[9] = Pointer.to(new int[] {tiles});
    System.arraycopy(last, 0, args, 10, last.length);
    return Pointer.to(args);
  }

  /** The residual pass ({@code resid}, {@code grid} blocks), then the gradient pass. */
  private void twoPasses(CUfunction resid, int grid, int tiles, Pointer common) {
    launchKernel(resid, grid, 1, 256, 0, common);
    int gy = (d + 7) / 8;
    int gx = Math.min(tiles, Math.max(1, (card.smCount * 16 + gy - 1) / gy));
    launchKernel(gradFn, gx, gy, 256, 0, common);
  }

  /**
   * Clusters of {@code nc} blocks (one an SM) that are resident at once. The shapes built are
   * pairs, and a GPC's SMs come in pairs, so every SM takes part; JCuda 12.0 has no
   * cuOccupancyMaxActiveClusters to ask. {@code parreg.cuda.clusters} overrides it.
   */
  private int widecClusters(int nc) {
    Integer forced = Integer.getInteger("parreg.cuda.clusters");
    return forced != null && forced > 0 ? forced : card.smCount / nc;
  }

  private void launchKernel(CUfunction f, int gx, int gy, int block, int smem, Pointer args) {
    run(cuLaunchKernel(f, gx, gy, 1, block, 1, 1, smem, stream, args, null), "cuLaunchKernel");
  }

  /**
   * The exact solver's pass: with {@link #STATISTICS_PROPERTY} {@code card} (and the benchmark's
   * backend) on the card ({@link CudaGramPass}: the statistics kernels over the resident partition,
   * the bits of the CPU backend's pass); by default, and on a card whose blocks lack the kernel's
   * shared memory, the CPU backend's pass over the partition this backend keeps.
   */
  @Override
  public Launch launchStatistics() {
    ensureOpen();
    if (partition == null) {
      throw new IllegalStateException("launch before load");
    }
    if (pending) {
      throw new IllegalStateException("a launch is already in flight: await its fence first");
    }
    card.makeCurrent();
    if (!cardStatistics || (gram == null && !CudaGramPass.fits(d, card.smemOptin))) {
      // a card whose blocks cannot hold the kernel's buffers: the CPU backend's pass, same bits
      LocalSums s =
          parreg.device.CpuBackend.statistics(partition, parreg.device.Workers.defaultThreads());
      return new Launch() {
        @Override
        public boolean isRetired() {
          return true;
        }

        @Override
        public LocalSums await() {
          return s;
        }
      };
    }
    if (gram == null) {
      gram =
          new CudaGramPass(
              card, stream, dX, dY, partition.samples(), d, ResidentLayout.of(plan, d));
    }
    Launch l = gram.launch(() -> pending = false);
    pending = true;
    return l;
  }

  /** The statistics pass's shape ("blocks of 2^L tiles, P patches"), for the benchmark. */
  public String statisticsShape() {
    return gram == null
        ? "not launched"
        : "blocks of 2^" + gram.blockLog() + " tiles, " + gram.patchCount() + " patches";
  }

  /** The fence of one CUDA launch: the event recorded after the result copy. */
  public final class CudaLaunch implements Launch {
    private final long mass;
    private LocalSums result;
    private double millis = Double.NaN;
    private double kernelMillis = Double.NaN;

    private CudaLaunch(long mass) {
      this.mass = mass;
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
      double[] s = new double[bias ? d + 1 : d];
      for (int j = 0; j < d; j++) {
        s[j] = hResultView.get(j);
      }
      if (bias) {
        s[d] = hResultView.get(d);
      }
      double loss = hResultView.get(d + 1);
      float[] ms = {0f};
      run(cuEventElapsedTime(ms, evBegin, evEnd), "cuEventElapsedTime");
      millis = ms[0];
      run(cuEventElapsedTime(ms, evKernel, evKernelEnd), "cuEventElapsedTime");
      kernelMillis = ms[0];
      result = new LocalSums(s, loss, mass);
      pending = false;
      return result;
    }

    /** Parameter upload, kernels and result copy, by the device's events. */
    @Override
    public double deviceMillis() {
      return millis;
    }

    /** The kernels alone (local sums and tile tree), by the device's events. */
    public double kernelMillis() {
      return kernelMillis;
    }
  }

  /** Launches issued so far. */
  public long launches() {
    return launches;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    card.makeCurrentForClose();
    if (pending) {
      cuStreamSynchronize(stream);
    }
    if (gram != null) {
      gram.close();
    }
    for (CUdeviceptr p : new CUdeviceptr[] {dX, dY, dParams, dWeights, dPartA, dPartB, dR}) {
      if (p != null) {
        cuMemFree(p);
      }
    }
    cuMemFreeHost(hParams);
    cuMemFreeHost(hResult);
    for (CUevent e : new CUevent[] {evBegin, evKernel, evKernelEnd, evEnd}) {
      cuEventDestroy(e);
    }
    cuStreamDestroy(stream);
    card.close();
    partition = null;
  }
}
