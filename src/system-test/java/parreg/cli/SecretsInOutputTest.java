package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import parreg.persistence.PostgresTestDatabase;

/**
 * No password of a PostgreSQL journal in any output: a node's every HTTP route, {@code parreg
 * status} and its log; every command that takes {@code --journal}, when it succeeds and when it
 * fails (no such database, nothing listening, no such participant, a refused URL). The passwords
 * are URL-encoded ({@code p%40ss%21word}) or hold a {@code +} (a space once decoded), and each is
 * looked for both as written and decoded. The local PostgreSQL trusts local connections, so the
 * password is never checked there: the success paths run with it. Skipped, with the reason, without
 * PostgreSQL.
 */
@Tag("multiprocess")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecretsInOutputTest {
  static final String ENCODED = "p%40ss%21word";
  static final String PLUS = "Plus+Secret";
  static final String SSL = "SslSecret%21";

  /** Every password above as written in the URL and as the driver would send it. */
  static final List<String> SECRETS =
      List.of(ENCODED, "p@ss!word", "p@ss", "ss!word", PLUS, "Plus Secret", "SslSecret");

  @TempDir static Path dir;
  static PostgresTestDatabase db;
  static Path data;

  @BeforeAll
  static void database() throws Exception {
    db = PostgresTestDatabase.createOrSkip();
    data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n3,5\n");
  }

  @AfterAll
  static void dropDatabase() throws Exception {
    if (db != null) {
      db.close();
    }
  }

  static void assertClean(String what, String text) {
    for (String s : SECRETS) {
      assertFalse(text.contains(s), what + " shows '" + s + "':\n" + text);
    }
  }

  static List<String> node(String journal, int port, int admin, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                "0",
                "--participants",
                "1",
                "--port",
                "" + port,
                "--admin-port",
                "" + admin,
                "--seed-nodes",
                "127.0.0.1:" + port,
                "--data",
                data.toString(),
                "--solver",
                "gd",
                "--learning-rate",
                "1/4",
                "--journal",
                journal,
                "--steps",
                "30",
                "--backend",
                "cpu"));
    a.addAll(List.of(extra));
    return a;
  }

  @Test
  @Order(1)
  void aNodeShowsItsJournalWithoutThePasswordInEveryRouteStatusAndLog() throws Exception {
    int port = NodeProcess.freePort();
    int admin = NodeProcess.freePort();
    String journal = db.url() + "&password=" + ENCODED + "&sslpassword=" + SSL;
    Path log = dir.resolve("node.log");
    try (NodeProcess n = NodeProcess.start(node(journal, port, admin), log, admin)) {
      JsonNode s = ClusterRun.await(n, j -> "done".equals(j.get("state").asText()), "the run");
      assertEquals("POSTGRES " + db.url(), s.path("journal").path("location").asText());
      for (String route :
          List.of(
              "/status", "/ready", "/alive", "/cluster/members", "/cluster/status", "/metrics")) {
        StatusCommand.Answer a =
            StatusCommand.get(
                URI.create("http://127.0.0.1:" + admin + route), Duration.ofSeconds(10));
        assertEquals(200, a.code(), route + ": " + a.body());
        assertClean(route, a.body());
      }
      for (List<String> status :
          List.of(
              List.of("status", "--node", "127.0.0.1:" + port, "--admin-port", "" + admin),
              List.of(
                  "status", "--node", "127.0.0.1:" + port, "--admin-port", "" + admin, "--json"),
              List.of(
                  "status",
                  "--node",
                  "127.0.0.1:" + port,
                  "--admin-port",
                  "" + admin,
                  "--cluster"))) {
        CommandLineTest.Printed p = CommandLineTest.printed(status.toArray(String[]::new));
        assertEquals(0, p.code(), p.err());
        assertTrue(status.contains("--cluster") || p.out().contains(db.url()), p.out());
        assertClean(String.join(" ", status), p.out() + p.err());
      }
      assertEquals(0, n.stop(Duration.ofSeconds(20)));
    }
    assertClean("the node's log", Files.readString(log));
  }

  @Test
  @Order(2)
  void aNodeThatCannotUseItsJournalShowsNoPassword() throws Exception {
    for (String journal :
        List.of(
            "jdbc:postgresql://127.0.0.1:5432/parreg_no_such_db?user=postgres&password=" + ENCODED,
            "jdbc:postgresql://postgres:"
                + ENCODED
                + "@127.0.0.1:5432/"
                + "parreg?user=postgres")) {
      NodeProcess.Result r =
          NodeProcess.run(
              node(journal, NodeProcess.freePort(), NodeProcess.freePort()),
              Duration.ofSeconds(90));
      assertNotEquals(0, r.exitCode(), r.output());
      assertTrue(r.output().contains("journal"), r.output());
      assertClean("node --journal " + journal, r.output());
    }
  }

  /** Every command that reads a journal, with {@code --journal J} and what follows it. */
  static List<List<String>> readers(String journal, String tag) {
    String out = dir.resolve(tag).toString();
    List<String> j = List.of("--journal", journal, "--participant", "0");
    List<List<String>> all = new ArrayList<>();
    all.add(cat(List.of("journal", "verify", "--journal", journal)));
    all.add(cat(List.of("journal", "verify"), j));
    all.add(cat(List.of("predict"), j, List.of("--x", "1")));
    all.add(cat(List.of("evaluate"), j, List.of("--input", data.toString())));
    all.add(cat(List.of("evaluate"), j, List.of("--input", data.toString(), "--json")));
    all.add(cat(List.of("export"), j, List.of("--out", out + ".json")));
    all.add(cat(List.of("export"), j, List.of("--format", "csv", "--out", out + ".csv")));
    all.add(cat(List.of("history"), j));
    all.add(cat(List.of("history"), j, List.of("--out", out + "-loss.csv")));
    return all;
  }

  @SafeVarargs
  static List<String> cat(List<String>... parts) {
    List<String> out = new ArrayList<>();
    for (List<String> p : parts) {
      out.addAll(p);
    }
    return out;
  }

  static CommandLineTest.Printed run(List<String> args) {
    CommandLineTest.Printed p = CommandLineTest.printed(args.toArray(String[]::new));
    assertClean(String.join(" ", args), p.out() + p.err());
    return p;
  }

  @Test
  @Order(3)
  void everyJournalReaderShowsNoPasswordWhenItSucceeds() {
    for (String pw : List.of(ENCODED, PLUS)) {
      String journal = db.url() + "&password=" + pw + "&sslpassword=" + SSL;
      for (List<String> args : readers(journal, "ok-" + pw.hashCode())) {
        CommandLineTest.Printed p = run(args);
        assertEquals(0, p.code(), args + ": " + p.err());
      }
      CommandLineTest.Printed verify = run(List.of("journal", "verify", "--journal", journal));
      assertTrue(verify.out().startsWith("journal " + db.url() + " good: "), verify.out());
    }
  }

  @Test
  @Order(4)
  void everyJournalReaderShowsNoPasswordWhenItFails() {
    String server = "jdbc:postgresql://127.0.0.1:5432/";
    for (String pw : List.of(ENCODED, PLUS)) {
      List<String> failing =
          List.of(
              server + "parreg_no_such_db?user=postgres&password=" + pw,
              "jdbc:postgresql://127.0.0.1:1/parreg?user=postgres&connectTimeout=2&password=" + pw,
              "jdbc:postgresql://postgres:" + pw + "@127.0.0.1:5432/parreg",
              "jdbc:postgresql://127.0.0.1:5432?user=postgres&password=" + pw,
              "jdbc:postgresql://127.0.0.1:5432/parreg?password=%zz" + pw,
              "jdbc:mysql://127.0.0.1/parreg?user=u&password=" + pw,
              "postgres://127.0.0.1/parreg?password=" + pw);
      for (String journal : failing) {
        for (List<String> args : readers(journal, "bad-" + journal.hashCode())) {
          CommandLineTest.Printed p = run(args);
          // A database that does not answer is a runtime failure (exit 1), the rest bad input.
          int expected = journal.contains("127.0.0.1:1/") ? 1 : 2;
          assertEquals(expected, p.code(), args + ": " + p.out() + p.err());
        }
      }
      String journal = db.url() + "&password=" + pw;
      for (List<String> args :
          List.of(
              List.of("predict", "--journal", journal, "--participant", "7", "--x", "1"),
              List.of("journal", "verify", "--journal", journal, "--run-name", "no-such-run"),
              List.of(
                  "predict",
                  "--journal",
                  journal,
                  "--participant",
                  "0",
                  "--checkpoint",
                  "x.json",
                  "--x",
                  "1"),
              List.of("history", "--journal", journal, "--participant", "0", "--width", "1"))) {
        CommandLineTest.Printed p = run(args);
        assertEquals(2, p.code(), args + ": " + p.err());
      }
    }
  }

  @Test
  @Order(5)
  void everyJournalReaderTakesThePasswordFromAFileTheOwnerAloneMayRead() throws Exception {
    Path file = Files.writeString(dir.resolve("pw"), PLUS + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    for (List<String> args : readers(db.url(), "file")) {
      CommandLineTest.Printed p =
          run(cat(args, List.of("--journal-password-file", file.toString())));
      assertEquals(0, p.code(), args + ": " + p.err());
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    for (List<String> args : readers(db.url(), "open-file")) {
      CommandLineTest.Printed p =
          run(cat(args, List.of("--journal-password-file", file.toString())));
      assertEquals(2, p.code(), args + ": " + p.err());
      assertTrue(
          p.err()
              .contains(
                  "--journal-password-file "
                      + file
                      + ": the group or others may access it; a password file must be the owner's"
                      + " alone (chmod 600 "
                      + file
                      + ")"),
          p.err());
    }
    NodeProcess.Result r =
        NodeProcess.run(
            node(
                db.url(),
                NodeProcess.freePort(),
                NodeProcess.freePort(),
                "--journal-password-file",
                file.toString()),
            Duration.ofSeconds(90));
    assertEquals(2, r.exitCode(), r.output());
    assertTrue(r.output().contains("--journal-password-file " + file + ": the group"), r.output());
    assertClean("node --journal-password-file", r.output());
  }
}
