package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import parreg.device.Bits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code parreg fit}: one file to a model on this machine. It runs the same engine as {@code node}
 * — N local node processes, participant P reading the P-th share of the file's rows ({@code
 * --split}), each with an embedded journal under {@code --dir} — so the result has the bits of the
 * same cluster started by hand, a crash or Ctrl-C loses nothing (the same command resumes from the
 * journals), and the model is exported atomically from participant 0's journal when every node is
 * done.
 */
@Command(
    name = "fit",
    mixinStandardHelpOptions = true,
    description =
        "Train a model on one data file on this machine (local participants, embedded journals,"
            + " resumable) and write it to a checkpoint.")
public final class FitCommand implements Callable<Integer> {
  @Option(
      names = "--data",
      required = true,
      description = "the data file (.csv, .prb, .parquet or a directory of Parquet part files)")
  Path data;

  @Mixin CsvOptions csv = new CsvOptions();

  @Mixin NaOption na = new NaOption();

  @Option(
      names = "--participants",
      description =
          "local participants, each a node process over its share of the rows (default: one per"
              + " 4 cores, at least 1)")
  Integer participants;

  @Option(names = "--solver", defaultValue = "auto", description = SolverChoice.HELP)
  String solver;

  @Option(names = "--l2", description = SolverChoice.L2_HELP)
  String l2;

  @Option(names = "--precision", description = SolverChoice.PRECISION_HELP)
  String precision;

  @Option(names = "--standardize", negatable = true, description = SolverChoice.STANDARDIZE_HELP)
  Boolean standardize;

  @Option(names = "--tol", description = SolverChoice.TOL_HELP)
  String tol;

  @Option(names = "--no-bias", description = "fit no intercept (regression through the origin)")
  boolean noBias;

  @Option(
      names = "--steps",
      defaultValue = "1000",
      description = "gradient descent: steps to train (default: ${DEFAULT-VALUE}; exact: one pass)")
  long steps;

  @Option(names = "--learning-rate", description = "gradient descent: the exact rate (default 1/4)")
  String learningRate;

  @Option(
      names = "--backend",
      defaultValue = "auto",
      description = "auto, cpu or cuda (default: ${DEFAULT-VALUE})")
  String backend;

  @Option(
      names = "--dir",
      description =
          "working directory for the journals and logs (default: parreg-fit-NAME in the current"
              + " directory, NAME the data file's name); the same command resumes from it")
  Path dir;

  @Option(
      names = "--out",
      description = "the checkpoint to write (default: model.json in --dir); never overwritten")
  Path out;

  @Option(
      names = "--timeout-s",
      defaultValue = "3600",
      description = "give up after this many seconds (default: ${DEFAULT-VALUE})")
  long timeoutS;

  private final PrintStream console = System.out;

  @Override
  public Integer call() throws Exception {
    if (!Files.exists(data)) {
      throw new UserError("--data " + data + ": no such file");
    }
    int n = participants != null ? participants : defaultParticipants();
    if (n < 1) {
      throw new UserError("--participants must be at least 1");
    }
    if (!List.of("auto", "cpu", "cuda").contains(backend)) {
      throw new UserError("unknown backend '" + backend + "': use auto, cpu or cuda");
    }
    if (precision != null) {
      // the value and its solver are checked here, before any node starts
      SolverChoice.readPrecision(precision, solver, true, 0, false);
    }
    String name = data.getFileName().toString();
    Path work = dir != null ? dir : Path.of("parreg-fit-" + name);
    Path model = out != null ? out : work.resolve("model.json");
    if (Files.exists(model)) {
      throw new UserError(
          (out != null ? "--out " : "") + model + " already exists; a model is never overwritten");
    }
    Files.createDirectories(work);
    console.printf(
        "parreg fit: %s, %d participant%s, solver %s, working directory %s%n",
        data, n, n == 1 ? "" : "s", solver, work.toAbsolutePath());
    List<NodeProcess> nodes = new ArrayList<>();
    JsonNode done;
    Thread stopper = new Thread(() -> stopAll(nodes), "parreg-fit-stop");
    Runtime.getRuntime().addShutdownHook(stopper);
    try {
      int[] ports = new int[n];
      int[] admin = new int[n];
      List<String> seeds = new ArrayList<>();
      for (int p = 0; p < n; p++) {
        ports[p] = NodeProcess.freePort();
        admin[p] = NodeProcess.freePort();
        seeds.add(NodeProcess.LOOPBACK + ":" + ports[p]);
      }
      for (int p = 0; p < n; p++) {
        nodes.add(
            NodeProcess.start(
                nodeArgs(p, n, ports[p], admin[p], String.join(",", seeds), work),
                work.resolve("node-" + p + ".log"),
                admin[p]));
      }
      done = awaitDone(nodes, work);
    } finally {
      stopAll(nodes);
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException e) {
        // already shutting down
      }
    }
    Checkpoint cp = Checkpoint.fromJournal(work.resolve("node-0").toString(), 0, null);
    // the step is the journal's: the last status polled may predate the final commit
    console.printf(
        "  every participant done at step %d (%s): solver %s, data %s%n",
        cp.committedStep(),
        done != null
            ? done.path("device").path("name").asText()
            : "the journals held the finished run",
        cp.contract().solverSpec().exact() ? "exact" : "gd",
        cp.contract().precision() == parreg.device.Precision.F64 ? "binary64" : "binary32");
    try {
      cp.writeTo(model);
    } catch (java.io.IOException e) {
      throw FileErrors.userError("--out " + model + ": cannot write the model", e);
    }
    console.printf("  model written to %s%n%n", model);
    if (cp.summary() != null) {
      console.print(SummaryCommand.text(cp.summary()));
    } else {
      console.printf(
          "gradient descent, %d steps, loss %s, weights %s%n",
          cp.committedStep(), cp.loss(), Bits.hexList(cp.parameters()));
    }
    return 0;
  }

  /** One participant per 4 cores: each node's pass runs on threads of its own. */
  static int defaultParticipants() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / 4);
  }

  private List<String> nodeArgs(int p, int n, int port, int admin, String seeds, Path work) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                "" + p,
                "--participants",
                "" + n,
                "--port",
                "" + port,
                "--admin-port",
                "" + admin,
                "--seed-nodes",
                seeds,
                "--data",
                data.toAbsolutePath().toString(),
                "--journal",
                work.resolve("node-" + p).toAbsolutePath().toString(),
                "--steps",
                "" + steps,
                "--solver",
                solver,
                "--backend",
                backend,
                "--exit-when-done",
                "--parent-pid",
                "" + ProcessHandle.current().pid()));
    if (n > 1) {
      a.add("--split");
    }
    if (!noBias) {
      a.add("--bias");
    }
    if (l2 != null) {
      a.addAll(List.of("--l2", l2));
    }
    if (precision != null) {
      a.addAll(List.of("--precision", precision));
    }
    if (learningRate != null) {
      a.addAll(List.of("--learning-rate", learningRate));
    }
    if (standardize != null) {
      a.add(standardize ? "--standardize" : "--no-standardize");
    }
    if (tol != null) {
      a.addAll(List.of("--tol", tol));
    }
    a.addAll(csv.asArguments());
    if (na.na != null) {
      a.addAll(List.of("--na", na.na));
    }
    return a;
  }

  /**
   * Waits until every node has exited 0, printing a progress line every few seconds; a node that
   * exits otherwise ends the fit with its own last line of output.
   */
  private JsonNode awaitDone(List<NodeProcess> nodes, Path work) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(timeoutS).toNanos();
    JsonNode last = null;
    long nextLine = 0;
    while (true) {
      boolean allExited = true;
      for (int p = 0; p < nodes.size(); p++) {
        NodeProcess node = nodes.get(p);
        Optional<Integer> code = node.exitCode();
        if (code.isEmpty()) {
          allExited = false;
        } else if (code.get() != 0) {
          stopAll(nodes);
          String why = lastLine(node.log());
          if (code.get() == 2) {
            throw new UserError(why.replaceFirst("^parreg: (error: )?", ""));
          }
          throw new IllegalStateException(
              "participant " + p + " ended with exit code " + code.get() + ": " + why);
        }
      }
      Optional<JsonNode> s = nodes.get(0).status();
      if (s.isPresent()) {
        last = s.get();
      }
      if (allExited) {
        return last; // null where the journals held the finished run already
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + timeoutS + " s; the journals in " + work + " keep what is done");
      }
      if (last != null && System.nanoTime() > nextLine) {
        console.printf(
            "  %s: step %d of %d, durable %d%n",
            last.get("state").asText(),
            last.get("committedStep").asLong(),
            last.get("targetSteps").asLong(),
            last.path("durableStep").asLong());
        nextLine = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      }
      Thread.sleep(100);
    }
  }

  private static String lastLine(Path log) {
    try {
      List<String> lines =
          Files.readAllLines(log).stream().filter(l -> l.startsWith("parreg")).toList();
      return lines.isEmpty() ? "see " + log : lines.get(lines.size() - 1);
    } catch (java.io.IOException e) {
      return "see " + log;
    }
  }

  private static void stopAll(List<NodeProcess> nodes) {
    for (NodeProcess n : nodes) {
      try {
        n.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
