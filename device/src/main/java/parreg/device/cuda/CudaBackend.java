package parreg.device.cuda;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDeviceGetUuid;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadDataEx;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUuuid;
import jcuda.driver.JCudaDriver;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.KernelBackend;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;

/**
 * The CUDA backend: JCuda's driver API only (no NVRTC), kernels from the PTX shipped beside
 * {@code local_sums.cu}, loaded with {@code cuModuleLoadDataEx}.
 *
 * <p>The partition is uploaded once and stays resident, in 32-sample slices (all features of
 * samples 32 s .. 32 s + 31 together, 128 d contiguous bytes: the layout that streams fastest;
 * feature by feature, or, for the quad and spec plans, four features of a sample at a time).
 * Each launch uploads only the binary32 parameters (rounded on the host, as step 1 of SPEC
 * section 2 says), runs the kernels of the chosen plan on one stream, copies the {@code d + 2}
 * result values (gradient, bias sum, loss sum) into a pinned host buffer and records an event:
 * that event is the launch's fence. The context is created on the thread that calls {@link
 * #open} and made current again on every call, so the GPU actor's single thread owns it.
 *
 * <p>Plans, chosen from {@code d} at {@link #load}: {@code small} (d &le; 16: a warp per tile,
 * all accumulators in registers); {@code spec} (the default for 16 &lt; d &le; 256: a block per
 * tile at a time, warp-specialised: chain warps load x from global memory into registers, compute
 * the binary32 residual chains there and pass each 32-sample slice with its residuals through a
 * ring of shared-memory slots, guarded by named barriers, to accumulating warps; x resident in
 * the quad layout padded to a slice width of 64, 128, 192 or 256 features); the earlier block-per-
 * tile plans, kept for cards whose shared memory does not hold the spec slots and for comparison:
 * {@code large} (32-sample slices staged in shared memory, two block barriers a step),
 * {@code pipe} (the residual chains of one step overlap the accumulation of the previous one),
 * {@code flow} ({@code pipe} with 16-byte loads and the weights passed by value) and {@code quad}
 * ({@code flow} with x in the quad layout, four consecutive features of a sample in one 16-byte
 * vector); {@code twopass} (any d: a residual pass, then a gradient pass). {@code flow},
 * {@code quad} and {@code spec} read whole slices, so batches that do not start on a slice
 * boundary run a {@code pipe} kernel of the same layout. All follow {@link ReductionOrder}
 * exactly; a tree pass then combines the tile sums. The unordered (atomic) variants exist only for
 * the benchmark ({@link #openForBenchmark}); they are never used for training.
 */
public final class CudaBackend implements KernelBackend {
  static final String PTX_RESOURCE = "/parreg/kernels/local_sums.ptx";
  private static final int TILE = ReductionOrder.TILE;
  private static final int TREE_GROUP = 1024;
  /** Floats in the flow kernels' by-value weight parameter (local_sums.cu, WParam): w[256], b. */
  private static final int FLOW_WEIGHTS = 257;
  /** The spec kernels' shape (local_sums.cu, SPEC_KERNEL): chain warps and slots per block. */
  private static final int SPEC_CHAIN_WARPS = 6;
  private static final int SPEC_SLOTS = 6;

  // ---- one probe per JVM: JCuda's native library stays unusable after a failed load ----
  private static final Object PROBE_LOCK = new Object();
  private static boolean probed;
  private static String probeFailure;

  /** Loads JCuda's driver binding and calls {@code cuInit} once per JVM; the outcome is kept. */
  static void probe() throws BackendUnavailableException {
    synchronized (PROBE_LOCK) {
      if (!probed) {
        probed = true;
        JCudaLibrary.prepare(); // before JCuda's first use: no half-written library (JCudaLibrary)
        try {
          JCudaDriver.setExceptionsEnabled(false);
          int rc = cuInit(0);
          if (rc != CUresult.CUDA_SUCCESS) {
            probeFailure = "cuInit failed: " + CUresult.stringFor(rc);
          }
        } catch (LinkageError e) {
          // UnsatisfiedLinkError (no libcuda.so.1, or JCuda's natives unusable), NoClassDefFoundError
          String m = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
          probeFailure = "the CUDA driver library cannot be loaded (" + e.getClass().getSimpleName() + ": "
              + (m.length() > 200 ? m.substring(0, 200) + "..." : m) + "); is libcuda.so.1 installed?";
        }
      }
      if (probeFailure != null) {
        throw new BackendUnavailableException("no usable CUDA device: " + probeFailure);
      }
    }
  }

  /** A card the driver reports. */
  public record DeviceDescription(int ordinal, String name, String uuid) {
    @Override
    public String toString() {
      return ordinal + ": " + name + " " + uuid;
    }
  }

  /** The cards the driver reports, in ordinal order. */
  public static List<DeviceDescription> devices() throws BackendUnavailableException {
    probe();
    int[] count = {0};
    check(cuDeviceGetCount(count), "cuDeviceGetCount");
    List<DeviceDescription> out = new ArrayList<>();
    for (int i = 0; i < count[0]; i++) {
      CUdevice dev = new CUdevice();
      check(cuDeviceGet(dev, i), "cuDeviceGet");
      out.add(new DeviceDescription(i, name(dev), uuid(dev)));
    }
    return out;
  }

  /**
   * Opens the card named by {@code device}: an ordinal ("0"), a UUID as nvidia-smi prints it
   * ("GPU-xxxxxxxx-xxxx-..."), or the same 32 hex digits bare (dashes optional).
   */
  public static KernelBackend open(String device) throws BackendUnavailableException {
    return new CudaBackend(device, true, null);
  }

  /**
   * For the benchmark only: {@code ordered=false} gives the unordered atomic-reduction variant
   * (its bits depend on scheduling); {@code plan} forces "small", "large1", "large2", "pipe1", "pipe2",
   * "flow1", "flow2", "quad2", "spec" (or a slice width: "spec64", "spec128", "spec192", "spec256")
   * or "twopass" (null: the normal choice).
   */
  public static CudaBackend openForBenchmark(String device, boolean ordered, String plan)
      throws BackendUnavailableException {
    return new CudaBackend(device, ordered, plan);
  }

  static String normalizeUuid(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("gpu-")) {
      t = t.substring(4);
    }
    return t.replace("-", "");
  }

  private static String name(CUdevice dev) throws BackendUnavailableException {
    byte[] buf = new byte[256];
    check(cuDeviceGetName(buf, buf.length, dev), "cuDeviceGetName");
    int len = 0;
    while (len < buf.length && buf[len] != 0) {
      len++;
    }
    return new String(buf, 0, len, java.nio.charset.StandardCharsets.US_ASCII);
  }

  private static String uuid(CUdevice dev) throws BackendUnavailableException {
    CUuuid u = new CUuuid();
    check(cuDeviceGetUuid(u, dev), "cuDeviceGetUuid");
    String h = HexFormat.of().formatHex(u.bytes);
    return "GPU-" + h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-"
        + h.substring(16, 20) + "-" + h.substring(20, 32);
  }

  private static void check(int rc, String what) throws BackendUnavailableException {
    if (rc != CUresult.CUDA_SUCCESS) {
      throw new BackendUnavailableException(what + " failed: " + CUresult.stringFor(rc));
    }
  }

  /** A CUDA error after the device was opened: a runtime failure, not a user error. */
  private static void run(int rc, String what) {
    if (rc != CUresult.CUDA_SUCCESS) {
      throw new IllegalStateException("CUDA " + what + " failed: " + CUresult.stringFor(rc));
    }
  }

  // ---- the open device ----
  private final boolean ordered;
  private final String forcedPlan;
  private final BackendInfo info;
  private final CUcontext ctx = new CUcontext();
  private final CUmodule module = new CUmodule();
  private final CUstream stream = new CUstream();
  private final CUevent evBegin = new CUevent();
  private final CUevent evKernel = new CUevent();
  private final CUevent evKernelEnd = new CUevent();
  private final CUevent evEnd = new CUevent();
  private final int smCount;
  private final int smemOptin;
  private boolean closed;

  // ---- resident partition and per-launch buffers ----
  private Partition partition;
  private boolean bias;
  private int d;
  private int coords; // d + 2
  private String plan;
  private CUfunction mainFn;
  private CUfunction gradFn; // twopass only
  private int specFeatures; // spec: features a resident slice holds (64, 128, 192 or 256)
  private CUfunction pipeFn; // flow, quad, spec: the pipe kernel for batches that do not start on a slice boundary
  private final float[] hWeights = new float[FLOW_WEIGHTS]; // flow, quad, spec: w32 and b32, passed by value
  private CUfunction treeFn;
  private int mainBlock;
  private int mainSmem;
  private int mainOccupancy;
  private CUdeviceptr dX;
  private CUdeviceptr dY;
  private CUdeviceptr dParams;
  private CUdeviceptr dPartA;
  private CUdeviceptr dPartB;
  private CUdeviceptr dR;
  private Pointer hParams;
  private FloatBuffer hParamsView;
  private Pointer hResult;
  private DoubleBuffer hResultView;
  private boolean pending;
  private long launches;

  private CudaBackend(String device, boolean ordered, String forcedPlan) throws BackendUnavailableException {
    this.ordered = ordered;
    this.forcedPlan = forcedPlan;
    List<DeviceDescription> found = devices();
    DeviceDescription chosen = pick(device, found);
    CUdevice dev = new CUdevice();
    check(cuDeviceGet(dev, chosen.ordinal()), "cuDeviceGet");
    int major = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    int minor = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    smCount = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    smemOptin = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    int[] drv = {0};
    check(cuDriverGetVersion(drv), "cuDriverGetVersion");
    check(cuCtxCreate(ctx, 0, dev), "cuCtxCreate");
    try {
      byte[] ptx = readPtx();
      int rc = cuModuleLoadDataEx(module, Pointer.to(ptx), 0, new int[0], Pointer.to(new int[0]));
      if (rc != CUresult.CUDA_SUCCESS) {
        throw new BackendUnavailableException("cannot load the kernels on " + chosen + " (driver "
            + driverString(drv[0]) + "): " + CUresult.stringFor(rc)
            + "; the PTX needs a CUDA 12.0 or newer driver (see docs/GPU.md)");
      }
      check(cuStreamCreate(stream, 0), "cuStreamCreate");
      for (CUevent e : new CUevent[] {evBegin, evKernel, evKernelEnd, evEnd}) {
        check(cuEventCreate(e, 0), "cuEventCreate");
      }
      hParams = new Pointer();
      hResult = new Pointer();
      check(cuMemAllocHost(hParams, 4L * 8192), "cuMemAllocHost");
      check(cuMemAllocHost(hResult, 8L * 8192), "cuMemAllocHost");
    } catch (BackendUnavailableException | RuntimeException e) {
      cuCtxDestroy(ctx);
      throw e;
    }
    info = new BackendInfo("cuda", chosen.name(), chosen.uuid(),
        "compute capability " + major + "." + minor + ", " + smCount + " SMs, driver " + driverString(drv[0])
            + ", device ordinal " + chosen.ordinal() + ", kernels local_sums.ptx, order " + ReductionOrder.VERSION
            + (ordered ? "" : ", UNORDERED atomic variant (benchmark only)"));
  }

  private static String driverString(int v) {
    return "CUDA " + (v / 1000) + "." + (v % 1000 / 10);
  }

  private static int attr(CUdevice dev, int attribute) throws BackendUnavailableException {
    int[] v = {0};
    check(cuDeviceGetAttribute(v, attribute, dev), "cuDeviceGetAttribute");
    return v[0];
  }

  private static DeviceDescription pick(String device, List<DeviceDescription> found)
      throws BackendUnavailableException {
    String want = device == null || device.isBlank() ? "0" : device.trim();
    if (found.isEmpty()) {
      throw new BackendUnavailableException("no usable CUDA device: the driver reports no card");
    }
    if (want.matches("\\d{1,4}")) {
      int ord = Integer.parseInt(want);
      if (ord < found.size()) {
        return found.get(ord);
      }
      throw new BackendUnavailableException("no CUDA device with ordinal " + ord + "; cards found: " + list(found));
    }
    String norm = normalizeUuid(want);
    if (!norm.matches("[0-9a-f]{32}")) {
      throw new BackendUnavailableException("device '" + device
          + "' is neither an ordinal nor a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx); cards found: "
          + list(found));
    }
    for (DeviceDescription dd : found) {
      if (normalizeUuid(dd.uuid()).equals(norm)) {
        return dd;
      }
    }
    throw new BackendUnavailableException("no CUDA device with UUID " + device + "; cards found: " + list(found));
  }

  private static String list(List<DeviceDescription> found) {
    StringBuilder sb = new StringBuilder();
    for (DeviceDescription dd : found) {
      if (sb.length() > 0) {
        sb.append("; ");
      }
      sb.append(dd);
    }
    return sb.toString();
  }

  private static byte[] readPtx() throws BackendUnavailableException {
    try (InputStream in = CudaBackend.class.getResourceAsStream(PTX_RESOURCE)) {
      if (in == null) {
        throw new BackendUnavailableException("this build lacks " + PTX_RESOURCE);
      }
      byte[] b = in.readAllBytes();
      byte[] z = new byte[b.length + 1]; // NUL-terminated for the driver
      System.arraycopy(b, 0, z, 0, b.length);
      return z;
    } catch (IOException e) {
      throw new BackendUnavailableException("cannot read " + PTX_RESOURCE + ": " + e, e);
    }
  }

  @Override
  public BackendInfo info() {
    return info;
  }

  /** The plan chosen at {@link #load} ("small-1", "large-8x2", "twopass", ...). */
  public String plan() {
    return plan;
  }

  private CUfunction function(String name) {
    CUfunction f = new CUfunction();
    run(cuModuleGetFunction(f, module, name), "cuModuleGetFunction(" + name + ")");
    return f;
  }

  private int occupancy(CUfunction f, int block, int smem) {
    int[] v = {0};
    run(cuOccupancyMaxActiveBlocksPerMultiprocessor(v, f, block, smem), "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return Math.max(1, v[0]);
  }

  private static int pow2AtLeast(int v) {
    int p = 1;
    while (p < v) {
      p <<= 1;
    }
    return p;
  }

  private void choosePlan(long slices) {
    String pfx = ordered ? "_o_" : "_a_";
    String want = forcedPlan;
    if (want == null) {
      if (d <= 16) {
        want = "small";
      } else if (d <= 256 && specSmem(specWidth(d)) <= smemOptin && paddedFits(slices, specWidth(d))) {
        want = "spec";
      } else if (d > 64 && d <= 256 && quadSmem() <= smemOptin) {
        want = "quad2";
      } else if (d <= 256 && flowSmem(2) <= smemOptin) {
        want = "flow2";
      } else if (d <= 256 && flowSmem(1) <= smemOptin) {
        want = "flow1";
      } else if (d <= 256 && pipeSmem(2) <= smemOptin) {
        want = "pipe2";
      } else if (d <= 256 && pipeSmem(1) <= smemOptin) {
        want = "pipe1";
      } else if (d <= 256 && largeSmem(1) <= smemOptin) {
        want = "large1";
      } else {
        want = "twopass";
      }
    }
    switch (want) {
      case "small" -> {
        if (d > 16) {
          throw new IllegalArgumentException("plan small needs d <= 16");
        }
        int dm = pow2AtLeast(d);
        mainFn = function("small" + pfx + dm);
        mainBlock = 256;
        mainSmem = 0;
        plan = "small-" + dm;
      }
      case "large1", "large2" -> {
        int p = want.equals("large2") ? 2 : 1;
        if (d > 256 || largeSmem(p) > smemOptin) {
          throw new IllegalArgumentException("plan " + want + " does not fit d=" + d + " on this card");
        }
        int k = pow2AtLeast((d + 31) / 32);
        mainFn = function("large" + pfx + k + "_" + p);
        mainBlock = 1024;
        mainSmem = largeSmem(p);
        plan = "large-" + k + "x" + p;
      }
      case "pipe1", "pipe2" -> {
        int p = want.equals("pipe2") ? 2 : 1;
        if (d > 256 || pipeSmem(p) > smemOptin) {
          throw new IllegalArgumentException("plan " + want + " does not fit d=" + d + " on this card");
        }
        int k = pow2AtLeast((d + 31) / 32);
        mainFn = function("pipe" + pfx + k + "_" + p);
        mainBlock = 1024;
        mainSmem = pipeSmem(p);
        plan = "pipe-" + k + "x" + p;
      }
      case "flow1", "flow2" -> {
        int p = want.equals("flow2") ? 2 : 1;
        if (d > 256 || flowSmem(p) > smemOptin) {
          throw new IllegalArgumentException("plan " + want + " does not fit d=" + d + " on this card");
        }
        int k = pow2AtLeast((d + 31) / 32);
        mainFn = function("flow" + pfx + k + "_" + p);
        pipeFn = function("pipe" + pfx + k + "_" + p);
        mainBlock = 1024;
        mainSmem = flowSmem(p);
        plan = "flow-" + k + "x" + p;
      }
      case "quad2" -> {
        int k = pow2AtLeast((d + 31) / 32);
        if (d <= 64 || d > 256 || quadSmem() > smemOptin) {
          throw new IllegalArgumentException("plan quad2 does not fit d=" + d + " on this card (needs 64 < d <= 256)");
        }
        mainFn = function("quad" + pfx + k + "_2");
        pipeFn = function("pipeq" + pfx + k + "_2");
        mainBlock = 1024;
        mainSmem = quadSmem();
        plan = "quad-" + k + "x2";
      }
      case "spec", "spec64", "spec128", "spec192", "spec256" -> {
        // the narrowest slice width that holds d (or the one asked for)
        int width = want.equals("spec") ? specWidth(d) : Integer.parseInt(want.substring(4));
        if (d <= 16 || d > width || specSmem(width) > smemOptin) {
          throw new IllegalArgumentException(
              "plan " + want + " does not fit d=" + d + " on this card (needs 16 < d <= " + Math.min(width, 256) + ")");
        }
        mainFn = function("spec" + pfx + width);
        pipeFn = function("pipes" + pfx + width / 32 + "_2");
        mainBlock = 32 * (SPEC_CHAIN_WARPS + (width == 192 ? 12 : 8));
        mainSmem = specSmem(width);
        specFeatures = width;
        plan = "spec-" + width;
      }
      case "twopass" -> {
        mainFn = function("resid" + (ordered ? "_o" : "_a"));
        gradFn = function("grad" + (ordered ? "_o" : "_a"));
        mainBlock = 256;
        mainSmem = 0;
        plan = "twopass";
      }
      default -> throw new IllegalArgumentException("unknown plan " + want);
    }
    // Block-per-tile kernels use more dynamic shared memory than the default 48 KB allows; the
    // fallback kernel (flow, quad) runs with the same allowance.
    for (CUfunction f : new CUfunction[] {mainFn, pipeFn}) {
      if (f != null && mainSmem > 0) {
        run(cuFuncSetAttribute(f, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, mainSmem),
            "cuFuncSetAttribute");
      }
    }
    mainOccupancy = occupancy(mainFn, mainBlock, mainSmem);
    treeFn = function("tree_pass");
  }

  /**
   * The spec plan's shared memory: its slots (one slice of {@code width} features in the quad
   * layout and its 32 residuals each), or its pipe fallback's, whichever is more.
   */
  private int specSmem(int width) {
    return Math.max(pipeSmem(2), SPEC_SLOTS * (128 * width + 128));
  }

  /**
   * Whether x padded to {@code width} features a sample fits in the card's free memory with room
   * to spare (a quarter of what is free, at least 256 MB); where it does not, the default plan is
   * one that keeps x unpadded.
   */
  private static boolean paddedFits(long slices, int width) {
    long[] free = {0};
    long[] total = {0};
    run(cuMemGetInfo(free, total), "cuMemGetInfo");
    long bytes = 4L * 32 * slices * width;
    return bytes <= free[0] - Math.max(256L << 20, free[0] / 4);
  }

  /** The narrowest slice width of the spec kernels (64, 128, 192 or 256 features) that holds d. */
  static int specWidth(int d) {
    return d <= 64 ? 64 : d <= 128 ? 128 : d <= 192 ? 192 : 256;
  }

  private int largeSmem(int p) {
    return 4 * (d + p * 32 + 2 * p * d * 32);
  }

  private int pipeSmem(int p) {
    return 4 * (d + 2 * p * 32 + 3 * p * d * 32);
  }

  /** The flow plan's shared memory: enough for the flow kernel and for its pipe fallback. */
  private int flowSmem(int p) {
    int slack = 32 * pow2AtLeast((d + 31) / 32) - d; // features the unguarded accumulation reads past d
    return Math.max(pipeSmem(p), 4 * (3 * p * d * 32 + 2 * p * 32 + slack * 32));
  }

  /** The quad plan's shared memory (P = 2): enough for the quad kernel and for its pipe fallback. */
  private int quadSmem() {
    int d4 = (d + 3) & ~3;
    int slack = 32 * pow2AtLeast((d + 31) / 32) - d4; // features the unguarded accumulation reads past d4
    return Math.max(pipeSmem(2), 4 * (3 * 2 * d4 * 32 + 2 * 2 * 32 + Math.max(0, slack) * 32));
  }

  @Override
  public void load(Partition p, boolean withBias) {
    ensureOpen();
    if (partition != null) {
      throw new IllegalStateException("the partition is already loaded");
    }
    run(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    if (p.features() > 8190) {
      throw new IllegalArgumentException("the CUDA backend supports up to 8190 features, not " + p.features());
    }
    this.d = p.features();
    this.coords = d + 2;
    this.bias = withBias;
    int n = p.samples();
    int maxTiles = ReductionOrder.tiles(n);
    long slices = ((long) n + 31) / 32;
    choosePlan(slices);
    // features a resident slice holds: the quad layouts pad d to 4 (quad) or to the slice width (spec)
    int d4 = plan.startsWith("quad") ? (d + 3) & ~3 : plan.startsWith("spec") ? specFeatures : 0;
    dX = alloc(4L * 32 * slices * (d4 > 0 ? d4 : d));
    dY = alloc(4L * n);
    if (d4 > 0) {
      uploadQuads(p, slices, d4);
    } else {
      uploadSlices(p, slices);
    }
    run(cuMemcpyHtoD(dY, Pointer.to(p.targets()), 4L * n), "cuMemcpyHtoD(y)");
    dParams = alloc(4L * (d + 1));
    dPartA = alloc(8L * coords * Math.max(1, maxTiles));
    dPartB = alloc(8L * coords * Math.max(1, (maxTiles + TREE_GROUP - 1) / TREE_GROUP));
    if (plan.equals("twopass")) {
      dR = alloc(4L * n);
    }
    hParamsView = hParams.getByteBuffer(0, 4L * (d + 1)).order(ByteOrder.nativeOrder()).asFloatBuffer();
    hResultView = hResult.getByteBuffer(0, 8L * coords).order(ByteOrder.nativeOrder()).asDoubleBuffer();
    this.partition = p;
  }

  /**
   * Uploads x in the slice layout the kernels read (local_sums.cu, xat): slice s holds samples
   * 32 s .. 32 s + 31, feature by feature, 32 values each; the last slice is padded with zeros.
   * Converted in chunks of about 16 MB.
   */
  private void uploadSlices(Partition p, long slices) {
    float[] x = p.featureMajor();
    int n = p.samples();
    int per = Math.max(1, (4 << 20) / (32 * d));
    float[] buf = new float[per * 32 * d];
    for (long s0 = 0; s0 < slices; s0 += per) {
      int cs = (int) Math.min(per, slices - s0);
      for (int sl = 0; sl < cs; sl++) {
        long first = (s0 + sl) * 32;
        int count = (int) Math.min(32, n - first);
        for (int j = 0; j < d; j++) {
          int dst = (sl * d + j) * 32;
          System.arraycopy(x, (int) ((long) j * n + first), buf, dst, count);
          if (count < 32) {
            java.util.Arrays.fill(buf, dst + count, dst + 32, 0f);
          }
        }
      }
      run(cuMemcpyHtoD(dX.withByteOffset(4L * 32 * d * s0), Pointer.to(buf), 4L * 32 * d * cs), "cuMemcpyHtoD(x)");
    }
  }

  /**
   * Uploads x in the quad layout of the quad and spec plans (local_sums.cu, xq): slice s holds
   * samples 32 s .. 32 s + 31 as [d4 / 4][32][4] (four consecutive features of one sample
   * together), d4 &ge; d a multiple of 4; padding features and the last slice's missing samples
   * are zeros.
   */
  private void uploadQuads(Partition p, long slices, int d4) {
    float[] x = p.featureMajor();
    int n = p.samples();
    int per = Math.max(1, (4 << 20) / (32 * d4));
    float[] buf = new float[per * 32 * d4];
    for (long s0 = 0; s0 < slices; s0 += per) {
      int cs = (int) Math.min(per, slices - s0);
      java.util.Arrays.fill(buf, 0, cs * 32 * d4, 0f);
      for (int sl = 0; sl < cs; sl++) {
        long first = (s0 + sl) * 32;
        int count = (int) Math.min(32, n - first);
        int base = sl * 32 * d4;
        for (int j = 0; j < d; j++) {
          int src = (int) ((long) j * n + first);
          int dst = base + (j >> 2) * 128 + (j & 3);
          for (int l = 0; l < count; l++) {
            buf[dst + 4 * l] = x[src + l];
          }
        }
      }
      run(cuMemcpyHtoD(dX.withByteOffset(4L * 32 * d4 * s0), Pointer.to(buf), 4L * 32 * d4 * cs), "cuMemcpyHtoD(x)");
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
          "expected " + RunContract.parameterCount(d, bias) + " parameters for d=" + d + ", got " + params.length);
    }
    if (length < 1 || start < 0 || (long) start + length > partition.samples()) {
      throw new IllegalArgumentException(
          "batch [" + start + ", " + ((long) start + length) + ") outside partition of " + partition.samples());
    }
    run(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    // Step 1 of SPEC section 2: round to binary32 on the host (Java's cast: nearest, ties to even,
    // subnormals kept), upload only these.
    for (int j = 0; j < d; j++) {
      hParamsView.put(j, (float) params[j]);
    }
    hParamsView.put(d, bias ? (float) params[d] : 0f);
    if (pipeFn != null) {
      java.util.Arrays.fill(hWeights, 0f);
      for (int j = 0; j < d; j++) {
        hWeights[j] = hParamsView.get(j);
      }
      hWeights[FLOW_WEIGHTS - 1] = hParamsView.get(d);
    }
    run(cuEventRecord(evBegin, stream), "cuEventRecord");
    run(cuMemcpyHtoDAsync(dParams, hParams, 4L * (d + 1), stream), "cuMemcpyHtoDAsync(params)");
    run(cuEventRecord(evKernel, stream), "cuEventRecord");
    CUdeviceptr result = enqueue(start, length);
    run(cuEventRecord(evKernelEnd, stream), "cuEventRecord");
    run(cuMemcpyDtoHAsync(hResult, result, 8L * coords, stream), "cuMemcpyDtoHAsync(result)");
    run(cuEventRecord(evEnd, stream), "cuEventRecord");
    pending = true;
    launches++;
    return new CudaLaunch(length);
  }

  /** Enqueues the kernels of the plan; returns the buffer whose first d+2 values are the result. */
  private CUdeviceptr enqueue(int start, int length) {
    int tiles = ReductionOrder.tiles(length);
    CUdeviceptr out = dPartA;
    if (!ordered) {
      run(cuMemsetD32Async(dPartA, 0, 2L * coords, stream), "cuMemsetD32Async");
    }
    Pointer common = Pointer.to(Pointer.to(dX), Pointer.to(dY), Pointer.to(new long[] {partition.samples()}),
        Pointer.to(new int[] {d}), Pointer.to(new long[] {start}), Pointer.to(new int[] {length}),
        Pointer.to(dParams), Pointer.to(new int[] {bias ? 1 : 0}), Pointer.to(out), Pointer.to(new int[] {tiles}),
        Pointer.to(dR == null ? dParams : dR));
    int full = smCount * mainOccupancy;
    int dash = plan.indexOf('-');
    switch (dash < 0 ? plan : plan.substring(0, dash)) {
      case "small" -> {
        int grid = Math.min((tiles + 7) / 8, full);
        launchKernel(mainFn, grid, 1, mainBlock, 0, common);
      }
      case "large", "pipe" -> {
        int grid = Math.min(tiles, full);
        launchKernel(mainFn, grid, 1, mainBlock, mainSmem, common);
      }
      case "flow", "quad", "spec" -> {
        int grid = Math.min(tiles, full);
        if (start % 32 == 0) {
          // the flow kernel reads whole slices as 16-byte vectors; the weights go by value
          Pointer flowArgs = Pointer.to(Pointer.to(dX), Pointer.to(dY), Pointer.to(new long[] {partition.samples()}),
              Pointer.to(new int[] {d}), Pointer.to(new long[] {start}), Pointer.to(new int[] {length}),
              Pointer.to(dParams), Pointer.to(new int[] {bias ? 1 : 0}), Pointer.to(out), Pointer.to(new int[] {tiles}),
              Pointer.to(dParams), Pointer.to(hWeights));
          launchKernel(mainFn, grid, 1, mainBlock, mainSmem, flowArgs);
        } else {
          launchKernel(pipeFn, grid, 1, 1024, mainSmem, common); // every pipe kernel runs 1024 threads
        }
      }
      default -> {
        int grid = Math.min((tiles + 7) / 8, full);
        launchKernel(mainFn, grid, 1, 256, 0, common);
        int gy = (d + 7) / 8;
        int gx = Math.min(tiles, Math.max(1, (smCount * 16 + gy - 1) / gy));
        launchKernel(gradFn, gx, gy, 256, 0, common);
      }
    }
    if (!ordered) {
      return out;
    }
    CUdeviceptr src = dPartA;
    CUdeviceptr dst = dPartB;
    int count = tiles;
    while (count > 1) {
      int groups = (count + TREE_GROUP - 1) / TREE_GROUP;
      Pointer args = Pointer.to(Pointer.to(src), Pointer.to(dst), Pointer.to(new int[] {count}),
          Pointer.to(new int[] {groups}));
      launchKernel(treeFn, groups, coords, 512, 0, args);
      CUdeviceptr t = src;
      src = dst;
      dst = t;
      count = groups;
    }
    return src;
  }

  private void launchKernel(CUfunction f, int gx, int gy, int block, int smem, Pointer args) {
    run(cuLaunchKernel(f, gx, gy, 1, block, 1, 1, smem, stream, args, null), "cuLaunchKernel");
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
      run(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
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
      run(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
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
    cuCtxSetCurrent(ctx);
    if (pending) {
      cuEventSynchronize(evEnd);
    }
    for (CUdeviceptr p : new CUdeviceptr[] {dX, dY, dParams, dPartA, dPartB, dR}) {
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
    cuModuleUnload(module);
    cuCtxDestroy(ctx);
    partition = null;
  }
}
