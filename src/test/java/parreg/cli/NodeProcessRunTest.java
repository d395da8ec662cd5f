package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link NodeProcess#run} ends a command at its timeout even while the command keeps writing. */
class NodeProcessRunTest {
  @TempDir Path dir;

  @Test
  void aCommandThatEndsGivesItsExitCodeAndOutput() throws Exception {
    NodeProcess.Result r = NodeProcess.run(List.of("node"), Duration.ofSeconds(60));
    assertEquals(2, r.exitCode(), r.output());
    assertTrue(r.output().contains("Missing required options"), r.output());
  }

  // Before the output was read on a thread of its own, run() read to the end of the output first
  // and only then looked at the timeout: a node that waits for ever for its peer held it for ever.
  @Test
  @Timeout(120)
  void aCommandThatNeverEndsIsStoppedAtTheTimeoutWithItsOutputSoFar() throws Exception {
    int port = NodeProcess.freePort("127.0.0.1");
    int other = NodeProcess.freePort("127.0.0.1");
    List<String> args =
        List.of(
            "node",
            "--participant",
            "0",
            "--participants",
            "2",
            "--port",
            String.valueOf(port),
            "--admin-port",
            String.valueOf(NodeProcess.freePort("127.0.0.1")),
            "--seed-nodes",
            "127.0.0.1:" + port + ",127.0.0.1:" + other,
            "--journal",
            dir.resolve("n0").toString(),
            "--steps",
            "5");
    long t0 = System.nanoTime();
    IOException e =
        assertThrows(IOException.class, () -> NodeProcess.run(args, Duration.ofSeconds(20)));
    long seconds = (System.nanoTime() - t0) / 1_000_000_000L;
    assertTrue(e.getMessage().contains("did not finish within"), e.getMessage());
    assertTrue(seconds < 60, "stopped at the timeout, not at the node's end: " + seconds + " s");
    assertTrue(Files.exists(dir.resolve("n0")), "the node had started");
  }
}
