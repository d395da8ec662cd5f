package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.KernelBackend;

/**
 * Runs everywhere (CI has no GPU): where no CUDA driver answers, asking for cuda is refused with a
 * clear message and auto falls back to the CPU saying why; the shipped PTX is the loadable one.
 */
class CudaBackendWithoutGpuTest {

  static boolean cudaAnswers() {
    try {
      return !CudaBackend.devices().isEmpty();
    } catch (BackendUnavailableException e) {
      return false;
    }
  }

  @Test
  void cudaIsRefusedClearlyAndAutoFallsBackWhereNoDriverAnswers() throws Exception {
    if (cudaAnswers()) {
      try (KernelBackend b = Backends.select("auto", "0").backend()) {
        assertEquals("cuda", b.info().backend(), "a CUDA device answers here, so auto picks it");
      }
      return;
    }
    BackendUnavailableException e =
        assertThrows(BackendUnavailableException.class, () -> CudaBackend.open("0"));
    assertTrue(e.getMessage().startsWith("no usable CUDA device"), e.getMessage());
    // probed once: the second attempt gives the same answer instead of NoClassDefFoundError
    BackendUnavailableException again =
        assertThrows(
            BackendUnavailableException.class,
            () -> Backends.select("cuda", "GPU-00000000-1111-2222-3333-444444444444"));
    assertEquals(e.getMessage(), again.getMessage());
    Backends.Selection auto = Backends.select("auto", null);
    try (KernelBackend b = auto.backend()) {
      assertEquals("cpu", b.info().backend());
      assertTrue(
          auto.reason().startsWith("backend auto: picked cpu (no usable CUDA device"),
          auto.reason());
    }
  }

  @Test
  void uuidSpellingsNormalise() {
    assertEquals(
        "0123456789abcdef0123456789abcdef",
        CudaCard.normalizeUuid("GPU-01234567-89AB-cdef-0123-456789abcdef"));
    assertEquals(
        "0123456789abcdef0123456789abcdef",
        CudaCard.normalizeUuid("0123456789ABCDEF0123456789ABCDEF"));
  }

  /**
   * The spec plan takes the narrowest slice width that holds d (its kernels and fallbacks exist per
   * width).
   */
  @Test
  void specSliceWidthIsTheNarrowestThatHoldsD() {
    assertEquals(48, KernelShapes.specWidth(17)); // 17..32 run split (ladder), forced "spec" 48
    assertEquals(48, KernelShapes.specWidth(48));
    assertEquals(64, KernelShapes.specWidth(49));
    assertEquals(64, KernelShapes.specWidth(64));
    assertEquals(104, KernelShapes.specWidth(65));
    assertEquals(104, KernelShapes.specWidth(104));
    assertEquals(128, KernelShapes.specWidth(105));
    assertEquals(128, KernelShapes.specWidth(128));
    assertEquals(192, KernelShapes.specWidth(129));
    assertEquals(192, KernelShapes.specWidth(192));
    assertEquals(208, KernelShapes.specWidth(193));
    assertEquals(208, KernelShapes.specWidth(208));
    assertEquals(256, KernelShapes.specWidth(209));
    assertEquals(256, KernelShapes.specWidth(256));
  }

  /** A PTX module shipped in the jar, as text; {@code present}: the assertion's message. */
  static String resource(String name, String present) throws Exception {
    try (InputStream in = CudaBackend.class.getResourceAsStream(name)) {
      assertTrue(in != null, present);
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

  /**
   * The kernels of compute capability 9.0 (local_sums_sm90.cu): the lowered ISA stamp, a compute_90
   * target, every widet and widec shape the plan names, no fused multiply-add, no flush to zero.
   */
  @Test
  void shippedSm90PtxHoldsEveryWidetAndWidecShape() throws Exception {
    String ptx = resource(CudaCard.SM90_PTX_RESOURCE, "sm90 PTX resource present");
    assertTrue(ptx.contains("\n.version 8.0\n"), "PTX ISA 8.0 stamp");
    assertTrue(ptx.contains("\n.target sm_90\n"), "compute_90 target");
    for (int width = 384; width <= 1024; width += 128) {
      for (String shape : KernelShapes.widetShapes(width)) {
        assertTrue(
            ptx.contains(".entry widet_o_" + width + "_" + shape + "("),
            "kernel widet_o_" + width + "_" + shape);
      }
      for (String shape : KernelShapes.widelShapes(width)) {
        assertTrue(
            ptx.contains(".entry widel_o_" + width + "_" + shape + "("),
            "kernel widel_o_" + width + "_" + shape);
      }
      int[] def = KernelShapes.widetShape(width);
      assertTrue(KernelShapes.widetShapes(width).contains(def[0] + "x" + def[1]), "default shape");
    }
    // the widec kernels: every shape the plan names, each with its cluster size in the PTX
    for (int width = 384; width <= 8192; width += 128) {
      for (String shape : KernelShapes.widecShapes(width)) {
        String entry = ".entry widec_o_" + shape + "(";
        int at = ptx.indexOf(entry);
        assertTrue(at >= 0, "kernel widec_o_" + shape);
        int body = ptx.indexOf('{', at);
        assertTrue(
            ptx.substring(at, body)
                .contains(
                    ".reqnctapercluster " + shape.substring(0, shape.indexOf('x')) + ", 1, 1"),
            "cluster size of widec_o_" + shape);
      }
    }
    assertTrue(
        !ptx.contains("fma.rn.f32") && !ptx.contains("fma.rn.f64"),
        "no fused multiply-add in the PTX");
    assertTrue(!ptx.contains(".ftz."), "no flush-to-zero instruction in the PTX");
  }

  /**
   * The checked-in PTX carries the lowered ISA stamp (CUDA 12.0 drivers load it) and every kernel.
   */
  @Test
  void shippedPtxLoadsOnCuda12Drivers() throws Exception {
    String ptx = resource(CudaCard.PTX_RESOURCE, "PTX resource present");
    assertTrue(ptx.contains("\n.version 8.0\n"), "PTX ISA 8.0 stamp");
    assertTrue(ptx.contains("\n.target sm_75\n"), "compute_75 target");
    for (String k :
        new String[] {
          "small_o_1",
          "small_o_16",
          "split_o_2x9_u8t4",
          "split_o_2x12_u2t4p",
          "split_o_2x16_u2t4p",
          "split_o_4x12_u2t2p",
          "narrowp_o_17_u4_w16",
          "narrowp_o_20_u2p_w12",
          "narrowp_o_24_u1p_w16",
          "narrowp_o_32_u1p_w12",
          "narrowp_o_48_u1p_w8",
          "specp_o_24_6x3m3",
          "deepr_o",
          "deepg_o",
          "large_o_8_1",
          "pipe_o_8_2",
          "pipe_o_1_1",
          "flow_o_8_2",
          "flow_o_1_2",
          "quad_o_8_2",
          "pipeq_o_8_2",
          "spec_o_64",
          "spec_o_48_m6",
          "pipes_o_w48",
          "spec_o_64_m4",
          "spec_o_104_c7",
          "spec_o_128",
          "spec_o_192",
          "spec_o_256",
          "pipes_o_2_2",
          "pipes_o_4_2",
          "pipes_o_6_2",
          "pipes_o_8_2",
          "wide_o_384",
          "wide_o_1024",
          "resid8_o",
          "grad8_o",
          "resid_o",
          "grad_o",
          "tree_pass"
        }) {
      assertTrue(ptx.contains(".entry " + k + "("), "kernel " + k);
    }
    // the product's PTX holds only what the product runs: no unordered variant, no comparison plan
    assertTrue(
        !ptx.contains("_a_")
            && !ptx.contains(".entry resid_a(")
            && !ptx.contains(".entry large_o_8_2(")
            && !ptx.contains(".entry widep_")
            && !ptx.contains(".entry narrow_o_48(")
            && !ptx.contains(".entry narrow_o_64(")
            && !ptx.contains(".entry narrow_o_32_1(")
            && !ptx.contains(".entry narrow_o_32(")
            && !ptx.contains(".entry spec_o_24(")
            && !ptx.contains(".entry spec_o_48(")
            && !ptx.contains(".entry split_o_2x12_u4t4(")
            && !ptx.contains(".entry spec_o_32(")
            && !ptx.contains(".entry wide2b_")
            && !ptx.contains(".entry wide2c_"),
        "benchmark-only kernels in the product's PTX");
    assertTrue(
        !ptx.contains("fma.rn.f32") && !ptx.contains("fma.rn.f64"),
        "no fused multiply-add in the PTX");
    assertTrue(!ptx.contains(".ftz."), "no flush-to-zero instruction in the PTX");
  }

  /**
   * The benchmark's comparison module: the unordered variants, large2, widep, narrow-48, narrow64
   * and narrow1, built like the product's.
   */
  @Test
  void comparisonPtxHoldsTheBenchmarkOnlyKernels() throws Exception {
    String ptx;
    try (InputStream in = CudaBackend.class.getResourceAsStream(CudaTestSupport.COMPARISON_PTX)) {
      assertTrue(in != null, "comparison PTX resource present");
      ptx = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    assertTrue(ptx.contains("\n.version 8.0\n"), "PTX ISA 8.0 stamp");
    for (String k :
        new String[] {
          "small_a_1",
          "small_a_16",
          "narrow_a_24",
          "narrow_a_48",
          "narrow_o_48",
          "narrow_o_64",
          "narrow_o_32_1",
          "narrow_o_32",
          "spec_o_24",
          "spec_o_48",
          "split_o_2x16_u4t4",
          "split_o_2x12_u4t4",
          "large_o_8_2",
          "large_a_8_1",
          "pipe_a_8_2",
          "flow_a_8_2",
          "quad_a_4_2",
          "pipeq_a_4_2",
          "pipes_a_8_2",
          "spec_a_64",
          "spec_a_256",
          "resid_a",
          "grad_a",
          "widep_o_384",
          "widep_o_1024"
        }) {
      assertTrue(ptx.contains(".entry " + k + "("), "kernel " + k);
    }
    assertTrue(
        !ptx.contains("_o_1_1(") && !ptx.contains(".entry tree_pass("),
        "product kernels duplicated in the comparison PTX");
    assertTrue(
        !ptx.contains("fma.rn.f32") && !ptx.contains("fma.rn.f64"),
        "no fused multiply-add in the PTX");
    assertTrue(!ptx.contains(".ftz."), "no flush-to-zero instruction in the PTX");
  }

  /** deepxb is the ladder's plan above 1,024: in the product's PTX only. */
  @Test
  void deepxbIsAProductKernel() throws Exception {
    String product;
    try (InputStream in = CudaBackend.class.getResourceAsStream(CudaCard.PTX_RESOURCE)) {
      product = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    String bench;
    try (InputStream in = CudaBackend.class.getResourceAsStream(CudaTestSupport.COMPARISON_PTX)) {
      bench = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    assertTrue(product.contains(".entry deepxb_o("), "deepxb_o in the product's PTX");
    assertTrue(!bench.contains(".entry deepxb_o("), "deepxb_o not in the comparison PTX");
  }

  /**
   * deepf, deepw and deepx (deepxb, the ladder's, aside) are comparison kernels: in the bench
   * module only.
   */
  @Test
  void deepfKernelsAreComparisonKernels() throws Exception {
    String product;
    try (InputStream in = CudaBackend.class.getResourceAsStream(CudaCard.PTX_RESOURCE)) {
      product = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    String bench;
    try (InputStream in = CudaBackend.class.getResourceAsStream(CudaTestSupport.COMPARISON_PTX)) {
      assertTrue(in != null, "comparison PTX resource present");
      bench = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    }
    for (String k :
        new String[] {
          "deepf_o",
          "deepfb_o",
          "deepfc_o",
          "deepfd_o",
          "deepw_o",
          "deepwb_o",
          "deepwc_o",
          "deepwd_o",
          "deepwe_o",
          "deepx_o",
          "deepxc_o",
          "deepxd_o"
        }) {
      assertTrue(!product.contains(".entry " + k + "("), k + " not in the product's PTX");
      assertTrue(bench.contains(".entry " + k + "("), k + " in the comparison PTX");
    }
  }
}
