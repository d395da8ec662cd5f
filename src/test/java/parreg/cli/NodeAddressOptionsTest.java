package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * The address options of {@code parreg node}: refused with exit 2 and one line, before the journal
 * is created; in particular plain TCP on a non-loopback address needs {@code --insecure}.
 */
class NodeAddressOptionsTest {
  @TempDir Path dir;

  String[] node(String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                "0",
                "--port",
                "25001",
                "--seed-nodes",
                "127.0.0.1:25001,127.0.0.2:25002",
                "--journal",
                dir.resolve("j").toString(),
                "--steps",
                "10",
                "--backend",
                "cpu"));
    a.addAll(List.of(extra));
    return a.toArray(String[]::new);
  }

  void assertNothingWritten() {
    assertFalse(Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void listeningOnAllAddressesInPlainTcpNeedsInsecure() {
    assertUserError(
        run(node("--bind-host", "0.0.0.0")), "listen on 0.0.0.0, which is not a loopback address");
    assertNothingWritten();
  }

  @Test
  void tlsConfiguredByHandInAConfigFileCountsAsTls() throws Exception {
    // the journal is checked right after the addresses: reaching its refusal means the address
    // check passed
    Path conf =
        Files.writeString(dir.resolve("tls.conf"), "pekko.remote.artery.transport = tls-tcp\n");
    String[] args = node("--bind-host", "0.0.0.0", "--config", conf.toString());
    args[8] = "jdbc:mysql://127.0.0.1/x";
    assertUserError(run(args), "--journal");
    String[] plain = node("--bind-host", "0.0.0.0");
    plain[8] = "jdbc:mysql://127.0.0.1/x";
    assertUserError(run(plain), "--insecure");
  }

  @Test
  void aNonLoopbackHostIsWhereTheNodeListensByDefaultSoItNeedsInsecureToo() {
    assertUserError(run(node("--host", "192.0.2.7")), "--insecure");
    assertNothingWritten();
  }

  @Test
  void aMalformedHostIsNamed() {
    assertUserError(
        run(node("--host", "node_0!")), "--host 'node_0!' is not a host name or IPv4 address");
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
  void tlsNeedsBothStoresAndAPasswordThatOpensThem() throws Exception {
    Path keys = dir.resolve("keys");
    assertEquals(0, Main.execute("keys", "--out", keys.toString(), "--nodes", "1"));
    String ks = keys.resolve("node-0.p12").toString();
    String ts = keys.resolve("truststore.p12").toString();
    assertUserError(
        run(node("--tls-keystore", ks)), "TLS needs both --tls-keystore and --tls-truststore");
    Path wrong = Files.writeString(dir.resolve("wrong"), "not-the-password\n");
    assertUserError(
        run(
            node(
                "--tls-keystore",
                ks,
                "--tls-truststore",
                ts,
                "--tls-password-file",
                wrong.toString())),
        "--tls-keystore " + ks + ": not a PKCS12 store this password opens");
    String pw = keys.resolve("password").toString();
    assertUserError(
        run(node("--tls-keystore", ts, "--tls-truststore", ts, "--tls-password-file", pw)),
        "holds no private key");
    assertUserError(
        run(node("--tls-keystore", ks, "--tls-truststore", ks, "--tls-password-file", pw)),
        "holds no trusted certificate");
    assertNothingWritten();
  }

  @Test
  void keysAreNeverOverwritten() throws Exception {
    Path keys = dir.resolve("keys");
    assertEquals(0, Main.execute("keys", "--out", keys.toString(), "--nodes", "2"));
    byte[] before = Files.readAllBytes(keys.resolve("node-0.p12"));
    assertUserError(
        run("keys", "--out", keys.toString(), "--nodes", "2"),
        "is not an empty directory; keys are never overwritten");
    assertEquals(
        java.util.Arrays.toString(before),
        java.util.Arrays.toString(Files.readAllBytes(keys.resolve("node-0.p12"))));
    assertUserError(
        run("keys", "--out", dir.resolve("k2").toString(), "--nodes", "0"),
        "--nodes must be between 1 and 1000");
    assertEquals(
        "rw-------",
        java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(keys.resolve("password"))),
        "the password is the owner's only");
  }

  @Test
  void aSystemPropertyWinsOverTheConfigFile() throws Exception {
    Path conf = Files.writeString(dir.resolve("offset.conf"), "parreg.admin.port-offset = 50000\n");
    System.setProperty("parreg.admin.port-offset", "60000");
    com.typesafe.config.ConfigFactory.invalidateCaches();
    try {
      assertUserError(run(node("--config", conf.toString())), "admin port 85001 is not a TCP port");
    } finally {
      System.clearProperty("parreg.admin.port-offset");
      com.typesafe.config.ConfigFactory.invalidateCaches();
    }
    assertNothingWritten();
  }

  @Test
  void theAdminPortOffsetComesFromConfiguration() throws Exception {
    Path conf = Files.writeString(dir.resolve("offset.conf"), "parreg.admin.port-offset = 50000\n");
    assertUserError(run(node("--config", conf.toString())), "admin port 75001 is not a TCP port");
    assertNothingWritten();
  }
}
