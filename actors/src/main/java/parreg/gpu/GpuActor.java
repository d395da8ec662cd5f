package parreg.gpu;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Receive;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.Bits;
import parreg.device.KernelBackend;
import parreg.device.LocalSums;
import parreg.device.PartitionSource;
import parreg.metrics.NodeMetrics;
import parreg.metrics.StartupTrace;
import parreg.metrics.StepTrace;

/**
 * Owns the device: opens the backend on its own thread (a CUDA context is current per thread, so
 * this actor runs on the pinned {@code parreg.gpu-dispatcher}), keeps the partition resident, and
 * serialises launches: each launch is followed by awaiting its fence before the result is read back
 * and before the next launch. Requests that arrive meanwhile wait in the mailbox.
 */
public final class GpuActor extends AbstractBehavior<GpuActor.Command> {

  public static final String DISPATCHER = "parreg.gpu-dispatcher";

  /**
   * Where the actor runs: its own pinned thread wherever a CUDA context may be opened (a context is
   * current per thread); on the node's default dispatcher where none can be, since there is no
   * context to pin and a step then costs two thread hand-offs less (~50-100 us of CPU per step on
   * the seed run, BENCHMARKS.md): with {@code --backend cpu}, and with {@code auto} on a machine
   * without the NVIDIA kernel driver (no {@code /proc/driver/nvidia/version}; auto then picks the
   * CPU backend anyway). Launches stay serialised either way: one actor.
   */
  public static DispatcherSelector dispatcher(String backendKind) {
    boolean noCuda =
        "cpu".equals(backendKind)
            || ("auto".equals(backendKind)
                && !java.nio.file.Files.exists(
                    java.nio.file.Path.of("/proc/driver/nvidia/version")));
    return noCuda
        ? DispatcherSelector.defaultDispatcher()
        : DispatcherSelector.fromConfig(DISPATCHER);
  }

  public interface Command {}

  /** Compute the local sums of samples {@code [start, start+length)} at {@code params}. */
  public record Compute(
      long step, double[] params, int start, int length, ActorRef<Computed> replyTo)
      implements Command {}

  /**
   * Compute the exact solver's statistics of the whole partition, the contribution to {@code step}
   * (its only step; {@link parreg.device.ExactStep}).
   */
  public record ComputeStatistics(long step, ActorRef<Computed> replyTo) implements Command {}

  public record Computed(long step, LocalSums sums) {}

  public record GetTelemetry(ActorRef<Telemetry> replyTo) implements Command {}

  /** One retired launch: its step, when its fence was seen retired, how long the wait took. */
  public record FenceStamp(
      long step, String retiredAt, double fenceWaitMillis, double deviceMillis) {}

  public record Telemetry(
      BackendInfo info,
      String selection,
      long launchesIssued,
      long launchesRetired,
      double lastFenceWaitMillis,
      double maxFenceWaitMillis,
      double totalFenceWaitMillis,
      double lastDeviceMillis,
      long lastStep,
      String[] lastResultBits,
      List<FenceStamp> recentFences) {}

  /** Write the device evidence file (SPEC section 6), created exclusively. */
  public record WriteEvidence(
      Path file, String runDigest, int participant, ActorRef<EvidenceWritten> replyTo)
      implements Command {}

  public record EvidenceWritten(Path file, String error) {}

  private static final int RECENT = 16;

  private final KernelBackend backend;
  private final String selection;
  private final NodeMetrics metrics;
  private long issued;
  private long retired;
  private double lastWait;
  private double maxWait;
  private double totalWait;
  private double lastDevice = Double.NaN;
  private long lastStep;
  private LocalSums lastResult;
  private final ArrayDeque<FenceStamp> recent = new ArrayDeque<>();

  /**
   * @param onReady told the backend's description once it is open and the partition loaded, or
   *     completed exceptionally with a {@link BackendUnavailableException} when the requested
   *     device cannot be used or the partition's rows cannot be read
   */
  public static Behavior<Command> create(
      String backendKind,
      String device,
      PartitionSource partition,
      boolean bias,
      java.util.concurrent.CompletableFuture<BackendInfo> onReady) {
    return create(
        () -> {
          try {
            return Backends.select(backendKind, device);
          } catch (BackendUnavailableException e) {
            onReady.completeExceptionally(e);
            return null;
          }
        },
        partition,
        bias,
        onReady);
  }

  /** The actor opens the device itself ({@code open} returns null once it failed) and loads it. */
  public static Behavior<Command> create(
      Supplier<Backends.Selection> open,
      PartitionSource partition,
      boolean bias,
      java.util.concurrent.CompletableFuture<BackendInfo> onReady) {
    return DeviceStart.opening(open, partition, bias, onReady);
  }

  /**
   * A GPU actor whose backend was opened and loaded before it started ({@link DeviceStart#load}):
   * ready once {@code loaded} completes; commands wait in the stash until then.
   */
  public static Behavior<Command> create(
      java.util.concurrent.CompletableFuture<Backends.Selection> loaded,
      java.util.concurrent.CompletableFuture<BackendInfo> onReady) {
    return DeviceStart.preloaded(loaded, onReady);
  }

  private static final String CPU_FALLBACK = "backend auto: picked cpu (";

  /** The device is open and holds the partition: the actor serves launches from here on. */
  static Behavior<Command> ready(
      ActorContext<Command> ctx,
      Backends.Selection sel,
      java.util.concurrent.CompletableFuture<BackendInfo> onReady) {
    StartupTrace.mark("backend ready (partition loaded)");
    if (sel.reason().startsWith(CPU_FALLBACK)) {
      // The common case on a machine without a card: one short line; why CUDA was not usable (the
      // loader's own words, long) at DEBUG, and in the device evidence.
      ctx.getLog()
          .info(
              "backend auto: picked cpu (no usable CUDA device); device {}",
              sel.backend().info().deviceName());
      ctx.getLog().debug(sel.reason());
    } else {
      ctx.getLog()
          .info(
              "{}; device {} ({})",
              sel.reason(),
              sel.backend().info().deviceName(),
              sel.backend().info().deviceUuid());
    }
    onReady.complete(sel.backend().info());
    return new GpuActor(ctx, sel.backend(), sel.reason());
  }

  private GpuActor(ActorContext<Command> ctx, KernelBackend backend, String selection) {
    super(ctx);
    this.metrics = NodeMetrics.get(ctx.getSystem());
    this.backend = backend;
    this.selection = selection;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Compute.class, this::onCompute)
        .onMessage(ComputeStatistics.class, this::onComputeStatistics)
        .onMessage(GetTelemetry.class, this::onGetTelemetry)
        .onMessage(WriteEvidence.class, this::onWriteEvidence)
        .onSignal(PostStop.class, s -> onStop())
        .build();
  }

  private Behavior<Command> onCompute(Compute c) {
    StepTrace.stamp(1, c.step());
    return awaitAndReply(backend.launch(c.params(), c.start(), c.length()), c.step(), c.replyTo());
  }

  private Behavior<Command> onComputeStatistics(ComputeStatistics c) {
    StepTrace.stamp(1, c.step());
    return awaitAndReply(backend.launchStatistics(), c.step(), c.replyTo());
  }

  private Behavior<Command> awaitAndReply(
      KernelBackend.Launch launch, long step, ActorRef<Computed> replyTo) {
    issued++;
    long t0 = System.nanoTime();
    LocalSums sums = launch.await(); // the fence: nothing is read or launched before it retires
    long fenceNanos = System.nanoTime() - t0;
    double waited = fenceNanos / 1e6;
    metrics.launched(fenceNanos);
    retired++;
    lastWait = waited;
    maxWait = Math.max(maxWait, waited);
    totalWait += waited;
    lastDevice = launch.deviceMillis();
    lastStep = step;
    lastResult = sums;
    recent.addLast(new FenceStamp(step, Instant.now().toString(), waited, lastDevice));
    if (recent.size() > RECENT) {
      recent.removeFirst();
    }
    StepTrace.stamp(2, step);
    replyTo.tell(new Computed(step, sums));
    return this;
  }

  private Telemetry telemetry() {
    String[] bits = lastResult == null ? new String[0] : resultBits(lastResult);
    return new Telemetry(
        backend.info(),
        selection,
        issued,
        retired,
        lastWait,
        maxWait,
        totalWait,
        lastDevice,
        lastStep,
        bits,
        List.copyOf(recent));
  }

  /** At most this many values of a result in the telemetry (the statistics may hold millions). */
  private static final int RESULT_BITS_SHOWN = 64;

  private static String[] resultBits(LocalSums s) {
    List<String> out = new ArrayList<>();
    for (int j = 0; j < Math.min(s.length(), RESULT_BITS_SHOWN); j++) {
      out.add(Bits.hex(s.gradient(j)));
    }
    if (s.length() > RESULT_BITS_SHOWN) {
      out.add("... " + (s.length() - RESULT_BITS_SHOWN) + " more");
    }
    out.add(Bits.hex(s.lossSum()));
    out.add(Long.toUnsignedString(s.mass()));
    return out.toArray(String[]::new);
  }

  private Behavior<Command> onGetTelemetry(GetTelemetry g) {
    g.replyTo().tell(telemetry());
    return this;
  }

  private Behavior<Command> onWriteEvidence(WriteEvidence w) {
    w.replyTo().tell(DeviceEvidence.write(w, telemetry()));
    return this;
  }

  private Behavior<Command> onStop() {
    backend.close();
    return this;
  }
}
