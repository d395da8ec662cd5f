package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes on 127.0.0.1 and 127.0.0.2 with Artery over TLS (keys from {@code parreg keys}) train
 * the seed run to the golden bits while three things try to get in: a node whose certificate
 * another CA signed, a node speaking plain TCP, and the 9 bytes that loop Pekko 1.7.0's TCP
 * framing. Neither node joins (the cluster's members stay the two), the refused certificate is
 * named in a cluster node's log, the packet leaves no trace in the log, and the journals hold every
 * step once.
 */
@Tag("multiprocess")
class TlsClusterTest {
  static final int STEPS = 200;
  static final String[] HOSTS = {"127.0.0.1", "127.0.0.2"};

  @TempDir Path dir;

  @Test
  void aTlsClusterTrainsAndKeepsUntrustedAndPlainNodesOut() throws Exception {
    Path keys = dir.resolve("keys");
    Path other = dir.resolve("other-ca");
    assertEquals(0, Main.execute("keys", "--out", keys.toString(), "--nodes", "2"));
    assertEquals(
        0,
        Main.execute(
            "keys",
            "--out",
            other.toString(),
            "--nodes",
            "2",
            "--password-file",
            keys.resolve("password").toString()));
    try (ClusterRun c =
            new ClusterRun(
                2,
                dir,
                p -> HOSTS[p],
                p ->
                    List.of(
                        "--data",
                        "seed",
                        "--journal",
                        dir.resolve("node-" + p).toString(),
                        "--steps",
                        "" + STEPS,
                        "--step-interval-ms",
                        "10",
                        "--tls-keystore",
                        keys.resolve("node-" + p + ".p12").toString(),
                        "--tls-truststore",
                        keys.resolve("truststore.p12").toString(),
                        "--tls-password-file",
                        keys.resolve("password").toString()));
        Socket packet = new Socket()) {
      // participant 1 again: were either let in, the run would be disturbed, not just the member
      // list
      NodeProcess untrusted =
          intruder(
              c,
              "127.0.0.3",
              "untrusted",
              List.of(
                  "--tls-keystore", other.resolve("node-1.p12").toString(),
                  "--tls-truststore", keys.resolve("truststore.p12").toString(),
                  "--tls-password-file", keys.resolve("password").toString()));
      NodeProcess plain = intruder(c, "127.0.0.4", "plain", List.of());
      try (untrusted;
          plain) {
        ClusterRun.await(c.node(0), s -> s.get("committedStep").asLong() >= 5, "training to start");
        packet.connect(new InetSocketAddress(HOSTS[0], c.ports[0]), 2000);
        OutputStream out = packet.getOutputStream();
        out.write(LogFloodTest.PACKET);
        out.flush();
        // TLS answers plain bytes with an alert record (content type 21) and closes, or just closes
        packet.setSoTimeout(10_000);
        int first = packet.getInputStream().read();
        assertTrue(
            first == 21 || first == -1,
            "the TLS port refused plain TCP bytes (read " + first + ")");
        awaitLog(
            untrusted,
            "Received fatal alert: bad_certificate"); // the cluster refused its certificate
        // ... and the cluster says so in its own log (the intruder's key manager finds no
        // certificate
        // for the CA the cluster asks for, so it sends none)
        awaitLog(
            List.of(c.node(0), c.node(1)),
            "WARN  [RefusalLoggingSslEngineProvider] refused a TLS connection to the cluster port");
        awaitLog(
            List.of(c.node(0), c.node(1)), "SSLHandshakeException: Empty client certificate chain");
        awaitLog(plain, "Couldn't join seed nodes after [2] attempts");
        List<JsonNode> done = c.awaitAllDone();
        List<String> expected =
            List.of(
                "pekko://parreg@" + HOSTS[0] + ":" + c.ports[0],
                "pekko://parreg@" + HOSTS[1] + ":" + c.ports[1]);
        for (JsonNode s : done) {
          assertEquals(STEPS, s.get("committedStep").asLong());
          assertEquals("0x3690000000000000", s.get("weightBits").get(0).asText(), "golden bits");
          List<String> members = new ArrayList<>();
          s.get("members").forEach(m -> members.add(m.get("address").asText()));
          assertEquals(
              expected,
              members.stream().sorted().toList(),
              "only the two trusted nodes are members");
        }
        for (NodeProcess intruder : List.of(untrusted, plain)) {
          JsonNode s = ClusterRun.await(intruder, j -> true, "the intruder's status");
          assertEquals(
              "starting", s.get("state").asText(), "the intruder never got to train: " + s);
          s.get("members")
              .forEach(
                  m ->
                      assertFalse(
                          expected.contains(m.get("address").asText()), "intruder sees " + m));
        }
      }
      String log0 = Files.readString(c.node(0).log());
      assertFalse(
          log0.contains("Dropping message due to"),
          "the framing packet never reached Artery's framing");
      assertTrue(log0.contains("TLS)"), "the banner says TLS");
    }
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
  }

  static void awaitLog(NodeProcess n, String line) throws Exception {
    awaitLog(List.of(n), line);
  }

  /** Waits until one of the nodes' logs holds the text. */
  static void awaitLog(List<NodeProcess> nodes, String line) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline) {
      for (NodeProcess n : nodes) {
        if (Files.readString(n.log()).contains(line)) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError(
        "no '" + line + "' in " + nodes.stream().map(NodeProcess::log).toList());
  }

  private NodeProcess intruder(ClusterRun c, String host, String name, List<String> tls)
      throws Exception {
    int port = NodeProcess.freePort(host);
    int admin = NodeProcess.freePort(host);
    List<String> args =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                "1",
                "--host",
                host,
                "--port",
                "" + port,
                "--admin-host",
                host,
                "--admin-port",
                "" + admin,
                "--seed-nodes",
                c.seeds,
                "--backend",
                "cpu",
                "--data",
                "seed",
                "--journal",
                dir.resolve(name).toString(),
                "--steps",
                "" + STEPS));
    args.addAll(tls);
    return NodeProcess.start(args, dir.resolve(name + ".log"), host, admin);
  }
}
