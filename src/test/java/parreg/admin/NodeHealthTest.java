package parreg.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import parreg.device.BackendInfo;
import parreg.settings.NodeLifecycle;
import parreg.training.TrainingActor;

/**
 * {@code /ready} step by step: backend starting, not Up, journal not open, ready, stopping,
 * shutting down — each with its reason; {@code /alive} until the actor system is gone.
 */
class NodeHealthTest {
  final ActorTestKit kit =
      ActorTestKit.create(
          "health",
          ConfigFactory.parseString(
              "pekko.actor.provider = cluster\n"
                  + "pekko.remote.artery.canonical.hostname = \"127.0.0.1\"\n"
                  + "pekko.remote.artery.canonical.port = 0\n"
                  + "pekko.cluster.jmx.enabled = off\n"
                  + "pekko.cluster.periodic-tasks-initial-delay = 200ms\n"
                  + "pekko.cluster.gossip-interval = 200ms\n"
                  + "pekko.cluster.leader-actions-interval = 200ms\n"
                  + "pekko.coordinated-shutdown.exit-jvm = off\n"));

  @AfterEach
  void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void readyOnlyWhenUpWithJournalAndBackendAndNotWhileShuttingDown() throws InterruptedException {
    NodeLifecycle lifecycle = new NodeLifecycle();
    CompletableFuture<BackendInfo> backend = new CompletableFuture<>();
    CompletableFuture<Boolean> recovered = new CompletableFuture<>();
    // stands in for the training actor: like an event-sourced actor in recovery, it answers only
    // once recovered
    ActorRef<TrainingActor.Command> training =
        kit.spawn(
            Behaviors.receiveMessage(
                m -> {
                  if (m instanceof TrainingActor.GetState g && recovered.isDone()) {
                    g.replyTo()
                        .tell(
                            new TrainingActor.View(
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                0,
                                1,
                                new double[0],
                                Double.NaN,
                                TrainingActor.Phase.STARTING,
                                null,
                                null,
                                0,
                                0,
                                0,
                                0,
                                "test",
                                0L,
                                Double.NaN,
                                Double.NaN,
                                null));
                  }
                  return Behaviors.same();
                }));
    NodeHealth health = new NodeHealth(kit.system(), lifecycle, backend, training);

    assertEquals(new NodeHealth.Check(false, "backend starting"), health.ready());
    backend.complete(null);
    // Not joined yet (Pekko's placeholder status is Removed): said as what it is.
    assertEquals(
        "not yet a member of the cluster: joining through its seed nodes", health.ready().reason());
    Cluster cluster = Cluster.get(kit.system());
    cluster.manager().tell(Join.create(cluster.selfMember().address()));
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!cluster.selfMember().status().equals(MemberStatus.up())
        && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(new NodeHealth.Check(false, "journal not open yet (recovering)"), health.ready());
    recovered.complete(true);
    assertEquals(new NodeHealth.Check(true, ""), health.ready());
    assertEquals(
        "Up",
        ((java.util.List<?>) health.members().get("members"))
            .stream().map(m -> ((java.util.Map<?, ?>) m).get("status")).findFirst().orElse(null));

    lifecycle.refuse("a peer has another contract");
    assertEquals(
        new NodeHealth.Check(false, "stopping: a peer has another contract"), health.ready());

    NodeHealth fresh = new NodeHealth(kit.system(), new NodeLifecycle(), backend, training);
    CoordinatedShutdown.get(kit.system()).run(CoordinatedShutdown.unknownReason());
    assertEquals(new NodeHealth.Check(false, "shutting down"), fresh.ready());
    kit.system().getWhenTerminated().toCompletableFuture().join();
    assertEquals(new NodeHealth.Check(false, "actor system terminated"), fresh.alive());
  }
}
