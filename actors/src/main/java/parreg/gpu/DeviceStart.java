package parreg.gpu;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.Partition;
import parreg.device.PartitionSource;

/**
 * How the GPU actor becomes ready: the device opened and the partition's rows put onto it, either
 * by the actor itself or, on a node's start, off the actors before the actor system exists ({@link
 * #load}). Until then commands wait in a stash; a failure completes the actor's {@code onReady}
 * with a {@link BackendUnavailableException} and stops it.
 */
public final class DeviceStart {
  private DeviceStart() {}

  /** The partition's rows, read concurrently with the start (or their read's failure). */
  public record RowsRead(Partition rows, Throwable failure) implements GpuActor.Command {}

  /** The backend, opened and loaded off the actor (or the failure of either). */
  private record Preloaded(Backends.Selection sel, Throwable failure) implements GpuActor.Command {}

  /**
   * Puts the rows onto an open device (on the calling thread; the CUDA backend makes its context
   * current there) and returns the selection that holds them (binary64 rows go to the CPU backend),
   * closing the device on a failure: the read's failure, or the load's, as a {@link
   * BackendUnavailableException} in a {@link CompletionException}.
   */
  public static Backends.Selection load(Backends.Selection sel, RowsRead r, boolean bias) {
    if (r.failure() != null) {
      sel.backend().close();
      Throwable cause = unwrap(r.failure());
      throw new CompletionException(
          new BackendUnavailableException(String.valueOf(cause.getMessage()), cause));
    }
    if (r.rows().precision() == parreg.device.Precision.F64
        && !(sel.backend() instanceof parreg.device.CpuBackend)) {
      // Binary64 data are the exact solver's, whose pass runs on the host on every backend: the
      // card would hold a copy it never reads.
      sel.backend().close();
      sel =
          new Backends.Selection(
              new parreg.device.CpuBackend(),
              "backend cpu: binary64 data (--precision f64), whose statistics pass runs on the"
                  + " host ("
                  + sel.reason()
                  + ")");
    }
    try {
      sel.backend().load(r.rows(), bias);
    } catch (RuntimeException e) {
      sel.backend().close();
      throw new CompletionException(
          new BackendUnavailableException("loading the partition onto the device failed: " + e, e));
    }
    return sel;
  }

  /** The actor opens the device itself ({@code open} returns null once it failed) and loads it. */
  static Behavior<GpuActor.Command> opening(
      Supplier<Backends.Selection> open,
      PartitionSource partition,
      boolean bias,
      CompletableFuture<BackendInfo> onReady) {
    return Behaviors.setup(
        ctx -> {
          // The device opens (CUDA context, kernel module) while the rows may still be read.
          Backends.Selection sel = open.get();
          if (sel == null) {
            return Behaviors.stopped();
          }
          if (partition.rows().isDone()) {
            return loaded(ctx, sel, partition.rows().handle(RowsRead::new).join(), bias, onReady);
          }
          // Not on this thread's time: commands wait in the stash until the rows are in.
          ctx.pipeToSelf(partition.rows(), RowsRead::new);
          return waiting(
              RowsRead.class,
              (stash, r) -> stash.unstashAll(loaded(ctx, sel, r, bias, onReady)),
              () -> sel.backend().close());
        });
  }

  /** The device was opened and loaded off the actor: ready once {@code loaded} completes. */
  static Behavior<GpuActor.Command> preloaded(
      CompletableFuture<Backends.Selection> loaded, CompletableFuture<BackendInfo> onReady) {
    return Behaviors.setup(
        ctx -> {
          ctx.pipeToSelf(loaded, Preloaded::new);
          return waiting(
              Preloaded.class,
              (stash, r) -> {
                if (r.failure() != null) {
                  onReady.completeExceptionally(unwrap(r.failure()));
                  return Behaviors.stopped();
                }
                return stash.unstashAll(GpuActor.ready(ctx, r.sel(), onReady));
              },
              () -> loaded.thenAccept(sel -> sel.backend().close()));
        });
  }

  /** What a waiting actor does with the message it waits for. */
  private interface OnArrival<T> {
    Behavior<GpuActor.Command> apply(StashBuffer<GpuActor.Command> stash, T message);
  }

  /** Stashes every command until a {@code T} arrives; {@code onStop} releases the device. */
  private static <T extends GpuActor.Command> Behavior<GpuActor.Command> waiting(
      Class<T> arrival, OnArrival<T> then, Runnable onStop) {
    return Behaviors.withStash(
        Integer.MAX_VALUE,
        stash ->
            Behaviors.receive(GpuActor.Command.class)
                .onMessage(arrival, m -> then.apply(stash, m))
                .onSignal(
                    PostStop.class,
                    s -> {
                      onStop.run();
                      return Behaviors.same();
                    })
                .onAnyMessage(
                    m -> {
                      stash.stash(m);
                      return Behaviors.same();
                    })
                .build());
  }

  private static Behavior<GpuActor.Command> loaded(
      ActorContext<GpuActor.Command> ctx,
      Backends.Selection sel,
      RowsRead r,
      boolean bias,
      CompletableFuture<BackendInfo> onReady) {
    Backends.Selection used;
    try {
      used = load(sel, r, bias);
    } catch (CompletionException e) {
      onReady.completeExceptionally(e.getCause());
      return Behaviors.stopped();
    }
    return GpuActor.ready(ctx, used, onReady);
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof CompletionException c && c.getCause() != null ? c.getCause() : t;
  }
}
