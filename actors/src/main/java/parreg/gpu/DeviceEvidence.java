package parreg.gpu;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.util.LinkedHashMap;
import java.util.Map;
import parreg.device.data.AtomicFiles;

/** The device evidence file (SPEC section 6): what the GPU actor ran, written once. */
final class DeviceEvidence {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DeviceEvidence() {}

  /** Writes {@code w.file()} from the actor's telemetry; the reply names an error or none. */
  static GpuActor.EvidenceWritten write(GpuActor.WriteEvidence w, GpuActor.Telemetry t) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("kind", "parreg-device-evidence/v1");
    doc.put("run", w.runDigest());
    doc.put("participant", w.participant());
    doc.put("backend", t.info().backend());
    doc.put("deviceName", t.info().deviceName());
    doc.put("deviceUuid", t.info().deviceUuid());
    doc.put("detail", t.info().detail());
    doc.put("launchesIssued", t.launchesIssued());
    doc.put("launchesRetired", t.launchesRetired());
    doc.put("lastStep", t.lastStep());
    doc.put("finalResultBits", t.lastResultBits());
    doc.put("lastFences", t.recentFences());
    String error = null;
    // The evidence is a record of what happened, never replaced by a later run; it is on disk (the
    // file and its directory entry fsynced) before the node reports done, and a reader sees all of
    // it or nothing (AtomicFiles).
    try {
      byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc);
      AtomicFiles.writeNew(
          w.file(),
          ch -> {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
              ch.write(b);
            }
          });
    } catch (FileAlreadyExistsException e) {
      error = "evidence file " + w.file() + " already exists; it is never overwritten";
    } catch (IOException e) {
      error = "cannot write evidence file " + w.file() + ": " + e.getMessage();
    }
    return new GpuActor.EvidenceWritten(w.file(), error);
  }
}
