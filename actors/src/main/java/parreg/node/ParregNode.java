package parreg.node;

import com.typesafe.config.Config;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import parreg.admin.AdminActor;
import parreg.admin.AdminHttpServer;
import parreg.admin.NodeHealth;
import parreg.cluster.ClusterJoin;
import parreg.cluster.FramingGuard;
import parreg.cluster.Membership;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.PartitionSource;
import parreg.device.RunContract;
import parreg.exchange.PeerActor;
import parreg.gpu.GpuActor;
import parreg.settings.BadInput;
import parreg.settings.Deployment;
import parreg.settings.NodeLifecycle;
import parreg.settings.NodeSettings;
import parreg.training.TrainingActor;
import parreg.training.ValidationActor;
import parreg.training.journal.JournalSetup;

/**
 * One node from its deployment inputs to its end: {@link NodeStart} checks the inputs, prepares the
 * device and the journal and starts the actor system; this class wires the actors (GPU, peer,
 * training with its journal child, the optional hold-out, admin: {@link #start}), serves the HTTP
 * endpoint and waits for the outcome ({@link RunOutcome}), once per incarnation ({@link
 * Incarnations}: a removed one is replaced in the same process). {@code parreg node} parses options
 * and calls {@link #run}; tests call {@link #start} to wire the actors alone.
 */
public final class ParregNode {
  /**
   * Hold-out evaluation ({@code node --validation}): the rows, and every how many committed steps
   * ({@link ValidationActor}).
   */
  public record Validation(parreg.device.Partition data, long every) {}

  /** References to the node's actors, for the admin endpoint and tests. */
  public record Refs(
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<TrainingActor.Command> training,
      ActorRef<AdminActor.Command> admin) {}

  /** A running node. */
  public record Handle(
      ActorSystem<Go> system,
      NodeLifecycle lifecycle,
      CompletableFuture<BackendInfo> backend,
      CompletableFuture<Refs> refs) {}

  private ParregNode() {}

  /**
   * Runs the node until its outcome: done (with {@code --exit-when-done}), stopped (SIGTERM or
   * SIGINT, exit 0), refused, failed, or its actor system gone. Bad input (a flag, the
   * configuration, a journal of another run, a port in use) is thrown as {@link BadInput} before
   * anything is written: a refused start leaves no journal behind.
   */
  public static NodeLifecycle.Outcome run(
      Deployment d, RunContract contract, PartitionSource partition) throws Exception {
    return run(d, contract, partition, null);
  }

  /**
   * As {@link #run(Deployment, RunContract, PartitionSource)}, with a hold-out evaluation (or
   * null). An incarnation removed from the cluster is replaced by a new one in this process, or
   * ends it ({@link Incarnations}).
   */
  public static NodeLifecycle.Outcome run(
      Deployment d, RunContract contract, PartitionSource partition, Validation validation)
      throws Exception {
    Incarnations incarnations = new Incarnations();
    return incarnations.run(
        (rejoins, lastRemoval) ->
            incarnation(d, contract, partition, validation, incarnations, rejoins, lastRemoval));
  }

  /** One incarnation: started, served until its outcome, stopped. */
  private static Incarnations.Ended incarnation(
      Deployment d,
      RunContract contract,
      PartitionSource partition,
      Validation validation,
      Incarnations incarnations,
      int rejoins,
      String lastRemoval)
      throws Exception {
    NodeStart.Started started =
        NodeStart.begin(d, contract, partition, validation)
            .launch(
                system -> {
                  if (rejoins > 0) {
                    Membership.get(system).rejoining(rejoins, lastRemoval);
                    system
                        .log()
                        .warn(
                            "rejoining the cluster with a new incarnation (rejoin {}), resuming from"
                                + " the journal",
                            rejoins);
                  }
                });
    Handle node = started.node();
    Config cfg = started.config();
    JournalSetup journalSetup = started.journal();
    incarnations.started(node);
    NodeLifecycle.Outcome outcome;
    try {
      outcome = serve(d, partition, started);
      if (outcome.exitCode() == NodeLifecycle.REMOVED) {
        // What it committed was agreed by every participant: write it before the next start.
        outcome =
            new NodeLifecycle.Outcome(
                outcome.exitCode(), outcome.message() + RunOutcome.flush(node));
      }
    } catch (Throwable t) {
      incarnations.ended();
      stop(node, journalSetup);
      throw t;
    }
    incarnations.ended();
    boolean stopped = stop(node, journalSetup);
    if (!stopped && outcome.exitCode() != NodeLifecycle.REMOVED) {
      throw new TimeoutException("the actor system did not stop within 15 s");
    }
    return new Incarnations.Ended(
        outcome, stopped, "rejoin".equals(cfg.getString(Membership.ON_REMOVAL)));
  }

  /**
   * Terminates the incarnation's actor system and closes its journal; false when it would not stop.
   */
  private static boolean stop(Handle node, JournalSetup journalSetup) throws Exception {
    node.system().terminate();
    try {
      node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      return false;
    }
    journalSetup.close();
    return true;
  }

  /** Serves a started incarnation (the HTTP endpoint, the backend) until its outcome. */
  private static NodeLifecycle.Outcome serve(
      Deployment d, PartitionSource partition, NodeStart.Started started) throws Exception {
    Handle node = started.node();
    Config cfg = started.config();
    NodeConfig nodeConfig = started.nodeConfig();
    Refs refs = node.refs().get(30, TimeUnit.SECONDS);
    // The endpoint starts before the backend and the journal are ready: /ready says 503 until
    // they are.
    NodeHealth health =
        new NodeHealth(node.system(), node.lifecycle(), node.backend(), refs.training());
    AdminHttpServer server;
    try {
      server =
          new AdminHttpServer(
              node.system(), refs.admin(), health, nodeConfig.adminHost(), nodeConfig.adminPort());
    } catch (java.io.IOException e) {
      throw Ports.bindFailure(e, nodeConfig.adminHost(), nodeConfig.adminPort(), "admin port")
          .orElseThrow(() -> e);
    }
    try (AdminHttpServer http = server) {
      BackendInfo info;
      try {
        // The rows of a partition read behind the start take what the file takes (a large one on
        // a slow disk: minutes); the device's time limit counts from when they are in.
        CompletableFuture.anyOf(node.backend(), partition.rows()).handle((r, t) -> null).join();
        info = node.backend().get(120, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof BackendUnavailableException b) {
          throw new BadInput(b.getMessage());
        }
        throw e;
      }
      // The addresses as bound, not as asked for: what peers, operators and health checks use.
      System.err.printf(
          "parreg node %d: %s (cluster port listening on %s:%d, %s), backend %s (%s), status http://%s:%d/status%n",
          d.participant(),
          node.system().address(),
          nodeConfig.bindHost(),
          d.port(),
          nodeConfig.tls() ? "TLS" : "plain TCP",
          info.backend(),
          info.deviceName(),
          http.host(),
          http.port());
      return RunOutcome.await(d, node, refs, cfg.getDuration("parreg.peer.refusal-grace"));
    }
  }

  /**
   * Told to a node's guardian once its journal is prepared: spawn the actors. {@code device} is the
   * backend, opened and loaded off the actors (the GPU actor is ready when it completes), or null:
   * the GPU actor opens and loads it itself.
   */
  public record Go(CompletableFuture<Backends.Selection> device) {}

  /** Wires the actor system and its actors; the GPU actor opens the backend itself. */
  public static Handle start(Config config, NodeSettings settings) {
    Handle h = start(config, settings, null);
    h.system().tell(new Go(null));
    return h;
  }

  /**
   * Starts the actor system; its guardian spawns the actors when told {@link Go}. {@code
   * validation} is the hold-out evaluation (or null).
   */
  static Handle start(Config config, NodeSettings settings, Validation validation) {
    NodeLifecycle lifecycle = new NodeLifecycle();
    CompletableFuture<BackendInfo> backend = new CompletableFuture<>();
    CompletableFuture<Refs> refs = new CompletableFuture<>();
    // plain TCP: Artery on an internal port behind the framing guard, which takes the cluster port
    Optional<FramingGuard.Plan> guard = FramingGuard.plan(config);
    ActorSystem<Go> system =
        ActorSystem.create(
            guardian(settings, lifecycle, backend, refs, validation),
            ClusterJoin.SYSTEM_NAME,
            guard.map(g -> g.systemConfig(config)).orElse(config));
    if (guard.isPresent()) {
      try {
        FramingGuard.start(system, guard.get());
      } catch (java.io.IOException | RuntimeException e) {
        system.terminate();
        try {
          system.getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
        } catch (Exception ignored) {
          // the start failed anyway; its cause is what is reported
        }
        throw new IllegalStateException(
            "cannot listen on the cluster port "
                + guard.get().host()
                + ":"
                + guard.get().port()
                + ": "
                + e.getMessage(),
            e);
      }
    }
    return new Handle(system, lifecycle, backend, refs);
  }

  static Behavior<Go> guardian(
      NodeSettings s,
      NodeLifecycle lifecycle,
      CompletableFuture<BackendInfo> backend,
      CompletableFuture<Refs> refs,
      Validation validation) {
    return Behaviors.setup(
        ctx ->
            Behaviors.receive(Go.class)
                .onMessage(
                    Go.class,
                    go -> {
                      ActorRef<GpuActor.Command> gpu =
                          ctx.spawn(
                              go.device() != null
                                  ? GpuActor.create(go.device(), backend)
                                  : GpuActor.create(
                                      s.backend(),
                                      s.device(),
                                      s.partition(),
                                      s.contract().bias(),
                                      backend),
                              "gpu",
                              GpuActor.dispatcher(s.backend()));
                      ActorRef<PeerActor.Command> peer = ctx.spawn(PeerActor.create(s), "peer");
                      ActorRef<TrainingActor.Command> training =
                          ctx.spawn(TrainingActor.create(s, lifecycle, gpu, peer), "training");
                      ActorRef<ValidationActor.Command> holdOut =
                          validation == null
                              ? null
                              : ctx.spawn(
                                  ValidationActor.create(
                                      validation.data(),
                                      s.contract().bias(),
                                      validation.every(),
                                      training),
                                  "validation");
                      ActorRef<AdminActor.Command> admin =
                          ctx.spawn(
                              AdminActor.create(training, gpu, peer, holdOut), AdminActor.NAME);
                      refs.complete(new Refs(gpu, peer, training, admin));
                      return Behaviors.ignore();
                    })
                .build());
  }
}
