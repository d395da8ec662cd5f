package parreg.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Partition;
import parreg.device.PartitionSource;
import parreg.device.ReferenceKernel;
import parreg.device.SeedData;

/**
 * The GPU actor on a partition whose rows are still being read: it waits for them, then serves; a
 * failed read fails the node's start.
 */
class GpuActorLoadTest {
  final ActorTestKit kit =
      ActorTestKit.create(
          ConfigFactory.parseString("pekko.actor.provider = local\npekko.loglevel = WARNING"));

  @AfterEach
  void stop() {
    kit.shutdownTestKit();
  }

  static PartitionSource pending(Partition p, CompletableFuture<Partition> rows) {
    return PartitionSource.pending(p.samples(), p.features(), p.digest(), rows);
  }

  @Test
  void aComputeSentBeforeTheRowsArriveIsAnsweredOnceTheyDo() throws Exception {
    Partition p = SeedData.partition(0);
    CompletableFuture<Partition> rows = new CompletableFuture<>();
    CompletableFuture<BackendInfo> ready = new CompletableFuture<>();
    ActorRef<GpuActor.Command> gpu =
        kit.spawn(GpuActor.create("cpu", "0", pending(p, rows), false, ready));
    TestProbe<GpuActor.Computed> probe = kit.createTestProbe();
    double[] w = {3.0};
    gpu.tell(new GpuActor.Compute(1, w, 0, p.samples(), probe.getRef()));
    probe.expectNoMessage(Duration.ofMillis(200));
    assertFalse(ready.isDone(), "not ready before the rows are loaded");
    rows.complete(p);
    GpuActor.Computed c = probe.receiveMessage(Duration.ofSeconds(10));
    assertEquals("cpu", ready.get(10, TimeUnit.SECONDS).backend());
    assertTrue(
        ReferenceKernel.compute(p, 0, p.samples(), w, false).sameBits(c.sums()),
        "the bits of the reference kernel");
  }

  @Test
  void aFailedReadFailsTheStartWithTheReadsMessage() {
    Partition p = SeedData.partition(1);
    CompletableFuture<Partition> rows = new CompletableFuture<>();
    CompletableFuture<BackendInfo> ready = new CompletableFuture<>();
    kit.spawn(GpuActor.create("cpu", "0", pending(p, rows), false, ready));
    rows.completeExceptionally(
        new IllegalStateException(
            "/data/p.prb byte 2097216: payload checksum mismatch in block 2"));
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> ready.get(10, TimeUnit.SECONDS));
    BackendUnavailableException b =
        assertInstanceOf(BackendUnavailableException.class, e.getCause());
    assertEquals("/data/p.prb byte 2097216: payload checksum mismatch in block 2", b.getMessage());
  }

  /**
   * A node opens the device and loads the partition before its actor system starts
   * (ParregNode.run): the GPU actor takes the loaded backend and answers what was sent before.
   */
  @Test
  void aBackendLoadedBeforeTheActorServesOnceItArrives() throws Exception {
    Partition p = SeedData.partition(0);
    CompletableFuture<parreg.device.Backends.Selection> loaded = new CompletableFuture<>();
    CompletableFuture<BackendInfo> ready = new CompletableFuture<>();
    ActorRef<GpuActor.Command> gpu = kit.spawn(GpuActor.create(loaded, ready));
    TestProbe<GpuActor.Computed> probe = kit.createTestProbe();
    double[] w = {3.0};
    gpu.tell(new GpuActor.Compute(1, w, 0, p.samples(), probe.getRef()));
    loaded.complete(
        DeviceStart.load(
            parreg.device.Backends.select("cpu", "0"), new DeviceStart.RowsRead(p, null), false));
    GpuActor.Computed c = probe.receiveMessage(Duration.ofSeconds(10));
    assertEquals("cpu", ready.get(10, TimeUnit.SECONDS).backend());
    assertTrue(ReferenceKernel.compute(p, 0, p.samples(), w, false).sameBits(c.sums()));
  }

  /**
   * A read that fails before the actor exists fails the start with the read's message, as above.
   */
  @Test
  void aReadThatFailedBeforeTheActorFailsTheStart() throws Exception {
    parreg.device.Backends.Selection sel = parreg.device.Backends.select("cpu", "0");
    CompletableFuture<parreg.device.Backends.Selection> loaded =
        CompletableFuture.supplyAsync(
            () ->
                DeviceStart.load(
                    sel,
                    new DeviceStart.RowsRead(
                        null,
                        new java.util.concurrent.CompletionException(
                            new IllegalStateException("/data/p.prb byte 64: bad block"))),
                    false));
    CompletableFuture<BackendInfo> ready = new CompletableFuture<>();
    kit.spawn(GpuActor.create(loaded, ready));
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> ready.get(10, TimeUnit.SECONDS));
    BackendUnavailableException b =
        assertInstanceOf(BackendUnavailableException.class, e.getCause());
    assertEquals("/data/p.prb byte 64: bad block", b.getMessage());
  }
}
