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
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadDataEx;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import parreg.device.BackendUnavailableException;

/**
 * One NVIDIA card, opened: the driver probe (once per JVM), the choice of the card by ordinal or
 * UUID, its context and the kernel modules loaded into it (PTX with {@code cuModuleLoadDataEx}; no
 * NVRTC), and what the plan needs to know of the card (SM count, shared memory, free memory).
 *
 * <p>The context is created on the thread that opens the card; {@link #makeCurrent} makes it
 * current again on whichever thread calls, so the GPU actor's single thread owns it.
 */
final class CudaCard implements AutoCloseable {
  /** The product's kernels (local_sums.cu). */
  static final String PTX_RESOURCE = "/parreg/kernels/local_sums.ptx";

  /**
   * The product's kernels that need compute capability 9.0 (local_sums_sm90.cu: bulk copies and
   * transaction barriers, PTX of compute_90), loaded after {@link #PTX_RESOURCE} on such cards
   * only.
   */
  static final String SM90_PTX_RESOURCE = "/parreg/kernels/local_sums_sm90.ptx";

  /**
   * Whether this card runs the kernels of {@link #SM90_PTX_RESOURCE}: compute capability 9.0 or
   * newer, the product's kernels loaded, and the driver took that module too.
   */
  final boolean hopper;

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
          // UnsatisfiedLinkError (no libcuda.so.1, or JCuda's natives unusable),
          // NoClassDefFoundError
          String m = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
          probeFailure =
              "the CUDA driver library cannot be loaded ("
                  + e.getClass().getSimpleName()
                  + ": "
                  + (m.length() > 200 ? m.substring(0, 200) + "..." : m)
                  + "); is libcuda.so.1 installed?";
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
  static List<DeviceDescription> devices() throws BackendUnavailableException {
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

  static String normalizeUuid(String s) {
    String t = s.trim().toLowerCase(Locale.ROOT);
    if (t.startsWith("gpu-")) {
      t = t.substring(4);
    }
    return t.replace("-", "");
  }

  /** A failed driver call while opening: the device is unusable (a user-facing refusal). */
  static void check(int rc, String what) throws BackendUnavailableException {
    if (rc != CUresult.CUDA_SUCCESS) {
      throw new BackendUnavailableException(what + " failed: " + CUresult.stringFor(rc));
    }
  }

  /** A CUDA error after the device was opened: a runtime failure, not a user error. */
  static void run(int rc, String what) {
    if (rc != CUresult.CUDA_SUCCESS) {
      throw new IllegalStateException("CUDA " + what + " failed: " + CUresult.stringFor(rc));
    }
  }

  // ---- the open card ----
  final DeviceDescription description;
  final int computeMajor;
  final int computeMinor;
  final int smCount;

  /** Dynamic shared memory a block may opt in to, bytes. */
  final int smemOptin;

  final int driverVersion;

  /**
   * What was loaded for each module: the SASS file for this card, or the PTX the driver compiled.
   */
  final String images;

  private final CUcontext ctx = new CUcontext();
  private final List<CUmodule> modules = new ArrayList<>();
  private boolean closed;

  /**
   * Opens the card named by {@code device} (an ordinal "0", a UUID as nvidia-smi prints it
   * "GPU-xxxxxxxx-xxxx-...", or the same 32 hex digits bare, dashes optional), creates its context
   * and loads the PTX resources given, in order (functions are looked up in that order).
   */
  CudaCard(String device, List<String> ptxResources) throws BackendUnavailableException {
    description = pick(device, devices());
    CUdevice dev = new CUdevice();
    check(cuDeviceGet(dev, description.ordinal()), "cuDeviceGet");
    computeMajor = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    computeMinor = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    smCount = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    smemOptin = attr(dev, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    int[] drv = {0};
    check(cuDriverGetVersion(drv), "cuDriverGetVersion");
    driverVersion = drv[0];
    check(cuCtxCreate(ctx, 0, dev), "cuCtxCreate");
    List<String> resources = new ArrayList<>(ptxResources);
    if (computeMajor >= 9 && ptxResources.contains(PTX_RESOURCE)) {
      resources.add(resources.indexOf(PTX_RESOURCE) + 1, SM90_PTX_RESOURCE);
    }
    boolean sm90 = false;
    try {
      List<String> loaded = new ArrayList<>();
      for (String resource : resources) {
        CUmodule module = new CUmodule();
        String how = loadSass(module, resource);
        if (how == null) {
          int rc =
              cuModuleLoadDataEx(
                  module, Pointer.to(readPtx(resource)), 0, new int[0], Pointer.to(new int[0]));
          if (rc != CUresult.CUDA_SUCCESS && resource.equals(SM90_PTX_RESOURCE)) {
            // optional: without it the card runs the compute_75 kernels and their plans
            loaded.add("local_sums_sm90.ptx not loaded (" + CUresult.stringFor(rc) + ")");
            continue;
          }
          if (rc != CUresult.CUDA_SUCCESS) {
            throw new BackendUnavailableException(
                "cannot load the kernels "
                    + resource
                    + " on "
                    + description
                    + " (driver "
                    + driverString()
                    + "): "
                    + CUresult.stringFor(rc)
                    + "; the PTX needs a CUDA 12.0 or newer driver (see docs/GPU.md)");
          }
          how =
              resource.substring(resource.lastIndexOf('/') + 1) + " (PTX, compiled by the driver)";
        }
        loaded.add(how);
        modules.add(module);
        sm90 |= resource.equals(SM90_PTX_RESOURCE);
      }
      images = String.join(", ", loaded);
      hopper = sm90;
    } catch (BackendUnavailableException | RuntimeException e) {
      close();
      throw e;
    }
  }

  String driverString() {
    return "CUDA " + (driverVersion / 1000) + "." + (driverVersion % 1000 / 10);
  }

  /** Makes this card's context current on the calling thread. */
  void makeCurrent() {
    if (closed) {
      throw new IllegalStateException("the CUDA backend is closed");
    }
    run(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  }

  /**
   * Makes the context current while closing, ignoring errors (a closing backend frees what it can).
   */
  void makeCurrentForClose() {
    if (!closed) {
      cuCtxSetCurrent(ctx);
    }
  }

  /** A kernel, from the first module that has it. */
  CUfunction function(String name) {
    for (CUmodule m : modules) {
      CUfunction f = new CUfunction();
      if (cuModuleGetFunction(f, m, name) == CUresult.CUDA_SUCCESS) {
        return f;
      }
    }
    throw new IllegalArgumentException("no kernel " + name + " in the loaded modules");
  }

  /** Blocks of {@code f} one SM holds at once (at least 1). */
  static int occupancy(CUfunction f, int block, int smem) {
    int[] v = {0};
    run(
        cuOccupancyMaxActiveBlocksPerMultiprocessor(v, f, block, smem),
        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return Math.max(1, v[0]);
  }

  /** Device memory free now, bytes. */
  long freeMemory() {
    long[] free = {0};
    long[] total = {0};
    run(cuMemGetInfo(free, total), "cuMemGetInfo");
    return free[0];
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    cuCtxSetCurrent(ctx);
    for (CUmodule m : modules) {
      cuModuleUnload(m);
    }
    cuCtxDestroy(ctx);
  }

  private static String name(CUdevice dev) throws BackendUnavailableException {
    byte[] buf = new byte[256];
    check(cuDeviceGetName(buf, buf.length, dev), "cuDeviceGetName");
    int len = 0;
    while (len < buf.length && buf[len] != 0) {
      len++;
    }
    return new String(buf, 0, len, StandardCharsets.US_ASCII);
  }

  private static String uuid(CUdevice dev) throws BackendUnavailableException {
    jcuda.driver.CUuuid u = new jcuda.driver.CUuuid();
    check(cuDeviceGetUuid(u, dev), "cuDeviceGetUuid");
    String h = HexFormat.of().formatHex(u.bytes);
    return "GPU-"
        + h.substring(0, 8)
        + "-"
        + h.substring(8, 12)
        + "-"
        + h.substring(12, 16)
        + "-"
        + h.substring(16, 20)
        + "-"
        + h.substring(20, 32);
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
      throw new BackendUnavailableException(
          "no CUDA device with ordinal " + ord + "; cards found: " + list(found));
    }
    String norm = normalizeUuid(want);
    if (!norm.matches("[0-9a-f]{32}")) {
      throw new BackendUnavailableException(
          "device '"
              + device
              + "' is neither an ordinal nor a GPU UUID (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx); cards found: "
              + list(found));
    }
    for (DeviceDescription dd : found) {
      if (normalizeUuid(dd.uuid()).equals(norm)) {
        return dd;
      }
    }
    throw new BackendUnavailableException(
        "no CUDA device with UUID " + device + "; cards found: " + list(found));
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

  /**
   * The prebuilt SASS of a PTX resource for this card's compute capability ({@link #sassResource}),
   * loaded into {@code module}; null where this build has none for the card or the driver refuses
   * it (a driver older than the toolkit that wrote it): the caller then loads the PTX. Why: the
   * driver's PTX-to-SASS compilation of the kernel module takes seconds on a machine whose driver
   * cache is cold (a node's first start). The SASS is what ptxas makes of the very PTX shipped
   * (scripts/build/gen-ptx.sh), so the kernels and their bits are the same either way.
   */
  private String loadSass(CUmodule module, String ptxResource) {
    String resource = sassResource(ptxResource, computeMajor, computeMinor);
    byte[] image;
    try (InputStream in = CudaCard.class.getResourceAsStream(resource)) {
      if (in == null) {
        return null;
      }
      image = in.readAllBytes();
    } catch (IOException e) {
      return null;
    }
    if (cuModuleLoadDataEx(module, Pointer.to(image), 0, new int[0], Pointer.to(new int[0]))
        != CUresult.CUDA_SUCCESS) {
      return null;
    }
    return resource.substring(resource.lastIndexOf('/') + 1) + " (SASS)";
  }

  /** {@code /a/b.ptx} for compute capability 9.0: {@code /a/b.sm_90.cubin}. */
  static String sassResource(String ptxResource, int major, int minor) {
    String base =
        ptxResource.endsWith(".ptx")
            ? ptxResource.substring(0, ptxResource.length() - 4)
            : ptxResource;
    return base + ".sm_" + major + minor + ".cubin";
  }

  private static byte[] readPtx(String resource) throws BackendUnavailableException {
    try (InputStream in = CudaCard.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new BackendUnavailableException("this build lacks " + resource);
      }
      byte[] b = in.readAllBytes();
      byte[] z = new byte[b.length + 1]; // NUL-terminated for the driver
      System.arraycopy(b, 0, z, 0, b.length);
      return z;
    } catch (IOException e) {
      throw new BackendUnavailableException("cannot read " + resource + ": " + e, e);
    }
  }
}
