package parreg.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Partition;
import parreg.device.RunContract;

/**
 * One node from its deployment inputs to its end: configuration, journal preparation, the actor
 * system and its four actors, the HTTP endpoint, and waiting for the outcome. {@code parreg node}
 * parses options and calls {@link #run}; tests call {@link #start} to wire the actors alone.
 */
public final class ParregNode {
  public static final String SYSTEM_NAME = "parreg";

  /** Bad deployment input (a flag, the config file, the journal): one line, exit code 2. */
  public static final class BadInput extends RuntimeException {
    public BadInput(String message) {
      super(message);
    }
  }

  /**
   * What a node is started with, as given on the command line.
   *
   * @param participant this node's id
   * @param participants how many there are (to know when everyone is done)
   * @param host the address peers reach this node by (Artery's canonical hostname), or null for
   *     the configured one
   * @param bindHost the address the cluster port listens on, or null for {@code host}
   * @param port cluster port
   * @param adminHost the HTTP endpoint's address, or null for {@code parreg.admin.host}
   * @param adminPort HTTP port, or null for port + {@code parreg.admin.port-offset}
   * @param seedNodes HOST:PORT of the seed nodes
   * @param insecure allow plain TCP on a non-loopback address
   * @param tlsKeystore PKCS12 keystore with this node's key and certificate chain, or null for plain TCP
   * @param tlsTruststore PKCS12 truststore with the cluster CA, or null
   * @param tlsPasswordFile file whose first line is the stores' password, or null for the
   *     environment variable {@code PARREG_TLS_PASSWORD}
   * @param journal directory (embedded H2) or JDBC URL
   * @param configFile HOCON overlay, or null
   * @param steps target step
   * @param backend auto, cpu or cuda
   * @param device card UUID or ordinal
   * @param evidence evidence file to create when done, or null
   * @param exitWhenDone exit once every participant has committed the target
   * @param stepInterval pacing, or null for {@code parreg.step-interval}
   */
  public record Deployment(
      int participant,
      int participants,
      String host,
      String bindHost,
      int port,
      String adminHost,
      Integer adminPort,
      List<String> seedNodes,
      boolean insecure,
      Path tlsKeystore,
      Path tlsTruststore,
      Path tlsPasswordFile,
      String journal,
      Path configFile,
      long steps,
      String backend,
      String device,
      Path evidence,
      boolean exitWhenDone,
      Duration stepInterval) {}

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

  /**
   * Runs the node until its outcome: done (with {@code --exit-when-done}), refused, failed, or
   * its actor system gone. Bad input is thrown as {@link BadInput} before anything is written.
   */
  public static NodeLifecycle.Outcome run(Deployment d, RunContract contract, Partition partition) throws Exception {
    NodeConfig nodeConfig = NodeConfig.parse(d);
    JournalSetup journalSetup = JournalSetup.open(d.journal());
    // Opening the journal (an H2 file: engine start, schema check, one query) and loading the
    // configuration (every jar's reference.conf) are independent; do them concurrently. Only the
    // seed-node timeout depends on what the journal holds.
    String persistenceId = NodeSettings.persistenceId(contract, d.participant());
    CompletableFuture<Boolean> prepared = new CompletableFuture<>();
    Thread preparer = new Thread(() -> {
      try {
        prepared.complete(journalSetup.prepare(persistenceId));
        StartupTrace.mark("journal prepared");
      } catch (Throwable t) {
        prepared.completeExceptionally(t);
      }
    }, "parreg-journal-prepare");
    preparer.setDaemon(true);
    preparer.start();
    Config cfg;
    try {
      cfg = nodeConfig.complete(journalSetup.config());
    } catch (RuntimeException e) {
      awaitPrepared(prepared, journalSetup); // a journal problem is reported first
      journalSetup.close();
      throw e;
    }
    StartupTrace.mark("configuration loaded");
    boolean rejoining = awaitPrepared(prepared, journalSetup);
    if (rejoining) {
      cfg = ConfigFactory.parseString("pekko.cluster.seed-node-timeout = "
              + cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout").toMillis() + "ms")
          .withFallback(cfg);
    }

    NodeSettings settings = NodeSettings.of(cfg, d.participant(), contract, partition, d.steps(), d.backend(), d.device(),
        d.evidence(), d.exitWhenDone(), d.stepInterval(), journalSetup.describe());
    Handle node = start(cfg, settings);
    StartupTrace.mark("actor system created");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      node.system().terminate();
      try {
        node.system().getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // the JVM is going down anyway
      }
    }, "parreg-shutdown"));
    try {
      Refs refs = node.refs().get(30, TimeUnit.SECONDS);
      // The endpoint starts before the backend and the journal are ready: /ready says 503 until they are.
      NodeHealth health = new NodeHealth(node.system(), node.lifecycle(), node.backend(), refs.training());
      try (AdminHttpServer http =
          new AdminHttpServer(node.system(), refs.admin(), health, nodeConfig.adminHost(), nodeConfig.adminPort())) {
        BackendInfo info;
        try {
          info = node.backend().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (e.getCause() instanceof BackendUnavailableException b) {
            throw new BadInput(b.getMessage());
          }
          throw e;
        }
        // The addresses as bound, not as asked for: what peers, operators and health checks use.
        System.err.printf("parreg node %d: %s (cluster port listening on %s:%d, %s), backend %s (%s), status http://%s:%d/status%n",
            d.participant(), node.system().address(), nodeConfig.bindHost(), d.port(), nodeConfig.tls() ? "TLS" : "plain TCP",
            info.backend(), info.deviceName(), http.host(), http.port());
        return await(d, node, refs);
      }
    } finally {
      node.system().terminate();
      node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
      journalSetup.close();
    }
  }

  /** Wires the actor system and its four actors. */
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
                  DispatcherSelector.fromConfig(GpuActor.DISPATCHER));
          ActorRef<PeerActor.Command> peer = ctx.spawn(PeerActor.create(s), "peer");
          ActorRef<TrainingActor.Command> training = ctx.spawn(TrainingActor.create(s, lifecycle, gpu, peer), "training");
          ActorRef<AdminActor.Command> admin = ctx.spawn(AdminActor.create(training, gpu, peer), AdminActor.NAME);
          refs.complete(new Refs(gpu, peer, training, admin));
          return Behaviors.empty();
        });
  }

  /** Polls for the outcome; with --exit-when-done also for every participant having committed the target. */
  private static NodeLifecycle.Outcome await(Deployment d, Handle node, Refs refs) throws InterruptedException {
    NodeLifecycle lc = node.lifecycle();
    while (true) {
      try {
        return lc.outcome().get(200, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // keep polling: done-ness below, or the system going away
      } catch (ExecutionException e) {
        return new NodeLifecycle.Outcome(1, String.valueOf(e.getCause()));
      }
      if (node.system().whenTerminated().isCompleted()) {
        return new NodeLifecycle.Outcome(1, "actor system terminated");
      }
      if (d.exitWhenDone() && lc.trainingDone().isDone() && everyoneDone(d, node, refs)) {
        return new NodeLifecycle.Outcome(0, "");
      }
    }
  }

  private static boolean everyoneDone(Deployment d, Handle node, Refs refs) {
    try {
      PeerActor.View v = AskPattern.<PeerActor.Command, PeerActor.View>ask(
              refs.peer(), PeerActor.GetView::new, Duration.ofSeconds(2), node.system().scheduler())
          .toCompletableFuture()
          .get();
      return v.peers().size() == d.participants() - 1
          && v.peers().stream().allMatch(p -> p.lastKnownCommitted() >= d.steps());
    } catch (Exception e) {
      return false;
    }
  }

  /** The outcome of {@link JournalSetup#prepare}, its failure rethrown as it was thrown (after closing the journal). */
  private static boolean awaitPrepared(CompletableFuture<Boolean> prepared, JournalSetup journalSetup) {
    try {
      return prepared.join();
    } catch (CompletionException e) {
      journalSetup.close();
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
