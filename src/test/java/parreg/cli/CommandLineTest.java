package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Usage errors and bad input: exit 2, one clear line, no stack trace, nothing started. */
class CommandLineTest {
  @TempDir Path dir;

  record Run(int code, String err) {}

  static Run run(String... args) {
    StringWriter sw = new StringWriter();
    int code = Main.execute(new PrintWriter(sw, true), args);
    return new Run(code, sw.toString());
  }

  /** What a command printed on standard output, with its exit code and error output. */
  record Printed(int code, String out, String err) {}

  /** As {@link #run}, capturing standard output too (the process's: one command at a time). */
  static Printed printed(String... args) {
    java.io.PrintStream saved = System.out;
    java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(buffer, true));
    Run r;
    try {
      r = run(args);
    } finally {
      System.setOut(saved);
    }
    return new Printed(r.code(), buffer.toString(), r.err());
  }

  static void assertUserError(Run r, String fragment) {
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains(fragment), "message names the problem: " + r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
  }

  String[] node(String... extra) {
    String[] base = {
      "node",
      "--participant",
      "0",
      "--port",
      "25001",
      "--seed-nodes",
      "127.0.0.1:25001,127.0.0.1:25002",
      "--journal",
      dir.resolve("j").toString(),
      "--steps",
      "10",
      "--backend",
      "cpu"
    };
    // extra is option/value pairs: an option already in base has its value replaced.
    java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(base));
    for (int i = 0; i < extra.length; i++) {
      int at = all.indexOf(extra[i]);
      if (at >= 0 && i + 1 < extra.length) {
        all.set(at + 1, extra[++i]);
      } else {
        all.add(extra[i]);
      }
    }
    return all.toArray(String[]::new);
  }

  @Test
  void theTopLevelHelpDescribesEveryCommandInWholeSentences() {
    Printed help = printed("--help");
    assertEquals(0, help.code(), help.err());
    String commands = help.out().substring(help.out().indexOf("Commands:"));
    // Each command's entry (its continuation lines joined) is one or more whole sentences.
    String[] entries = commands.split("\n  (?=\\S)");
    assertTrue(entries.length > 10, commands);
    for (int i = 1; i < entries.length; i++) {
      String entry = entries[i].replaceAll("\\s+", " ").strip();
      assertTrue(entry.endsWith("."), "cut mid-sentence: " + entry);
    }
  }

  @Test
  void keysToADanglingLinkOrAnUncreatablePathIsNamedCleanly() throws Exception {
    Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("keys"), dir.resolve("gone/k"));
    Run dangling = run("keys", "--nodes", "2", "--out", link.toString());
    assertUserError(dangling, "is a symbolic link to " + dir.resolve("gone/k"));
    assertEquals(1, dangling.err().strip().lines().count(), dangling.err());
    Path file = java.nio.file.Files.writeString(dir.resolve("f"), "x");
    Run through = run("keys", "--nodes", "2", "--out", file.resolve("keys").toString());
    assertUserError(through, "cannot create the directory: not a directory");
    assertFalse(through.err().contains("Exception"), through.err());
  }

  @Test
  void readersExitOneWhenTheDatabaseDoesNotAnswer() throws Exception {
    int closed = NodeProcess.freePort(); // nothing listens there: as PostgreSQL down
    String url = "jdbc:postgresql://127.0.0.1:" + closed + "/parreg";
    for (String[] args :
        new String[][] {
          {"predict", "--journal", url, "--participant", "0", "--x", "1"},
          {"journal", "verify", "--journal", url}
        }) {
      Run r = run(args);
      assertEquals(1, r.code(), r.err());
      assertTrue(r.err().contains("the database does not answer"), r.err());
      assertFalse(r.err().contains("\tat "), r.err());
    }
  }

  @Test
  void noCommandIsAUsageError() {
    assertUserError(run(), "command is required");
  }

  @Test
  void anUnknownOptionIsAUsageError() {
    assertUserError(run(node("--frobnicate")), "--frobnicate");
  }

  @Test
  void aMissingRequiredOptionIsNamed() {
    assertUserError(run("node", "--participant", "0"), "--port");
  }

  @Test
  void aParticipantOutsideTheRunIsRefused() {
    assertUserError(run(node("--participant", "2")), "outside 0..1");
  }

  @Test
  void aBadSeedNodeIsRefused() {
    String[] args = node();
    args[6] = "127.0.0.1";
    assertUserError(run(args), "not HOST:PORT");
  }

  @Test
  void aBadSeedNodeOrConfigIsRefusedBeforeAJournalIsCreated() throws Exception {
    Path bad =
        java.nio.file.Files.writeString(dir.resolve("bad.conf"), "parreg { snapshot-every = \n");
    Path wrongType =
        java.nio.file.Files.writeString(
            dir.resolve("wrong.conf"), "parreg.snapshot-every = often\n");
    Path onRemoval =
        java.nio.file.Files.writeString(
            dir.resolve("on-removal.conf"), "parreg.cluster.on-removal = sometimes\n");
    String[][] cases = {
      {"--seed-nodes", "127.0.0.1:25001,127.0.0.1", "not HOST:PORT"},
      {"--seed-nodes", "127.0.0.1:25001,127.0.0.1:99999", "99999 is not a TCP port"},
      {"--config", bad.toString(), "--config " + bad},
      {"--config", wrongType.toString(), "snapshot-every"},
      {"--config", onRemoval.toString(), "'sometimes' is neither rejoin nor exit"},
    };
    for (String[] c : cases) {
      assertUserError(run(node(c[0], c[1])), c[2]);
      assertFalse(
          java.nio.file.Files.exists(dir.resolve("j")), "no journal was created for " + c[1]);
    }
  }

  @Test
  void aClusterOrAdminPortInUseIsNamedBeforeAJournalIsCreated() throws Exception {
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Run r = run(node("--port", "" + port, "--admin-port", "" + NodeProcess.freePort()));
      assertUserError(r, "cluster port (--port) " + port + " on 127.0.0.1 is already in use");
      assertEquals(1, r.err().strip().lines().count(), r.err());
      assertFalse(java.nio.file.Files.exists(dir.resolve("j")), "no journal was created");
      r = run(node("--port", "" + NodeProcess.freePort(), "--admin-port", "" + port));
      assertUserError(r, "admin port (--admin-port) " + port + " on 127.0.0.1 is already in use");
      assertFalse(java.nio.file.Files.exists(dir.resolve("j")), "no journal was created");
    }
  }

  @Test
  void anExistingEvidenceFileIsRefusedBeforeAnythingStarts() throws Exception {
    Path ev = java.nio.file.Files.writeString(dir.resolve("evidence.json"), "{}");
    assertUserError(run(node("--evidence", ev.toString())), "already exists");
    assertFalse(java.nio.file.Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void anEvidencePathInAMissingDirectoryIsRefusedBeforeAnythingStarts() {
    Path ev = dir.resolve("nodir/ev.json");
    assertUserError(
        run(node("--evidence", ev.toString())), "directory " + dir.resolve("nodir") + " does not");
    assertFalse(java.nio.file.Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void anUnknownBackendIsRefused() {
    assertUserError(run(node("--backend", "tpu")), "unknown backend 'tpu'");
  }

  @Test
  void aBadJournalIsRefused() {
    String[] args = node();
    args[8] = "jdbc:mysql://127.0.0.1/x";
    assertUserError(run(args), "--journal");
  }

  @Test
  void statusOfANodeThatIsNotThereSaysSoAndFails() throws Exception {
    int port = NodeProcess.freePort();
    NodeProcess.Result r =
        NodeProcess.run(
            java.util.List.of(
                "status",
                "--node",
                "127.0.0.1:" + port,
                "--admin-port",
                "" + NodeProcess.freePort()),
            java.time.Duration.ofSeconds(60));
    assertEquals(1, r.exitCode(), r.output());
    assertTrue(r.output().contains("no parreg node answers at 127.0.0.1:" + port), r.output());
  }

  @Test
  void statusOfAnAddressThatIsNotANodeIsAUserError() throws Exception {
    assertUserError(run("status", "--node", "127.0.0.1:99999"), "99999 is not a TCP port");
    assertUserError(
        run("status", "--node", "127.0.0.1:60000"), "admin port 70000 is not a TCP port");
    assertUserError(run("status", "--node", "127.0.0.1"), "is not HOST:PORT");
    // Something else answers on the port: an HTML page, or JSON that is not a parreg status.
    for (String[] answer :
        new String[][] {
          {"404", "<html><body>Not Found</body></html>"},
          {"200", "{\"hello\": 1}"},
          {"200", "[1, 2]"},
          {"200", ""}
        }) {
      com.sun.net.httpserver.HttpServer other =
          com.sun.net.httpserver.HttpServer.create(
              new java.net.InetSocketAddress("127.0.0.1", 0), 4);
      other.createContext(
          "/",
          ex -> {
            byte[] body = answer[1].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ex.sendResponseHeaders(
                Integer.parseInt(answer[0]), body.length == 0 ? -1 : body.length);
            ex.getResponseBody().write(body);
            ex.close();
          });
      other.start();
      try {
        int admin = other.getAddress().getPort();
        String[] status = {"status", "--node", "127.0.0.1:2551", "--admin-port", "" + admin};
        for (Run r :
            new Run[] {
              run(status),
              run(
                  java.util.stream.Stream.concat(
                          java.util.Arrays.stream(status), java.util.stream.Stream.of("--json"))
                      .toArray(String[]::new))
            }) {
          assertUserError(r, "is not a parreg node");
          assertEquals(1, r.err().strip().lines().count(), r.err());
        }
      } finally {
        other.stop(0);
      }
    }
  }

  @Test
  void exportAndConvertNameAPathTheyCannotWrite() throws Exception {
    Path file = java.nio.file.Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n");
    // Root may write anywhere on a normal file system: a path through a regular file, and a
    // kernel file system (sysfs) refuse everyone.
    assertUserError(
        run("convert", "--in", file.toString(), "--out", file.resolve("x.prb").toString()),
        "--out " + file.resolve("x.prb") + ": cannot write: not a directory");
    if (java.nio.file.Files.isDirectory(Path.of("/sys/kernel"))) {
      assertUserError(
          run("convert", "--in", file.toString(), "--out", "/sys/kernel/x.prb"),
          "--out /sys/kernel/x.prb: cannot write: permission denied");
    }
    Path journal = java.nio.file.Files.createDirectories(dir.resolve("node-1"));
    try (java.io.InputStream in =
        getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      java.nio.file.Files.copy(in, journal.resolve("journal.mv.db"));
    }
    assertUserError(
        run(
            "export",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--out",
            file.resolve("m.json").toString()),
        file + " is not a directory");
    if (java.nio.file.Files.isDirectory(Path.of("/sys/kernel"))) {
      assertUserError(
          run(
              "export",
              "--journal",
              journal.toString(),
              "--participant",
              "1",
              "--out",
              "/sys/kernel/m.json"),
          "--out /sys/kernel/m.json: cannot write the checkpoint: permission denied");
    }
  }

  @Test
  void badDataFilesAreRefusedWithFileAndLine() throws Exception {
    Path ragged =
        java.nio.file.Files.writeString(dir.resolve("ragged.csv"), "x1,x2,y\n1,2,3\n4,5\n");
    assertUserError(run(node("--data", ragged.toString())), ragged + " line 3: expected 3 values");
    Path word = java.nio.file.Files.writeString(dir.resolve("word.csv"), "x1,y\n1,2\nabc,3\n");
    assertUserError(
        run(node("--data", word.toString())), word + " line 3: x1 is 'abc', not a number");
    Path nan = java.nio.file.Files.writeString(dir.resolve("nan.csv"), "x1,y\n1,NaN\n");
    assertUserError(
        run(node("--data", nan.toString())), nan + " line 2: y is 'NaN', not a finite number");
    assertUserError(run(node("--data", dir.resolve("missing.csv").toString())), "no such file");
    assertFalse(java.nio.file.Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void predictNeedsASource() {
    assertUserError(run("predict", "--x", "1"), "--checkpoint");
  }

  @Test
  void predictFromAMissingJournalIsAUserError() {
    assertUserError(
        run(
            "predict",
            "--journal",
            dir.resolve("none").toString(),
            "--participant",
            "0",
            "--x",
            "1"),
        "no journal");
  }
}
