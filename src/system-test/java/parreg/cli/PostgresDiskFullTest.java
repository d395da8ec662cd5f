package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk under a PostgreSQL journal (issue 13 item 8): a node whose journal tables lie in
 * a tablespace on a 1 MB tmpfs ends with the same one line as on H2, naming the step it could not
 * write, exit 1. Before, PostgreSQL refused each write (SQLSTATE 53100), the journal restarted,
 * recovered (a full disk still reads) and was sent the write again, for ever.
 *
 * <p>The test runs a private PostgreSQL server: {@code unshare -rm} mounts the tmpfs in a mount
 * namespace of an unprivileged user namespace, and a nested user namespace maps the server to uid
 * 1000 there (PostgreSQL refuses to run as root). Only the tablespace is small: the write-ahead log
 * stays on the real disk, so what fills is a table file ("could not extend file"), not the log
 * (which would stop the whole server). Skipped, with the reason, where user namespaces or the
 * PostgreSQL server binaries ({@code initdb}, {@code postgres}) are missing.
 */
@Tag("multiprocess")
class PostgresDiskFullTest {
  @TempDir Path dir;

  /** The directory holding {@code initdb} and {@code postgres}, where there is one. */
  static Optional<Path> serverBinaries() throws Exception {
    List<Path> candidates = new ArrayList<>();
    Path debian = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(debian)) {
      try (Stream<Path> versions = Files.list(debian)) {
        versions
            .map(v -> v.resolve("bin"))
            .sorted(Comparator.reverseOrder())
            .forEach(candidates::add);
      }
    }
    for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!p.isEmpty()) {
        candidates.add(Path.of(p));
      }
    }
    return candidates.stream()
        .filter(d -> Files.isExecutable(d.resolve("initdb")))
        .filter(d -> Files.isExecutable(d.resolve("postgres")))
        .findFirst();
  }

  static boolean nestedUserNamespaces() {
    try {
      Process p =
          new ProcessBuilder(
                  "unshare",
                  "-rm",
                  "sh",
                  "-c",
                  "mount -t tmpfs -o size=64k tmpfs /tmp"
                      + " && exec unshare -U --map-user=1000 --map-group=1000 true")
              .start();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  /** A private PostgreSQL server whose database's default tablespace is a 1 MB tmpfs. */
  private record SmallServer(Process process, String url) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      // SIGQUIT: PostgreSQL's immediate shutdown; its backends follow the postmaster.
      new ProcessBuilder("kill", "-QUIT", "" + process.pid()).start().waitFor();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    }
  }

  /** Starts a {@link SmallServer}, or skips the test (with the reason) where it cannot run. */
  private SmallServer smallServer() throws Exception {
    Optional<Path> bin = serverBinaries();
    assumeTrue(bin.isPresent(), "no PostgreSQL server binaries (initdb, postgres) here");
    assumeTrue(
        nestedUserNamespaces(),
        "unshare -rm and a nested unshare -U --map-user (unprivileged user namespaces) are not"
            + " available here");
    Path small = Files.createDirectories(dir.resolve("small"));
    Path data = dir.resolve("pgdata");
    Path socket = Files.createDirectories(dir.resolve("socket"));
    int pgPort = NodeProcess.freePort();
    Path script =
        Files.writeString(
            dir.resolve("server.sh"),
            """
            set -e
            mount -t tmpfs -o size=1m tmpfs "$1"
            exec unshare -U --map-user=1000 --map-group=1000 sh -c '
              "$5/initdb" -D "$2" -U postgres -A trust --no-sync -E UTF8 > "$2.initdb.log" 2>&1
              exec "$5/postgres" -D "$2" -p "$3" -k "$4" -c listen_addresses=127.0.0.1 -c fsync=off
            ' sh "$@"
            """);
    Path serverLog = dir.resolve("server.log");
    Process server =
        new ProcessBuilder(
                "unshare",
                "-rm",
                "sh",
                script.toString(),
                small.toString(),
                data.toString(),
                "" + pgPort,
                socket.toString(),
                bin.get().toString())
            .redirectErrorStream(true)
            .redirectOutput(serverLog.toFile())
            .start();
    SmallServer s =
        new SmallServer(
            server, "jdbc:postgresql://127.0.0.1:" + pgPort + "/postgres?user=postgres");
    try {
      awaitPort(pgPort, server, serverLog);
      try (Connection c = connect(s.url());
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLESPACE small LOCATION '" + small + "'");
        // The node's own connections create the journal tables there.
        st.execute("ALTER DATABASE postgres SET default_tablespace = small");
      }
      return s;
    } catch (Exception | AssertionError e) {
      s.close();
      throw e;
    }
  }

  /** A one-participant node on {@code url}, its output in {@code log}. */
  private Process node(String url, String steps, Path log) throws Exception {
    Path csv = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n");
    List<String> cmd =
        NodeProcess.command(
            SoloNode.args(
                csv.toString(), url, steps, "--learning-rate", "1/1024", "--backend", "cpu"));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  @Test
  void aFullPostgresDiskEndsTheNodeWithOneLineNamingTheStep() throws Exception {
    try (SmallServer server = smallServer()) {
      Path log = dir.resolve("node.log");
      Process node = node(server.url(), "100000000", log);
      try {
        assertTrue(node.waitFor(150, TimeUnit.SECONDS), "the node ended");
        String out = Files.readString(log);
        assertEquals(1, node.exitValue(), out.substring(Math.max(0, out.length() - 3000)));
        Matcher m =
            Pattern.compile(
                    "parreg: error: journal disk full at step (\\d+): POSTGRES \\S+"
                        + " \\(no space left on device\\); the journal ends at step (\\d+):"
                        + " free space and restart the node to resume\n")
                .matcher(out);
        assertTrue(m.find(), out.substring(Math.max(0, out.length() - 3000)));
        assertEquals(Long.parseLong(m.group(1)) - 1, Long.parseLong(m.group(2)));
        assertFalse(out.substring(m.start()).contains("\tat "), "the last line stands alone");
      } finally {
        node.destroyForcibly();
      }
    }
  }

  /**
   * A tablespace already full when the node creates its tables: one line and exit 1. Before, the
   * line carried PostgreSQL's message over two lines ("could not extend file ..." and its hint),
   * with no word that the journal's disk is full.
   */
  @Test
  void aPostgresDiskFullBeforeTheTablesAreCreatedEndsWithOneLine() throws Exception {
    try (SmallServer server = smallServer()) {
      try (Connection c = connect(server.url());
          Statement st = c.createStatement()) {
        st.execute("CREATE TABLE filler (b text)");
        st.execute("ALTER TABLE filler ALTER COLUMN b SET STORAGE PLAIN"); // uncompressed
        try {
          for (int i = 0; i < 10_000; i++) {
            st.execute("INSERT INTO filler SELECT repeat('x', 2000) FROM generate_series(1, 64)");
          }
          throw new AssertionError("the 1 MB tablespace did not fill");
        } catch (java.sql.SQLException full) {
          assertEquals("53100", full.getSQLState(), full.getMessage());
        }
      }
      Path log = dir.resolve("node.log");
      Process node = node(server.url(), "100", log);
      try {
        assertTrue(node.waitFor(150, TimeUnit.SECONDS), "the node ended");
        String out = Files.readString(log);
        assertEquals(1, node.exitValue(), out);
        assertTrue(
            out.endsWith(
                "parreg: error: journal disk full while creating the journal: POSTGRES "
                    + server.url()
                    + " (no space left on device); free space and start the node again\n"),
            out);
        assertFalse(out.contains("\tat "), "no trace: " + out);
      } finally {
        node.destroyForcibly();
      }
    }
  }

  /** The server listens before it accepts sessions ("the database system is starting up"). */
  private static Connection connect(String url) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        return DriverManager.getConnection(url);
      } catch (java.sql.SQLException e) {
        if (attempt >= 150) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  private static void awaitPort(int port, Process server, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!server.isAlive()) {
        throw new AssertionError("the PostgreSQL server ended: " + Files.readString(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (java.io.IOException notYet) {
        Thread.sleep(200);
      }
    }
    throw new AssertionError("the PostgreSQL server did not listen: " + Files.readString(log));
  }
}
