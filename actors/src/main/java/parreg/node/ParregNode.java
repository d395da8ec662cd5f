package parreg.node;

import com.typesafe.config.Config;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import parreg.admin.AdminActor;
import parreg.admin.AdminHttpServer;
import parreg.admin.NodeHealth;
import parreg.cluster.ClusterJoin;
import parreg.cluster.FramingGuard;
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
 * device and the journal and starts the actor system; this class wires the four actors ({@link
 * #start}), serves the HTTP endpoint and waits for the outcome ({@link RunOutcome}). {@code parreg
 * node} parses options and calls {@link #run}; tests call {@link #start} to wire the actors alone.
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
   * null).
   */
  public static NodeLifecycle.Outcome run(
      Deployment d, RunContract contract, PartitionSource partition, Validation validation)
      throws Exception {
    NodeStart.Started started = NodeStart.begin(d, contract, partition, validation).launch();
    Handle node = started.node();
    Config cfg = started.config();
    NodeConfig nodeConfig = started.nodeConfig();
    JournalSetup journalSetup = started.journal();
    // SIGTERM (kill, systemd, docker stop) and SIGINT (Ctrl-C) ask the node to stop: it starts no
    // more steps, writes what it committed (the journal runs behind the step), then ends like a
    // finished run, leaving the cluster and closing its journal, and exits 0. (The JVM's default
    // would run the shutdown hooks and exit 143 or 130.) The same command resumes the run exactly
    // there.
    for (String signal : List.of("TERM", "INT")) {
      sun.misc.Signal.handle(
          new sun.misc.Signal(signal),
          sig -> {
            String durable = RunOutcome.flush(node);
            node.lifecycle().stop("stopped (SIG" + signal + ")" + durable);
          });
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  node.system().terminate();
                  try {
                    node.system()
                        .getWhenTerminated()
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
                  } catch (Exception ignored) {
                    // the JVM is going down anyway
                  }
                },
                "parreg-shutdown"));
    try {
      Refs refs = node.refs().get(30, TimeUnit.SECONDS);
      // The endpoint starts before the backend and the journal are ready: /ready says 503 until
      // they are.
      NodeHealth health =
          new NodeHealth(node.system(), node.lifecycle(), node.backend(), refs.training());
      AdminHttpServer server;
      try {
        server =
            new AdminHttpServer(
                node.system(),
                refs.admin(),
                health,
                nodeConfig.adminHost(),
                nodeConfig.adminPort());
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
    } finally {
      node.system().terminate();
      node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
      journalSetup.close();
    }
  }

  /**
   * Told to a node's guardian once its journal is prepared: spawn the actors. {@code device} is the
   * backend, opened and loaded off the actors (the GPU actor is ready when it completes), or null:
   * the GPU actor opens and loads it itself.
   */
  public record Go(CompletableFuture<Backends.Selection> device) {}

  /** Wires the actor system and its four actors; the GPU actor opens the backend itself. */
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
