package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed fidelity of the deployment inputs (issue 13 item 9): a card named with {@code --device}
 * binds exactly, under {@code --backend auto} too, and is checked before the journal exists; {@code
 * --steps 0} is refused as in the seed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DeviceBindingTest {
  @TempDir Path dir;

  List<String> node(String steps, String... extra) throws Exception {
    int port = NodeProcess.freePort();
    List<String> a =
        new java.util.ArrayList<>(
            List.of(
                "node",
                "--participant",
                "0",
                "--port",
                "" + port,
                "--admin-port",
                "" + NodeProcess.freePort(),
                "--seed-nodes",
                "127.0.0.1:" + port + ",127.0.0.1:" + NodeProcess.freePort(),
                "--data",
                "seed",
                "--journal",
                dir.resolve("j").toString(),
                "--steps",
                steps));
    a.addAll(List.of(extra));
    return a;
  }

  @Test
  void aDeviceThatMatchesNoCardIsRefusedUnderAutoBeforeTheJournalExists() throws Exception {
    // No card has this UUID (on a machine without a card, none has any): auto must not fall back to
    // the CPU.
    List<String> args =
        node("10", "--backend", "auto", "--device", "GPU-00000000-0000-0000-0000-000000000000");
    try (NodeProcess n =
        NodeProcess.start(args, dir.resolve("node.log"), Integer.parseInt(args.get(6)))) {
      int code = n.waitFor(Duration.ofSeconds(45));
      String log = Files.readString(n.log());
      assertEquals(2, code, log);
      assertTrue(log.contains("nothing was written"), log);
      assertFalse(log.contains("\tat "), "one line, no stack trace: " + log);
    }
    assertFalse(Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void zeroStepsAreRefused() throws Exception {
    CommandLineTest.Run r =
        CommandLineTest.run(node("0", "--backend", "cpu").toArray(String[]::new));
    CommandLineTest.assertUserError(r, "--steps must be >= 1");
    assertFalse(Files.exists(dir.resolve("j")));
  }
}
