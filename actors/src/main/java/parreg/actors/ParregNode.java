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
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.PartitionSource;
import parreg.device.RunContract;
import parreg.persistence.JournalRuns;

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
   * @param host the address peers reach this node by (Artery's canonical hostname), or null for the
   *     configured one
   * @param bindHost the address the cluster port listens on, or null for {@code host}
   * @param port cluster port
   * @param adminHost the HTTP endpoint's address, or null for {@code parreg.admin.host}
   * @param adminPort HTTP port, or null for port + {@code parreg.admin.port-offset}
   * @param seedNodes HOST:PORT of the seed nodes
   * @param insecure allow plain TCP on a non-loopback address
   * @param tlsKeystore PKCS12 keystore with this node's key and certificate chain, or null for
   *     plain TCP
   * @param tlsTruststore PKCS12 truststore with the cluster CA, or null
   * @param tlsPasswordFile file whose first line is the stores' password, or null for the
   *     environment variable {@code PARREG_TLS_PASSWORD}
   * @param journal directory (embedded H2) or JDBC URL
   * @param configFile HOCON overlay, or null
   * @param steps target step
   * @param backend auto, cpu or cuda
   * @param device card UUID or ordinal
   * @param evidence evidence file to create when done, or null
   * @param exitWhenDone exit once the target step is durable in every participant's journal
   * @param syncCommit write each step to the journal before the next starts (no journal lag)
   * @param stepInterval pacing, or null for {@code parreg.step-interval}
   * @param runNameGiven whether the run name was given ({@code --run-name}): a journal of another
   *     run then admits this one as a new run ({@link JournalRuns#admit})
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
      boolean syncCommit,
      Duration stepInterval,
      boolean runNameGiven) {}

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
    NodeConfig nodeConfig = NodeConfig.parse(d);
    JournalSetup journalSetup = JournalSetup.open(d.journal(), JournalSetup.writerName(d));
    // The device (for CUDA: driver, context and kernel module, the longest single step of a start
    // on a GPU) opens on its own thread from here on; it writes nothing, and the journal is created
    // only once it is open, so that a card that is not there is refused with nothing written.
    CompletableFuture<Backends.Selection> deviceOpen =
        CompletableFuture.supplyAsync(
            () -> {
              Backends.Selection s = openDevice(d.backend(), d.device());
              StartupTrace.mark("device open");
              return s;
            },
            daemon("parreg-device-open"));
    // The partition goes onto the device as soon as both are there (for CUDA: layout and upload,
    // 0.6 s for 2.6 GB on an H200), not once the actor system has started the GPU actor.
    CompletableFuture<Backends.Selection> deviceLoaded =
        deviceOpen.thenCombineAsync(
            partition.rows().handle((rows, failure) -> new Object[] {rows, failure}),
            (sel, r) -> {
              GpuActor.load(sel, (parreg.device.Partition) r[0], (Throwable) r[1], contract.bias());
              StartupTrace.mark("partition on the device");
              return sel;
            },
            daemon("parreg-device-load"));
    return run(
        d, contract, partition, validation, nodeConfig, journalSetup, deviceOpen, deviceLoaded);
  }

  private static NodeLifecycle.Outcome run(
      Deployment d,
      RunContract contract,
      PartitionSource partition,
      Validation validation,
      NodeConfig nodeConfig,
      JournalSetup journalSetup,
      CompletableFuture<Backends.Selection> deviceOpen,
      CompletableFuture<Backends.Selection> deviceLoaded)
      throws Exception {
    // Reading what the journal holds (an H2 file: engine start, a few queries) and loading the
    // configuration (every jar's reference.conf) are independent; do them concurrently. Only the
    // seed-node timeout depends on what the journal holds.
    CompletableFuture<JournalRuns.Admission> inspected = new CompletableFuture<>();
    Thread inspector =
        new Thread(
            () -> {
              try {
                inspected.complete(
                    journalSetup.inspect(
                        contract,
                        d.participant(),
                        partition.info(d.participant()),
                        d.runNameGiven()));
                StartupTrace.mark("journal inspected");
              } catch (Throwable t) {
                inspected.completeExceptionally(t);
              }
            },
            "parreg-journal-inspect");
    inspector.setDaemon(true);
    inspector.start();
    Config cfg;
    NodeSettings settings;
    try {
      cfg = nodeConfig.complete(journalSetup.config());
      settings =
          nodeConfig.settings(
              cfg,
              contract,
              partition,
              journalSetup.describe(),
              journalSetup.location().stepLogDirectory().orElse(null));
    } catch (RuntimeException e) {
      awaitInspected(inspected, journalSetup); // a journal problem is reported first
      refuse(journalSetup, deviceLoaded);
      throw e;
    }
    StartupTrace.mark("configuration loaded");
    JournalRuns.Admission admission;
    try {
      admission = awaitInspected(inspected, journalSetup);
    } catch (RuntimeException | Error e) {
      refuse(journalSetup, deviceLoaded);
      throw e;
    }
    if (admission instanceof JournalRuns.Refused refused) {
      refuse(journalSetup, deviceLoaded);
      throw new BadInput(
          refused.message()
              + "; nothing was written"
              + (refused.anotherRun()
                  ? " (a node journal belongs to one run: give --run-name NEW to start another run in it)"
                  : ""));
    }
    String clusterHost = NodeConfig.clusterHost(cfg);
    try {
      Ports.requireFree(clusterHost, d.port(), "cluster port (--port)");
      Ports.requireFree(
          nodeConfig.adminHost(),
          nodeConfig.adminPort(),
          "admin port" + (d.adminPort() != null ? " (--admin-port)" : ""));
    } catch (RuntimeException e) {
      refuse(journalSetup, deviceLoaded);
      throw e;
    }
    cfg = withJoinTimeouts(cfg, admission instanceof JournalRuns.Restart);
    Duration compactionInterval = cfg.getDuration("parreg.journal.h2-compaction.interval");
    int compactionBytes = cfg.getBytes("parreg.journal.h2-compaction.write-bytes").intValue();
    // Every input is checked now but the device, whose open began with the start. The journal is
    // created once the device is open; for an embedded journal that runs while the actor system
    // starts (neither needs the other until the actors are spawned), and a start that fails after
    // all removes what it created. A shared database's tables are not undone, so there the actor
    // system waits for them.
    CompletableFuture<Backends.Selection> prepared =
        deviceOpen.thenApplyAsync(
            device -> {
              try {
                journalSetup.create(compactionInterval, compactionBytes);
              } catch (RuntimeException e) {
                deviceLoaded.thenAccept(ParregNode::release);
                throw e;
              }
              StartupTrace.mark("journal prepared");
              return device;
            },
            daemon("parreg-journal-create"));
    // The actor system starts once the device is open: a card that is not there is refused before
    // anything runs (a system stopped while its extensions still start logs traces).
    awaitPrepared(journalSetup.undoable() ? deviceOpen : prepared, journalSetup, null);

    NodeMetrics.prepareInBackground();
    Handle node;
    try {
      node = start(systemConfig(cfg), settings, validation);
    } catch (RuntimeException e) {
      // The port was free a moment ago (checked above) but another process took it since.
      RuntimeException failure =
          Ports.bindFailure(e, clusterHost, d.port(), "cluster port (--port)")
              .<RuntimeException>map(b -> b)
              .orElse(e);
      prepared.handle((device, t) -> device).join(); // the journal is complete, or failed
      deviceLoaded.thenAccept(ParregNode::release);
      journalSetup.undoCreate();
      throw failure;
    }
    StartupTrace.mark("actor system created");
    awaitPrepared(prepared, journalSetup, node);
    if (journalSetup.rejournaled() > 0) {
      node.system()
          .log()
          .info(
              "moved {} steps from the step log into the journal (a kill under --sync-commit)",
              journalSetup.rejournaled());
    }
    try {
      go(node, cfg, deviceLoaded);
    } catch (RuntimeException e) {
      node.system().terminate();
      node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
      journalSetup.close();
      throw e;
    }
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
   * Opens the device before the journal is created, so that a card that is not there (a wrong
   * {@code --device}, {@code --backend cuda} without one) is refused with nothing written. The GPU
   * actor takes the open backend over (the CUDA backend makes its context current on the actor's
   * thread before every call).
   */
  private static Backends.Selection openDevice(String backend, String deviceId) {
    try {
      return Backends.select(backend, deviceId);
    } catch (BackendUnavailableException e) {
      throw new BadInput(e.getMessage() + "; nothing was written");
    }
  }

  /**
   * Whether this node is the first of the seed nodes: the only one Pekko lets form a cluster alone
   * (its FirstSeedNodeProcess), and so the only one that needs the long rejoin timeout. For the
   * others seed-node-timeout is only how long they wait, silent, before asking the seeds again
   * (JoinSeedNodeProcess): a long one there made a node restarted with all the others ask once,
   * before the first seed listened, and then wait the whole minute (the chaos soak took 480 s
   * instead of 146 s).
   */
  static boolean isFirstSeed(Config cfg) {
    List<String> seeds = cfg.getStringList("pekko.cluster.seed-nodes");
    String self =
        "pekko://"
            + SYSTEM_NAME
            + "@"
            + cfg.getString("pekko.remote.artery.canonical.hostname")
            + ":"
            + cfg.getInt("pekko.remote.artery.canonical.port");
    return !seeds.isEmpty() && seeds.get(0).equals(self);
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
    ActorSystem<Go> system =
        ActorSystem.create(
            guardian(settings, lifecycle, backend, refs, validation), SYSTEM_NAME, config);
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

  /**
   * The seed-node timeout of this start. Only the first seed may form a cluster alone: it waits the
   * configured timeout for the others on a fresh start, and the long rejoin timeout when its
   * journal holds a run (it is probably rejoining a cluster that still runs, and must not form an
   * island). For every other node the timeout is only how long it waits, unanswered, before asking
   * the seeds again ({@link #isFirstSeed}): a fresh cluster's second node asks once before the
   * first seed has formed the cluster and is refused, so this is a wait on every start.
   */
  static Config withJoinTimeouts(Config cfg, boolean restart) {
    String timeout;
    if (!isFirstSeed(cfg)) {
      timeout = cfg.getDuration("parreg.cluster.join-retry-interval").toMillis() + "ms";
    } else if (restart) {
      timeout = cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout").toMillis() + "ms";
    } else {
      return cfg;
    }
    return ConfigFactory.parseString("pekko.cluster.seed-node-timeout = " + timeout)
        .withFallback(cfg);
  }

  /**
   * The actor system's configuration: {@code cfg} without the seed nodes and without the
   * Persistence extension, so that the system can start while the journal is still being created
   * (the journal plugins connect as soon as the extension loads) and joins the cluster only once
   * every input is checked ({@link #go}).
   */
  static Config systemConfig(Config cfg) {
    List<String> extensions =
        cfg.getStringList("pekko.extensions").stream().filter(e -> !e.equals(PERSISTENCE)).toList();
    return ConfigFactory.parseMap(
            java.util.Map.of("pekko.cluster.seed-nodes", List.of(), "pekko.extensions", extensions))
        .withFallback(cfg);
  }

  private static final String PERSISTENCE = "org.apache.pekko.persistence.Persistence";

  /**
   * The journal is prepared and the device open: start the journal plugins, spawn the actors and
   * join the cluster through the seed nodes of {@code cfg}.
   */
  private static void go(
      Handle node, Config cfg, CompletableFuture<Backends.Selection> deviceLoaded) {
    org.apache.pekko.actor.ActorSystem classic =
        org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(node.system());
    org.apache.pekko.persistence.Persistence.get(classic); // auto-starts journal and snapshot store
    node.system().tell(new Go(deviceLoaded));
    org.apache.pekko.cluster.Cluster cluster = org.apache.pekko.cluster.Cluster.get(classic);
    if (StartupTrace.on()) {
      cluster.registerOnMemberUp(() -> StartupTrace.mark("cluster: this node Up"));
    }
    List<org.apache.pekko.actor.Address> seeds =
        cfg.getStringList("pekko.cluster.seed-nodes").stream()
            .map(org.apache.pekko.actor.AddressFromURIString::parse)
            .toList();
    cluster.joinSeedNodes(seeds);
    StartupTrace.mark("cluster join started");
  }

  /** An executor that runs each task on a new daemon thread named {@code name}. */
  private static java.util.concurrent.Executor daemon(String name) {
    return task -> {
      Thread t = new Thread(task, name);
      t.setDaemon(true);
      t.start();
    };
  }

  private static void release(Backends.Selection device) {
    if (device != null) {
      device.backend().close();
    }
  }

  /** A start refused before the journal was created: close it, and the device once it is open. */
  private static void refuse(
      JournalSetup journalSetup, CompletableFuture<Backends.Selection> deviceLoaded) {
    journalSetup.close();
    deviceLoaded.thenAccept(ParregNode::release); // (a failed load has closed it)
  }

  /**
   * The open device once the journal is prepared; on a failure (no such card, the journal cannot be
   * created) the actor system, if started, is stopped and what this start created is removed.
   */
  private static Backends.Selection awaitPrepared(
      CompletableFuture<Backends.Selection> prepared, JournalSetup journalSetup, Handle node)
      throws Exception {
    try {
      return prepared.join();
    } catch (CompletionException e) {
      if (node != null) {
        node.system().terminate();
        node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
      }
      journalSetup.undoCreate();
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }

  /**
   * The outcome of {@link JournalSetup#inspect}, its failure rethrown as it was thrown (after
   * closing the journal).
   */
  private static JournalRuns.Admission awaitInspected(
      CompletableFuture<JournalRuns.Admission> inspected, JournalSetup journalSetup) {
    try {
      return inspected.join();
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
