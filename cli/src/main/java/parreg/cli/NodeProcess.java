package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A parreg command run as a child JVM with this process's Java and class path: how the demo and the
 * multi-process tests start nodes, kill them with SIGKILL and ask them for their status.
 */
public final class NodeProcess implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** This machine's loopback address: where the demo's nodes run (and the tests' by default). */
  public static final String LOOPBACK = java.net.InetAddress.getLoopbackAddress().getHostAddress();

  private final List<String> args;
  private final Path log;
  private final String adminHost;
  private final int adminPort;
  private Process process;

  private NodeProcess(List<String> args, Path log, String adminHost, int adminPort) {
    this.args = List.copyOf(args);
    this.log = log;
    this.adminHost = adminHost;
    this.adminPort = adminPort;
  }

  /**
   * Starts {@code parreg ARGS...}; stdout and stderr are appended to {@code log}; its HTTP endpoint
   * is on loopback.
   */
  public static NodeProcess start(List<String> args, Path log, int adminPort) throws IOException {
    return start(args, log, LOOPBACK, adminPort);
  }

  /** Same, for a node whose HTTP endpoint listens on {@code adminHost}. */
  public static NodeProcess start(List<String> args, Path log, String adminHost, int adminPort)
      throws IOException {
    NodeProcess p = new NodeProcess(args, log, adminHost, adminPort);
    p.launch();
    return p;
  }

  /**
   * Runs a parreg command to completion and returns its exit code and output. The output is read on
   * a thread of its own, so that a command that never ends is stopped at the timeout rather than
   * holding the caller in a read that waits for its end of file.
   */
  public static Result run(List<String> args, Duration timeout)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command(args)).redirectErrorStream(true).start();
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    Thread reader =
        new Thread(
            () -> {
              try (var in = p.getInputStream()) {
                in.transferTo(out);
              } catch (IOException ignored) {
                // the process was destroyed: what was read so far is kept
              }
            },
            "parreg-run-output");
    reader.setDaemon(true);
    reader.start();
    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      reader.join(5_000);
      throw new IOException(
          "parreg "
              + args
              + " did not finish within "
              + timeout
              + "; its output so far:\n"
              + out.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
    reader.join();
    return new Result(p.exitValue(), out.toString(java.nio.charset.StandardCharsets.UTF_8));
  }

  public record Result(int exitCode, String output) {}

  static List<String> command(List<String> args) {
    String java =
        ProcessHandle.current()
            .info()
            .command()
            .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-XX:+UseSerialGC");
    if (gradientSteps(args)) {
      // C1 only: C2 compiling for the whole of a short run halves the step rate on a 2-core
      // machine (measured: `git show fb803e0:docs/benchmarks-cluster.md`).
      cmd.add("-XX:TieredStopAtLevel=1");
    }
    cmd.add("-Xss1m");
    boolean node = !args.isEmpty() && "node".equals(args.get(0));
    if (!node || gradientSteps(args)) {
      cmd.add("-Xmx1g");
    }
    // else a node of an exact run keeps the JVM's default heap (a quarter of the memory), as under
    // bin/parreg: its statistics are 16 (d + 2)^2 / 2 bytes, held several times over while they
    // are exchanged, merged and journaled (134 MB each at d = 4,096)
    if (!args.isEmpty() && "node".equals(args.get(0))) {
      classDataArchive()
          .ifPresent(
              jsa -> {
                // the archive bin/parreg writes after a build (scripts/build/make-cds-archive.sh):
                // faster start-up
                cmd.add("-XX:SharedArchiveFile=" + jsa);
                cmd.add("-Xshare:auto");
              });
      cmd.add("--add-modules");
      cmd.add("jdk.incubator.vector"); // the CPU backend's SIMD lanes
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(args);
    return cmd;
  }

  /**
   * Whether a command runs many short gradient steps (the seed run, {@code --solver gd}), where C2
   * compiling Pekko, Slick and H2 for the first minute costs more than it gains; everything else
   * (the exact solver's one pass and its solve, the readers) is a few long loops that C2 makes
   * several times faster, and its SIMD lanes run only under C2 ({@code GramPass.optimizingJit}).
   * The same rule as bin/parreg's.
   */
  static boolean gradientSteps(List<String> args) {
    for (int i = 0; i + 1 < args.size(); i++) {
      String a = args.get(i);
      String v = args.get(i + 1);
      if ((a.equals("--data") && v.equals("seed")) || (a.equals("--solver") && v.equals("gd"))) {
        return true;
      }
    }
    return args.contains("--data=seed") || args.contains("--solver=gd");
  }

  /**
   * target/parreg.jsa beside the jar this process runs from, when it is newer than the jar (the
   * rule bin/parreg uses: an archive of an older build would be ignored by the JVM anyway).
   */
  static Optional<Path> classDataArchive() {
    return classDataArchive(System.getProperty("java.class.path", ""));
  }

  static Optional<Path> classDataArchive(String cp) {
    if (cp.isEmpty() || cp.contains(File.pathSeparator) || !cp.endsWith(".jar")) {
      return Optional.empty();
    }
    try {
      Path jar = Path.of(cp).toAbsolutePath();
      Path jsa = jar.resolveSibling("parreg.jsa");
      if (Files.isRegularFile(jsa)
          && Files.getLastModifiedTime(jsa).compareTo(Files.getLastModifiedTime(jar)) > 0) {
        return Optional.of(jsa);
      }
    } catch (IOException | InvalidPathException e) {
      // no archive: the node starts without it
    }
    return Optional.empty();
  }

  private void launch() throws IOException {
    process =
        new ProcessBuilder(command(args))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
  }

  /** Starts the same command again (after a kill). */
  public void restart() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("still running");
    }
    launch();
  }

  /**
   * The running process's id, for signals other than a kill (SIGSTOP/SIGCONT in the chaos soak).
   */
  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: the process gets no chance to flush or leave the cluster. */
  public void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGTERM, then SIGKILL if it has not exited after {@code grace}. */
  public int stop(Duration grace) throws InterruptedException {
    if (process == null) {
      return -1;
    }
    process.destroy();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
    return process.exitValue();
  }

  public Optional<Integer> exitCode() {
    return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
  }

  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("process did not exit within " + timeout);
    }
    return process.exitValue();
  }

  public Path log() {
    return log;
  }

  /** The node's status, or empty while it does not answer (starting, killed). */
  public Optional<JsonNode> status() {
    try {
      String body =
          StatusCommand.fetch(
              URI.create("http://" + adminHost + ":" + adminPort + "/status"),
              Duration.ofSeconds(2));
      return Optional.of(JSON.readTree(body));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (isAlive()) {
      stop(Duration.ofSeconds(10));
    }
  }

  /** A TCP port that was free a moment ago on the loopback address. */
  public static int freePort() throws IOException {
    return freePort(LOOPBACK);
  }

  /**
   * A TCP port that was free a moment ago on {@code host}, below the kernel's ephemeral range where
   * there is room: a port from that range (what {@code new ServerSocket(0)} gives) can be taken in
   * the meantime as the local port of any outgoing connection on the machine (a peer reconnecting,
   * a status poll), and a node restarted on it then finds its port in use. Never the same port
   * twice in one process.
   */
  public static int freePort(String host) throws IOException {
    java.net.InetAddress address = java.net.InetAddress.getByName(host);
    int ephemeralLow = ephemeralLow();
    if (ephemeralLow > LOWEST_PORT + 1000) {
      java.util.concurrent.ThreadLocalRandom rnd = java.util.concurrent.ThreadLocalRandom.current();
      for (int attempt = 0; attempt < 200; attempt++) {
        int port = LOWEST_PORT + rnd.nextInt(ephemeralLow - LOWEST_PORT);
        if (HANDED_OUT.contains(port)) {
          continue;
        }
        try (ServerSocket s = new ServerSocket()) {
          s.setReuseAddress(false);
          s.bind(new java.net.InetSocketAddress(address, port), 1);
          HANDED_OUT.add(port);
          return port;
        } catch (IOException taken) {
          // in use: another
        }
      }
    }
    try (ServerSocket s = new ServerSocket(0, 1, address)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  /** Ports are chosen from here up to the ephemeral range. */
  static final int LOWEST_PORT = 20_000;

  private static final java.util.Set<Integer> HANDED_OUT =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** The lowest port of Linux's ephemeral range, or 0 where it cannot be read. */
  private static int ephemeralLow() {
    try {
      // read by line: procfs reports a size of 0, and Files.readString then reads a few bytes only
      String range;
      try (java.io.BufferedReader r =
          java.nio.file.Files.newBufferedReader(
              Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
        range = r.readLine().strip();
      }
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
