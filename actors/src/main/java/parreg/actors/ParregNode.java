package parreg.actors;

import com.typesafe.config.Config;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import parreg.device.BackendInfo;

/**
 * Wires one node: the actor system and its four actors. {@code main} stays thin and calls {@link
 * #start}; the tests call it too.
 */
public final class ParregNode {
  public static final String SYSTEM_NAME = "parreg";

  /** References to the node's actors, for the admin endpoint and tests. */
  public record Refs(
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<TrainingActor.Command> training,
      ActorRef<AdminActor.Command> admin) {}

  /** A running node. */
  public record Handle(
      ActorSystem<Void> system,
      NodeLifecycle lifecycle,
      CompletableFuture<BackendInfo> backend,
      CompletableFuture<Refs> refs) {}

  private ParregNode() {}

  public static Handle start(Config config, NodeSettings settings) {
    NodeLifecycle lifecycle = new NodeLifecycle();
    CompletableFuture<BackendInfo> backend = new CompletableFuture<>();
    CompletableFuture<Refs> refs = new CompletableFuture<>();
    ActorSystem<Void> system = ActorSystem.create(guardian(settings, lifecycle, backend, refs), SYSTEM_NAME, config);
    return new Handle(system, lifecycle, backend, refs);
  }

  static Behavior<Void> guardian(
      NodeSettings s, NodeLifecycle lifecycle, CompletableFuture<BackendInfo> backend, CompletableFuture<Refs> refs) {
    return Behaviors.setup(
        ctx -> {
          ActorRef<GpuActor.Command> gpu =
              ctx.spawn(
                  GpuActor.create(s.backend(), s.device(), s.partition(), s.contract().bias(), backend),
                  "gpu",
                  GpuActor.dispatcher(s.backend()));
          ActorRef<PeerActor.Command> peer = ctx.spawn(PeerActor.create(s), "peer");
          ActorRef<TrainingActor.Command> training = ctx.spawn(TrainingActor.create(s, lifecycle, gpu, peer), "training");
          ActorRef<AdminActor.Command> admin = ctx.spawn(AdminActor.create(training, gpu, peer), AdminActor.NAME);
          refs.complete(new Refs(gpu, peer, training, admin));
          return Behaviors.empty();
        });
  }
}
