package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static parreg.cli.CommandLineTest.assertUserError;
import static parreg.cli.CommandLineTest.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The address options of {@code parreg node}: refused with exit 2 and one line, before the
 * journal is created; in particular plain TCP on a non-loopback address needs {@code --insecure}.
 */
class NodeAddressOptionsTest {
  @TempDir Path dir;

  String[] node(String... extra) {
    List<String> a = new ArrayList<>(List.of("node", "--participant", "0", "--port", "25001", "--seed-nodes",
        "127.0.0.1:25001,127.0.0.2:25002", "--journal", dir.resolve("j").toString(), "--steps", "10", "--backend", "cpu"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  void assertNothingWritten() {
    assertFalse(Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void listeningOnAllAddressesInPlainTcpNeedsInsecure() {
    assertUserError(run(node("--bind-host", "0.0.0.0")), "listen on 0.0.0.0, which is not a loopback address");
    assertNothingWritten();
  }

  @Test
  void aNonLoopbackHostIsWhereTheNodeListensByDefaultSoItNeedsInsecureToo() {
    assertUserError(run(node("--host", "192.0.2.7")), "--insecure");
    assertNothingWritten();
  }

  @Test
  void aMalformedHostIsNamed() {
    assertUserError(run(node("--host", "node_0!")), "--host 'node_0!' is not a host name or IPv4 address");
    assertUserError(run(node("--admin-host", "-x")), "--admin-host '-x'");
    assertNothingWritten();
  }

  @Test
  void aSeedNodeWithoutAUsablePortIsRefused() {
    String[] args = node();
    args[6] = "127.0.0.1:25001,127.0.0.2:0";
    assertUserError(run(args), "--seed-nodes: '127.0.0.2:0' is not HOST:PORT");
    assertNothingWritten();
  }

  @Test
  void theAdminPortOffsetComesFromConfiguration() throws Exception {
    Path conf = Files.writeString(dir.resolve("offset.conf"), "parreg.admin.port-offset = 50000\n");
    assertUserError(run(node("--config", conf.toString())), "admin port 75001 is not a TCP port");
    assertNothingWritten();
  }
}
