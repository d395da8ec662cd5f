package parreg.device.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.KernelBackend;

/** Binding to a card by ordinal and by UUID; unknown cards refused with the list of cards found. */
@Tag("gpu")
class CudaBindingTest {

  @Test
  void bindsByOrdinalAndByUuid() throws Exception {
    List<CudaCard.DeviceDescription> found = CudaTestSupport.devicesOrSkip();
    for (CudaCard.DeviceDescription dd : found) {
      assertTrue(
          dd.uuid().matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
          dd.uuid());
      String bare = dd.uuid().substring(4).replace("-", "").toUpperCase();
      for (String sel : new String[] {Integer.toString(dd.ordinal()), dd.uuid(), bare}) {
        try (KernelBackend b = CudaBackend.open(sel)) {
          BackendInfo info = b.info();
          assertEquals("cuda", info.backend());
          assertEquals(dd.uuid(), info.deviceUuid(), "selected by " + sel);
          assertEquals(dd.name(), info.deviceName());
          assertTrue(info.detail().contains("compute capability"), info.detail());
          assertTrue(info.detail().contains("driver CUDA"), info.detail());
        }
      }
      System.out.println("[gpu] card " + dd);
    }
  }

  @Test
  void autoPicksCudaAndSaysWhich() throws Exception {
    List<CudaCard.DeviceDescription> found = CudaTestSupport.devicesOrSkip();
    Backends.Selection s = Backends.select("auto", found.get(0).uuid());
    try (KernelBackend b = s.backend()) {
      assertEquals("cuda", b.info().backend());
      assertTrue(s.reason().contains(found.get(0).uuid()), s.reason());
    }
  }

  @Test
  void unknownUuidAndBadOrdinalAreRefusedWithTheCardsFound() {
    List<CudaCard.DeviceDescription> found = CudaTestSupport.devicesOrSkip();
    String listed = found.get(0).uuid();
    BackendUnavailableException e =
        assertThrows(
            BackendUnavailableException.class,
            () -> CudaBackend.open("GPU-00000000-1111-2222-3333-444444444444"));
    assertTrue(
        e.getMessage()
            .contains("no CUDA device with UUID GPU-00000000-1111-2222-3333-444444444444"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains(listed) && e.getMessage().contains("0: " + found.get(0).name()),
        e.getMessage());
    BackendUnavailableException o =
        assertThrows(BackendUnavailableException.class, () -> CudaBackend.open("99"));
    assertTrue(
        o.getMessage().contains("ordinal 99") && o.getMessage().contains(listed), o.getMessage());
    BackendUnavailableException g =
        assertThrows(BackendUnavailableException.class, () -> CudaBackend.open("GPU-xyz"));
    assertTrue(g.getMessage().contains(listed), g.getMessage());
    BackendUnavailableException viaSelect =
        assertThrows(
            BackendUnavailableException.class,
            () -> Backends.select("cuda", "GPU-00000000-1111-2222-3333-444444444444"));
    assertTrue(viaSelect.getMessage().contains(listed), viaSelect.getMessage());
    System.out.println("[gpu] refusal message: " + e.getMessage());
  }
}
