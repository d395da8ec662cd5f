package parreg.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import parreg.actors.AdminHttpServer;
import parreg.actors.NodeLifecycle;
import parreg.actors.NodeSettings;
import parreg.actors.ParregNode;
import parreg.actors.PeerActor;
import parreg.device.BackendInfo;
import parreg.device.BackendUnavailableException;
import parreg.device.Partition;
import parreg.device.RunContract;
import parreg.persistence.JournalRuns;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code parreg node}: runs one participant until its target step is committed. */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Run one node of a training cluster.")
public final class NodeCommand implements Callable<Integer> {

  @Option(names = "--participant", required = true, description = "this node's participant id (0-based)")
  int participant;

  @Option(names = "--participants", defaultValue = "2", description = "number of participants (default: ${DEFAULT-VALUE})")
  int participants;

  @Option(names = "--port", required = true, description = "cluster port of this node on 127.0.0.1")
  int port;

  @Option(names = "--admin-port", description = "HTTP status port (default: --port + 10000)")
  Integer adminPort;

  @Option(names = "--seed-nodes", required = true, split = ",", description = "HOST:PORT of every node, comma-separated")
  List<String> seedNodes;

  @Option(names = "--data", defaultValue = "seed", description = "seed, or this participant's partition file (.csv or .prb)")
  String data;

  @Option(names = "--journal", required = true, description = "journal directory (embedded H2) or jdbc:postgresql:// URL")
  String journal;

  @Option(names = "--steps", required = true, description = "train until this step is committed")
  long steps;

  @Option(names = "--batch-size", defaultValue = "0", description = "samples per batch (default: whole partition)")
  int batchSize;

  @Option(names = "--backend", defaultValue = "auto", description = "auto, cpu or cuda (default: ${DEFAULT-VALUE})")
  String backend;

  @Option(names = "--device", defaultValue = "0", description = "CUDA card UUID or ordinal (default: ${DEFAULT-VALUE})")
  String device;

  @Option(names = "--evidence", description = "write the device evidence record here when the run completes (must not exist)")
  Path evidence;

  @Option(names = "--config", description = "extra HOCON overlay")
  Path config;

  @Option(names = "--exit-when-done", description = "exit once the target step is durable in every participant's journal")
  boolean exitWhenDone;

  @Option(names = "--sync-commit", description = "write each step to the journal before the next starts (no lag; slower)")
  boolean syncCommit;

  @Option(names = "--step-interval-ms", description = "minimum milliseconds between steps (pacing; default 0)")
  Long stepIntervalMs;

  @Option(names = "--run-name", description = "run name (default: the seed run's name, or parreg-run for file data)")
  String runName;

  @Option(names = "--learning-rate", description = "exact learning rate, e.g. 1/4 or 0.01 (default 1/4)")
  String learningRate;

  @Option(names = "--initial-weights", split = ",", description = "initial parameters (bias last); default 3 for the seed, zeros for files")
  List<String> initialWeights;

  @Option(names = "--bias", description = "train a bias term (file data)")
  boolean bias;

  @Option(names = "--dataset", description = "dataset name recorded in the contract for file data (default: files)")
  String dataset;

  @Override
  public Integer call() throws Exception {
    StartupTrace.mark("command line parsed");
    // Every input is checked before anything is written: a refused start leaves no journal behind.
    if (!List.of("auto", "cpu", "cuda").contains(backend)) {
      throw new UserError("unknown backend '" + backend + "': use auto, cpu or cuda");
    }
    RunSpec spec = RunSpec.resolve(this);
    StartupTrace.mark("run spec resolved");
    if (evidence != null && Files.exists(evidence)) {
      throw new UserError("evidence file " + evidence + " already exists; evidence is never overwritten");
    }
    int admin = adminPort != null ? adminPort : port + 10000;
    if (port < 1 || port > 65535) {
      throw new UserError("--port " + port + " is not a TCP port");
    }
    if (admin < 1 || admin > 65535) {
      throw new UserError("admin port " + admin + " is not a TCP port; give --admin-port");
    }
    if (admin == port) {
      throw new UserError("--admin-port " + admin + " is the cluster port; give another");
    }
    List<String> seeds = seedAddresses();
    Config user = userConfig();
    JournalSetup journalSetup = JournalSetup.open(journal);
    // Reading what the journal holds (an H2 file: engine start, a few queries) and loading the
    // configuration (every jar's reference.conf) are independent; do them concurrently. Only the
    // seed-node timeout depends on what the journal holds.
    CompletableFuture<JournalRuns.Admission> inspected = new CompletableFuture<>();
    Thread inspector = new Thread(() -> {
      try {
        inspected.complete(journalSetup.inspect(spec.contract(), participant, spec.partition().info(participant),
            runName != null));
        StartupTrace.mark("journal inspected");
      } catch (Throwable t) {
        inspected.completeExceptionally(t);
      }
    }, "parreg-journal-inspect");
    inspector.setDaemon(true);
    inspector.start();
    Config cfg;
    NodeSettings settings;
    try {
      cfg = buildConfig(journalSetup, seeds, user);
      settings = settings(cfg, spec, journalSetup);
    } catch (RuntimeException e) {
      awaitInspected(inspected, journalSetup); // a journal problem is reported first
      journalSetup.close();
      throw e;
    }
    StartupTrace.mark("configuration loaded");
    JournalRuns.Admission admission = awaitInspected(inspected, journalSetup);
    if (admission instanceof JournalRuns.Refused refused) {
      journalSetup.close();
      throw new UserError(refused.message() + "; nothing was written"
          + (refused.anotherRun() ? " (a node journal belongs to one run: give --run-name NEW to start another run in it)" : ""));
    }
    try {
      Ports.requireFree(clusterHost(cfg), port, "cluster port (--port)");
      Ports.requireFree(cfg.getString("parreg.admin.host"), admin, "admin port" + (adminPort != null ? " (--admin-port)" : ""));
      journalSetup.create(cfg.getDuration("parreg.journal.h2-compaction.interval"),
          cfg.getBytes("parreg.journal.h2-compaction.write-bytes").intValue());
    } catch (RuntimeException e) {
      journalSetup.close();
      throw e;
    }
    StartupTrace.mark("journal prepared");
    if (admission instanceof JournalRuns.Restart) {
      cfg = ConfigFactory.parseString("pekko.cluster.seed-node-timeout = "
              + cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout").toMillis() + "ms")
          .withFallback(cfg);
    }

    ParregNode.Handle node;
    try {
      node = ParregNode.start(cfg, settings);
    } catch (RuntimeException e) {
      journalSetup.close();
      // The port was free a moment ago (checked above) but another process took it since.
      throw Ports.bindFailure(e, clusterHost(cfg), port, "cluster port (--port)").orElseThrow(() -> e);
    }
    StartupTrace.mark("actor system created");
    // SIGTERM (kill, systemd, docker stop) and SIGINT (Ctrl-C) ask the node to stop: it ends like
    // a finished run, leaving the cluster and closing its journal, and exits 0. (The JVM's default
    // would run the shutdown hooks and exit 143 or 130.) The same command resumes the run.
    for (String signal : List.of("TERM", "INT")) {
      sun.misc.Signal.handle(new sun.misc.Signal(signal), sig -> node.lifecycle().stop("stopped (SIG" + signal + ")"));
    }
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      node.system().terminate();
      try {
        node.system().getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // the JVM is going down anyway
      }
    }, "parreg-shutdown"));
    try {
      BackendInfo info;
      try {
        info = node.backend().get(120, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof BackendUnavailableException b) {
          throw new UserError(b.getMessage());
        }
        throw e;
      }
      ParregNode.Refs refs = node.refs().get(30, TimeUnit.SECONDS);
      String host = cfg.getString("parreg.admin.host");
      AdminHttpServer server;
      try {
        server = new AdminHttpServer(node.system(), refs.admin(), host, admin);
      } catch (java.io.IOException e) {
        throw Ports.bindFailure(e, host, admin, "admin port").orElseThrow(() -> e);
      }
      try (AdminHttpServer http = server) {
        System.err.printf("parreg node %d: pekko://%s@127.0.0.1:%d, backend %s (%s), status http://%s:%d/status%n",
            participant, ParregNode.SYSTEM_NAME, port, info.backend(), info.deviceName(), host, admin);
        NodeLifecycle.Outcome outcome = await(node, refs, cfg.getDuration("parreg.peer.refusal-grace"));
        if (outcome.exitCode() == 2) {
          throw new UserError(outcome.message());
        }
        if (!outcome.message().isEmpty()) {
          System.err.println((outcome.exitCode() == 0 ? "parreg: " : "parreg: error: ") + outcome.message());
        }
        return outcome.exitCode();
      }
    } finally {
      node.system().terminate();
      node.system().getWhenTerminated().toCompletableFuture().get(15, TimeUnit.SECONDS);
      journalSetup.close();
    }
  }

  private NodeLifecycle.Outcome await(ParregNode.Handle node, ParregNode.Refs refs, Duration refusalGrace)
      throws Exception {
    NodeLifecycle lc = node.lifecycle();
    for (long polls = 1; ; polls++) {
      try {
        return lc.outcome().get(200, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // keep polling: done-ness below, or the system going away
      }
      if (node.system().whenTerminated().isCompleted()) {
        return new NodeLifecycle.Outcome(1, "actor system terminated");
      }
      if (exitWhenDone && lc.trainingDone().isDone() && everyoneDone(peerView(node, refs))) {
        return new NodeLifecycle.Outcome(0, "");
      }
      if (polls % 5 == 0) {
        Optional<NodeLifecycle.Outcome> refused = refusedRun(peerView(node, refs), refusalGrace);
        if (refused.isPresent()) {
          return refused.get();
        }
      }
    }
  }

  /** The peer actor's view, or null when it does not answer in time. */
  private static PeerActor.View peerView(ParregNode.Handle node, ParregNode.Refs refs) {
    try {
      return AskPattern.<PeerActor.Command, PeerActor.View>ask(
              refs.peer(), PeerActor.GetView::new, Duration.ofSeconds(2), node.system().scheduler())
          .toCompletableFuture()
          .get();
    } catch (Exception e) {
      return null;
    }
  }

  private boolean everyoneDone(PeerActor.View v) {
    return v != null && v.peers().size() == participants - 1
        && v.peers().stream().allMatch(p -> p.lastKnownDurable() >= steps);
  }

  /**
   * A node that cannot join its run gives up (exit 2, the peer's difference named) instead of
   * waiting for ever: at once when a refused peer of another run is further along (its run is the
   * one going on; this node is the newcomer), after {@code grace} when neither is (a cluster
   * started with mismatched flags). A node further along than the peer it refused keeps waiting
   * for the right one; so does any node once all its peers are admitted.
   */
  private Optional<NodeLifecycle.Outcome> refusedRun(PeerActor.View v, Duration grace) {
    if (v == null || v.refusal() == null || v.peers().size() >= participants - 1) {
      return Optional.empty();
    }
    PeerActor.Refusal r = v.refusal();
    if (r.peerCommitted() > r.committed()) {
      return Optional.of(new NodeLifecycle.Outcome(2, r.reason() + "; that peer is further along (step "
          + r.peerCommitted() + ", this node " + r.committed() + "), so this node is not part of its run"));
    }
    if (r.peerCommitted() == r.committed() && r.firstMillisAgo() >= grace.toMillis()) {
      return Optional.of(new NodeLifecycle.Outcome(2, r.reason() + "; no peer of this node's run joined within "
          + grace.toMillis() / 1000.0 + " s"));
    }
    return Optional.empty();
  }

  /** The outcome of {@link JournalSetup#inspect}, its failure rethrown as it was thrown (after closing the journal). */
  private static JournalRuns.Admission awaitInspected(
      CompletableFuture<JournalRuns.Admission> inspected, JournalSetup journalSetup) {
    try {
      return inspected.join();
    } catch (java.util.concurrent.CompletionException e) {
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

  /** The seed nodes as Pekko addresses, each checked to be HOST:PORT with a TCP port. */
  private List<String> seedAddresses() {
    List<String> seeds = new ArrayList<>();
    for (String s : seedNodes) {
      String t = s.strip();
      if (!t.matches("[A-Za-z0-9.\\-]+:\\d{1,5}")) {
        throw new UserError("--seed-nodes: '" + t + "' is not HOST:PORT");
      }
      int p = Integer.parseInt(t.substring(t.lastIndexOf(':') + 1));
      if (p < 1 || p > 65535) {
        throw new UserError("--seed-nodes: '" + t + "': " + p + " is not a TCP port");
      }
      seeds.add("\"pekko://" + ParregNode.SYSTEM_NAME + "@" + t + "\"");
    }
    return seeds;
  }

  /** The --config overlay, parsed (not yet resolved against the defaults), or empty. */
  private Config userConfig() {
    if (config == null) {
      return ConfigFactory.empty();
    }
    if (!Files.isRegularFile(config)) {
      throw new UserError("--config " + config + ": no such file");
    }
    if (!Files.isReadable(config)) {
      throw new UserError("--config " + config + ": not readable");
    }
    try {
      return ConfigFactory.parseFile(config.toFile());
    } catch (com.typesafe.config.ConfigException e) {
      throw new UserError("--config " + config + ": " + e.getMessage());
    }
  }

  private Config buildConfig(JournalSetup journalSetup, List<String> seeds, Config user) {
    String overlay =
        "pekko.remote.artery.canonical.port = " + port + "\n"
            + "pekko.cluster.seed-nodes = [" + String.join(",", seeds) + "]\n";
    Config base = ConfigFactory.load();
    // Precedence: command-line flags (port, seeds, --journal's database) > --config > defaults.
    try {
      Config cfg = ConfigFactory.parseString(overlay)
          .withFallback(journalSetup.config())
          .withFallback(user)
          .withFallback(base)
          .resolve();
      // Settings read by this command itself: a bad value is reported here, not as a trace later.
      cfg.getString("parreg.admin.host");
      clusterHost(cfg);
      cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout");
      cfg.getDuration("parreg.peer.refusal-grace");
      cfg.getDuration("parreg.journal.h2-compaction.interval");
      cfg.getBytes("parreg.journal.h2-compaction.write-bytes");
      return cfg;
    } catch (com.typesafe.config.ConfigException e) {
      throw new UserError((config != null ? "--config " + config + ": " : "configuration: ") + e.getMessage());
    }
  }

  private NodeSettings settings(Config cfg, RunSpec spec, JournalSetup journalSetup) {
    try {
      return NodeSettings.of(
          cfg,
          participant,
          spec.contract(),
          spec.partition(),
          steps,
          backend,
          device,
          evidence,
          exitWhenDone,
          stepIntervalMs == null ? null : Duration.ofMillis(stepIntervalMs),
          syncCommit,
          journalSetup.describe());
    } catch (com.typesafe.config.ConfigException e) {
      throw new UserError((config != null ? "--config " + config + ": " : "configuration: ") + e.getMessage());
    }
  }

  /** The address the cluster transport binds to: Artery's bind hostname, else its canonical hostname. */
  private static String clusterHost(Config cfg) {
    String bind = cfg.getString("pekko.remote.artery.bind.hostname");
    return bind.isEmpty() ? cfg.getString("pekko.remote.artery.canonical.hostname") : bind;
  }

  /** The contract and partition a node runs with, from its flags and data. */
  record RunSpec(RunContract contract, Partition partition) {
    static RunSpec resolve(NodeCommand c) {
      if (c.participants < 1) {
        throw new UserError("--participants must be at least 1");
      }
      if (c.participant < 0 || c.participant >= c.participants) {
        throw new UserError("--participant " + c.participant + " is outside 0.." + (c.participants - 1));
      }
      if (c.steps < 0) {
        throw new UserError("--steps must be >= 0");
      }
      if (c.batchSize < 0) {
        throw new UserError("--batch-size must be >= 0 (0 = whole partition)");
      }
      if ("seed".equals(c.data)) {
        if (c.participants != 2) {
          throw new UserError("--data seed has exactly 2 partitions; --participants must be 2");
        }
        if (c.bias || c.initialWeights != null || c.learningRate != null) {
          throw new UserError("--data seed fixes the model (w0=3, rate 1/4, no bias); drop --bias/--initial-weights/--learning-rate");
        }
        RunContract seed = RunContract.seed(2, c.batchSize);
        if (c.runName != null) {
          seed = new RunContract(c.runName, seed.schema(), seed.checkpointContract(), seed.loss(), seed.learningRate(),
              seed.initialWeights(), seed.features(), seed.bias(), seed.participants(), seed.dataset(), seed.batchSize(),
              seed.reductionOrder());
        }
        return new RunSpec(seed, parreg.device.SeedData.partition(c.participant));
      }
      Partition p = DataFiles.load(Path.of(c.data));
      int d = p.features();
      int n = RunContract.parameterCount(d, c.bias);
      double[] init = new double[n];
      if (c.initialWeights != null) {
        if (c.initialWeights.size() != n) {
          throw new UserError("--initial-weights: expected " + n + " values (d=" + d + (c.bias ? " plus bias" : "") + "), got "
              + c.initialWeights.size());
        }
        for (int i = 0; i < n; i++) {
          init[i] = finite("--initial-weights", i, c.initialWeights.get(i));
        }
      }
      String rate = c.learningRate != null ? c.learningRate : "1/4";
      try {
        parreg.device.LearningRate.parse(rate);
      } catch (IllegalArgumentException e) {
        throw new UserError("--learning-rate: " + e.getMessage());
      }
      RunContract contract = new RunContract(
          c.runName != null ? c.runName : "parreg-run",
          RunContract.SCHEMA,
          RunContract.CHECKPOINT_CONTRACT,
          RunContract.LOSS,
          rate,
          init,
          d,
          c.bias,
          c.participants,
          c.dataset != null ? c.dataset : "files",
          c.batchSize,
          parreg.device.ReductionOrder.VERSION);
      return new RunSpec(contract, p);
    }

    /**
     * Value {@code i} of a list option as a finite binary64: NaN, an infinity or a decimal beyond
     * the binary64 range (1e400 would round to infinity) can only make a run that computes NaN.
     */
    static double finite(String option, int i, String text) {
      String t = text.strip();
      double v;
      try {
        v = Double.parseDouble(t);
      } catch (NumberFormatException e) {
        throw new UserError(option + ": value " + (i + 1) + " '" + t + "' is not a number");
      }
      if (!Double.isFinite(v)) {
        throw new UserError(option + ": value " + (i + 1) + " '" + t + "' is not a finite binary64 number");
      }
      return v;
    }
  }
}
