package parreg.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import parreg.device.PartitionSource;
import parreg.device.RunContract;
import parreg.metrics.StartupTrace;
import parreg.node.ParregNode;
import parreg.settings.BadInput;
import parreg.settings.Deployment;
import parreg.settings.NodeLifecycle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code parreg node}: the options of one participant; {@link ParregNode#run} does the rest. */
@Command(
    name = "node",
    mixinStandardHelpOptions = true,
    description = "Run one node of a training cluster.")
public final class NodeCommand implements Callable<Integer> {

  @Option(
      names = "--participant",
      required = true,
      description = "this node's participant id (0-based)")
  int participant;

  @Option(
      names = "--participants",
      defaultValue = "2",
      description = "number of participants (default: ${DEFAULT-VALUE})")
  int participants;

  @Option(
      names = "--host",
      description = "address peers reach this node by (default: loopback, from cluster.conf)")
  String host;

  @Option(
      names = "--bind-host",
      description = "address the cluster port listens on, 0.0.0.0 for all (default: --host)")
  String bindHost;

  @Option(names = "--port", required = true, description = "cluster port of this node")
  int port;

  @Option(
      names = "--admin-host",
      description = "address of the HTTP endpoint (default: parreg.admin.host, loopback)")
  String adminHost;

  @Option(
      names = "--admin-port",
      description = "HTTP port (default: --port + parreg.admin.port-offset, 10000)")
  Integer adminPort;

  @Option(names = "--insecure", description = "allow plain TCP on a non-loopback cluster address")
  boolean insecure;

  @Option(
      names = "--tls-keystore",
      description = "PKCS12 keystore with this node's key (bin/parreg keys): Artery over TLS")
  Path tlsKeystore;

  @Option(names = "--tls-truststore", description = "PKCS12 truststore with the cluster CA")
  Path tlsTruststore;

  @Option(
      names = "--tls-password-file",
      description = "file holding the stores' password (default: env PARREG_TLS_PASSWORD)")
  Path tlsPasswordFile;

  @Option(
      names = "--seed-nodes",
      required = true,
      split = ",",
      description = "HOST:PORT of every node, comma-separated")
  List<String> seedNodes;

  @Option(
      names = "--data",
      defaultValue = "seed",
      description =
          "seed, or this participant's partition file (.csv, .prb, .parquet or a directory of Parquet part files)")
  String data;

  @Option(
      names = "--split",
      description =
          "--data is one file shared by all participants: read rows [floor(p*n/P), floor((p+1)*n/P))")
  boolean split;

  @picocli.CommandLine.Mixin CsvOptions csv = new CsvOptions();

  @picocli.CommandLine.Mixin NaOption na = new NaOption();

  @Option(
      names = "--validation",
      description =
          "hold-out file (same columns as --data): RMSE and R² in status, off the step path")
  Path validation;

  @Option(
      names = "--validation-every",
      defaultValue = "100",
      description = "evaluate the hold-out every N committed steps (default: ${DEFAULT-VALUE})")
  long validationEvery;

  @Option(
      names = "--journal",
      required = true,
      description = "journal directory (embedded H2) or jdbc:postgresql:// URL")
  String journal;

  @Option(names = "--journal-password-file", description = JournalOption.PASSWORD_FILE_HELP)
  Path journalPasswordFile;

  @Option(names = "--steps", required = true, description = "train until this step is committed")
  long steps;

  @Option(
      names = "--batch-size",
      defaultValue = "0",
      description = "samples per batch (default: whole partition)")
  int batchSize;

  @Option(
      names = "--backend",
      defaultValue = "auto",
      description = "auto, cpu or cuda (default: ${DEFAULT-VALUE})")
  String backend;

  @Option(
      names = "--device",
      description =
          "CUDA card UUID or ordinal; binds exactly, under --backend auto too "
              + "(default: card 0 for cuda; auto picks card 0 where one answers, else the CPU)")
  String device;

  @Option(
      names = "--evidence",
      description = "write the device evidence record here when the run completes (must not exist)")
  Path evidence;

  @Option(names = "--config", description = "extra HOCON overlay")
  Path config;

  @Option(
      names = "--exit-when-done",
      description = "exit once the target step is durable in every participant's journal")
  boolean exitWhenDone;

  @Option(
      names = "--sync-commit",
      description = "write each step to the journal before the next starts (no lag; slower)")
  boolean syncCommit;

  @Option(
      names = "--step-interval-ms",
      description = "minimum milliseconds between steps (pacing; default 0)")
  Long stepIntervalMs;

  @Option(
      names = "--run-name",
      description = "run name (default: the seed run's name, or parreg-run for file data)")
  String runName;

  @Option(
      names = "--learning-rate",
      description = "exact learning rate, e.g. 1/4 or 0.01 (default 1/4)")
  String learningRate;

  @Option(
      names = "--initial-weights",
      split = ",",
      description = "initial parameters (bias last); default 3 for the seed, zeros for files")
  List<String> initialWeights;

  @Option(names = "--bias", description = "train a bias term (file data)")
  boolean bias;

  @Option(names = "--solver", defaultValue = "auto", description = SolverChoice.HELP)
  String solver;

  @Option(names = "--l2", description = SolverChoice.L2_HELP)
  String l2;

  @Option(names = "--standardize", negatable = true, description = SolverChoice.STANDARDIZE_HELP)
  Boolean standardize;

  @Option(names = "--tol", description = SolverChoice.TOL_HELP)
  String tol;

  @Option(names = "--precision", description = SolverChoice.PRECISION_HELP)
  String precision;

  @Option(
      names = "--dataset",
      description = "dataset name recorded in the contract for file data (default: files)")
  String dataset;

  @Option(
      names = "--parent-pid",
      hidden = true,
      description = "stop (gracefully) once this process is gone: parreg fit's nodes")
  Long parentPid;

  @Override
  public Integer call() throws Exception {
    StartupTrace.mark("command line parsed");
    if (parentPid != null) {
      watchParent(parentPid);
    }
    // Every input is checked before anything is written: a refused start leaves no journal behind.
    if (!List.of("auto", "cpu", "cuda").contains(backend)) {
      throw new UserError("unknown backend '" + backend + "': use auto, cpu or cuda");
    }
    RunSpec spec = RunSpec.resolve(this);
    ParregNode.Validation holdOut = null;
    if (validationEvery < 1) {
      throw new UserError("--validation-every must be at least 1");
    }
    if (validation != null) {
      holdOut =
          new ParregNode.Validation(
              DataFiles.load(
                  "--validation",
                  validation,
                  spec.partition().features(),
                  "seed".equals(data) ? parreg.device.data.CsvColumns.DEFAULT : csv.columns(),
                  "seed".equals(data)
                      ? parreg.device.data.CsvDialect.DEFAULT
                      : csv.dialect(na.missing())),
              validationEvery);
    }
    StartupTrace.mark("run spec resolved");
    if (evidence != null && Files.exists(evidence)) {
      throw new UserError(
          "evidence file " + evidence + " already exists; evidence is never overwritten");
    }
    if (evidence != null) {
      // Checked now rather than when the run completes, after all its work.
      Path dir = evidence.toAbsolutePath().getParent();
      if (dir == null || !Files.isDirectory(dir)) {
        throw new UserError(
            "--evidence "
                + evidence
                + ": directory "
                + dir
                + (dir != null && Files.exists(dir) ? " is not a directory" : " does not exist"));
      }
      if (!Files.isWritable(dir)) {
        throw new UserError("--evidence " + evidence + ": directory " + dir + " is not writable");
      }
    }
    Deployment deployment =
        new Deployment(
            participant,
            participants,
            host,
            bindHost,
            port,
            adminHost,
            adminPort,
            seedNodes,
            insecure,
            tlsKeystore,
            tlsTruststore,
            tlsPasswordFile,
            journal,
            journalPasswordFile,
            config,
            spec.contract().solverSpec().exact() ? parreg.device.ExactStep.STEP : steps,
            backend,
            device,
            evidence,
            exitWhenDone,
            syncCommit,
            stepIntervalMs == null ? null : Duration.ofMillis(stepIntervalMs),
            runName != null);
    NodeLifecycle.Outcome outcome;
    try {
      outcome = ParregNode.run(deployment, spec.contract(), spec.partition(), holdOut);
    } catch (BadInput e) {
      throw new UserError(e.getMessage());
    }
    if (outcome.exitCode() == 2) {
      throw new UserError(outcome.message()); // printed once, as every user error
    }
    if (!outcome.message().isEmpty()) {
      System.err.println(
          (outcome.exitCode() == 0 ? "parreg: " : "parreg: error: ") + outcome.message());
    }
    return outcome.exitCode();
  }

  /**
   * A node started by {@code parreg fit} ends with it: killed, even with SIGKILL, the fit leaves no
   * node running that would hold the journals its rerun resumes from. The node stops as on SIGTERM:
   * what is committed is written first.
   */
  private static void watchParent(long pid) {
    java.util.Optional<ProcessHandle> parent = ProcessHandle.of(pid);
    Thread t =
        new Thread(
            () -> {
              while (parent.map(ProcessHandle::isAlive).orElse(false)) {
                try {
                  Thread.sleep(500);
                } catch (InterruptedException e) {
                  return;
                }
              }
              System.err.println("parreg: the fit process " + pid + " is gone; stopping");
              System.exit(143);
            },
            "parreg-parent-watch");
    t.setDaemon(true);
    t.start();
  }

  /** The contract and partition a node runs with, from its flags and data. */
  record RunSpec(RunContract contract, PartitionSource partition) {
    static RunSpec resolve(NodeCommand c) {
      if (c.participants < 1) {
        throw new UserError("--participants must be at least 1");
      }
      if (c.participant < 0 || c.participant >= c.participants) {
        throw new UserError(
            "--participant " + c.participant + " is outside 0.." + (c.participants - 1));
      }
      if (c.steps < 1) {
        throw new UserError(
            "--steps must be >= 1 (a run trains at least one step), got " + c.steps);
      }
      if (c.batchSize < 0) {
        throw new UserError("--batch-size must be >= 0 (0 = whole partition)");
      }
      if ("seed".equals(c.data)) {
        if (c.split || c.csv.given() || c.na.given()) {
          throw new UserError(
              "--split, --label, --features, --no-header, --delimiter and --na apply to --data FILE, not to --data seed");
        }
        if (c.participants != 2) {
          throw new UserError("--data seed has exactly 2 partitions; --participants must be 2");
        }
        if (c.bias || c.initialWeights != null || c.learningRate != null) {
          throw new UserError(
              "--data seed fixes the model (w0=3, rate 1/4, no bias); drop --bias/--initial-weights/--learning-rate");
        }
        if (!"auto".equals(c.solver) && !"gd".equals(c.solver) || c.l2 != null) {
          throw new UserError(
              "--data seed is the seed's gradient-descent run; drop --solver "
                  + c.solver
                  + (c.l2 != null ? " and --l2" : ""));
        }
        if (c.standardize != null || c.tol != null) {
          throw new UserError(
              "--data seed is the seed's fixed-rate run; drop --standardize and --tol");
        }
        if (c.precision != null && !"f32".equals(c.precision)) {
          throw new UserError(
              "--data seed is the seed's binary32 run; drop --precision " + c.precision);
        }
        RunContract seed = RunContract.seed(2, c.batchSize);
        if (c.runName != null) {
          seed = seed.withRunName(c.runName);
        }
        return new RunSpec(
            seed, PartitionSource.of(parreg.device.SeedData.partition(c.participant)));
      }
      parreg.device.data.RowSlice slice =
          c.split
              ? new parreg.device.data.RowSlice(c.participant, c.participants)
              : parreg.device.data.RowSlice.ALL;
      boolean gdFlags = c.learningRate != null || c.initialWeights != null;
      Path file = Path.of(c.data);
      // a binary64 .prb is read as it is (the default where the exact solver may run, like
      // decimal text); a binary32 .prb in binary32 unless asked otherwise
      parreg.device.Precision stored = DataFiles.precisionOf("--data", file);
      parreg.device.Precision precision =
          SolverChoice.readPrecision(
              c.precision, c.solver, stored != parreg.device.Precision.F32, c.batchSize, gdFlags);
      PartitionSource p =
          DataFiles.open(
              "--data", file, c.csv.columns(), c.csv.dialect(c.na.missing()), slice, precision);
      int d = p.features();
      parreg.device.SolverSpec solverSpec =
          SolverChoice.resolve(
              c.solver,
              c.l2,
              d,
              c.batchSize,
              gdFlags,
              c.learningRate != null,
              c.standardize,
              c.tol);
      if (!solverSpec.exact() && precision == parreg.device.Precision.F64) {
        if (c.precision != null) {
          throw SolverChoice.gdBinary64();
        }
        if (stored == parreg.device.Precision.F64) {
          throw new UserError(
              "--data "
                  + file
                  + " is a binary64 .prb partition of d="
                  + d
                  + ": the exact solver takes at most "
                  + SolverChoice.MAX_EXACT_FEATURES
                  + " features and gradient descent reads binary32 data; convert the decimal"
                  + " source with --precision f32");
        }
        // auto chose gradient descent (d > 4,096): its data are binary32, rounded from the text
        precision = parreg.device.Precision.F32;
        p =
            DataFiles.open(
                "--data", file, c.csv.columns(), c.csv.dialect(c.na.missing()), slice, precision);
      }
      p.rows()
          .whenComplete(
              (rows, e) ->
                  StartupTrace.mark(e == null ? "partition rows read" : "partition read failed"));
      int n = RunContract.parameterCount(d, c.bias);
      double[] init = new double[n];
      if (c.initialWeights != null) {
        if (c.initialWeights.size() != n) {
          throw new UserError(
              "--initial-weights: expected "
                  + n
                  + " values (d="
                  + d
                  + (c.bias ? " plus bias" : "")
                  + "), got "
                  + c.initialWeights.size());
        }
        for (int i = 0; i < n; i++) {
          init[i] = finite("--initial-weights", i, c.initialWeights.get(i));
        }
      }
      // A standardized descent's rate is in units of 1/L (StandardizedDescent): 1 by default.
      String rate =
          c.learningRate != null ? c.learningRate : solverSpec.standardized() ? "1" : "1/4";
      try {
        parreg.device.LearningRate.parse(rate);
      } catch (IllegalArgumentException e) {
        throw new UserError("--learning-rate: " + e.getMessage());
      }
      RunContract contract =
          new RunContract(
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
      return new RunSpec(contract.withSolver(solverSpec).withPrecision(precision), p);
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
        throw new UserError(
            option + ": value " + (i + 1) + " '" + t + "' is not a finite binary64 number");
      }
      return v;
    }
  }
}
