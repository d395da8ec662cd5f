package parreg.node;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import parreg.cluster.ClusterJoin;
import parreg.device.BackendUnavailableException;
import parreg.device.Backends;
import parreg.device.PartitionSource;
import parreg.device.RunContract;
import parreg.gpu.DeviceStart;
import parreg.metrics.NodeMetrics;
import parreg.metrics.StartupTrace;
import parreg.node.ParregNode.Handle;
import parreg.node.ParregNode.Validation;
import parreg.persistence.JournalRuns;
import parreg.settings.BadInput;
import parreg.settings.Deployment;
import parreg.settings.NodeSettings;
import parreg.training.journal.JournalSetup;

/**
 * A node's start, from its deployment inputs to an actor system that joins the cluster, in the
 * order that makes it short and leaves nothing behind when refused: the device opens and takes the
 * partition on threads of its own from the first moment ({@link #begin}); then ({@link #launch})
 * what the journal holds is read while the configuration loads, every input is checked, and only
 * then is the journal created, while the actor system starts. A start that fails undoes what it did
 * (the device released, an embedded journal it created removed).
 */
final class NodeStart {
  private final Deployment d;
  private final RunContract contract;
  private final PartitionSource partition;
  private final Validation validation;
  private final NodeConfig nodeConfig;
  private final JournalSetup journalSetup;
  private final CompletableFuture<Backends.Selection> deviceOpen;
  private final CompletableFuture<Backends.Selection> deviceLoaded;

  /** A started node: the actor system (joining), its configuration and its journal. */
  record Started(Handle node, Config config, NodeConfig nodeConfig, JournalSetup journal) {}

  private NodeStart(
      Deployment d,
      RunContract contract,
      PartitionSource partition,
      Validation validation,
      NodeConfig nodeConfig,
      JournalSetup journalSetup,
      CompletableFuture<Backends.Selection> deviceOpen,
      CompletableFuture<Backends.Selection> deviceLoaded) {
    this.d = d;
    this.contract = contract;
    this.partition = partition;
    this.validation = validation;
    this.nodeConfig = nodeConfig;
    this.journalSetup = journalSetup;
    this.deviceOpen = deviceOpen;
    this.deviceLoaded = deviceLoaded;
  }

  /**
   * Parses the deployment and sets the device's open and load going on threads of their own.
   *
   * @throws BadInput for a bad flag or address
   */
  static NodeStart begin(
      Deployment d, RunContract contract, PartitionSource partition, Validation validation) {
    // Logging starts here, before the start's threads log: one that logs while another still
    // initialises it has its calls replayed, and SLF4J says so in three warning lines.
    org.slf4j.LoggerFactory.getILoggerFactory();
    NodeConfig nodeConfig = NodeConfig.parse(d);
    JournalSetup journalSetup =
        JournalSetup.open(d.journal(), d.journalPasswordFile(), JournalSetup.writerName(d));
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
            partition.rows().handle(DeviceStart.RowsRead::new),
            (sel, r) -> {
              DeviceStart.load(sel, r, contract.bias());
              StartupTrace.mark("partition on the device");
              return sel;
            },
            daemon("parreg-device-load"));
    return new NodeStart(
        d, contract, partition, validation, nodeConfig, journalSetup, deviceOpen, deviceLoaded);
  }

  /**
   * Checks every input, creates the journal and starts the actor system, which then joins the
   * cluster.
   *
   * @throws BadInput for bad input (the configuration, a journal of another run, a port in use):
   *     nothing was written
   */
  Started launch() throws Exception {
    return launch(system -> {});
  }

  /**
   * As {@link #launch()}, calling {@code beforeJoin} with the actor system once it is created and
   * before it joins the cluster.
   */
  Started launch(java.util.function.Consumer<ActorSystem<?>> beforeJoin) throws Exception {
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
              journalSetup.location().stepLogDirectory().orElse(null),
              journalSetup.durability());
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
    cfg = ClusterJoin.withJoinTimeouts(cfg, admission instanceof JournalRuns.Restart);
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
                deviceLoaded.thenAccept(NodeStart::release);
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
      node = ParregNode.start(ClusterJoin.systemConfig(cfg), settings, validation);
    } catch (RuntimeException e) {
      // The port was free a moment ago (checked above) but another process took it since.
      RuntimeException failure =
          Ports.bindFailure(e, clusterHost, d.port(), "cluster port (--port)")
              .<RuntimeException>map(b -> b)
              .orElse(e);
      prepared.handle((device, t) -> device).join(); // the journal is complete, or failed
      deviceLoaded.thenAccept(NodeStart::release);
      journalSetup.undoCreate();
      throw failure;
    }
    StartupTrace.mark("actor system created");
    awaitPrepared(prepared, journalSetup, node);
    if (journalSetup.rejournaled() > 0) {
      node.system()
          .log()
          .info(
              "moved {} steps from the step log into the journal (written before the kill, or lost by H2)",
              journalSetup.rejournaled());
    }
    try {
      beforeJoin.accept(node.system());
      ClusterJoin.go(node.system(), cfg, () -> node.system().tell(new ParregNode.Go(deviceLoaded)));
    } catch (RuntimeException e) {
      node.system().terminate();
      node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
      journalSetup.close();
      throw e;
    }
    return new Started(node, cfg, nodeConfig, journalSetup);
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
    deviceLoaded.thenAccept(NodeStart::release); // (a failed load has closed it)
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
        awaitStarted(node.system());
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
   * Waits (at most 5 s) until the system's receptionist answers. A system stopped within a moment
   * of its start (the journal could not be created while it started) otherwise stops its cluster
   * before the receptionist has created its replicator, which then fails and logs a 20-line trace
   * under the one line that says what went wrong.
   */
  private static void awaitStarted(ActorSystem<?> system) {
    try {
      AskPattern.<Receptionist.Command, Receptionist.Listing>ask(
              system.receptionist(),
              reply -> Receptionist.find(STARTED_PROBE, reply),
              Duration.ofSeconds(5),
              system.scheduler())
          .toCompletableFuture()
          .get(6, TimeUnit.SECONDS);
    } catch (Exception stillStarting) {
      // Stop it anyway: the trace is noise, not harm.
    }
  }

  private static final ServiceKey<Void> STARTED_PROBE =
      ServiceKey.create(Void.class, "parreg-started-probe");

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
