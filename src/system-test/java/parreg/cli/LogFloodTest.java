package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 9 bytes that send Pekko 1.7.0's Artery TCP framing into an endless logging loop (STACK.md:
 * 170,000 lines a second, 77 MB in 5 s), sent to a plain-TCP node whose framing guard is turned off
 * ({@code parreg.cluster.framing-guard.enabled = off}, so that the bytes reach Pekko's framing):
 * its log stays small (LogRateLimit) and it keeps answering. With the guard, the default, the bytes
 * never get there (ClusterPortGuardTest); TLS nodes never reach that stage either (TlsClusterTest).
 */
@Tag("multiprocess")
class LogFloodTest {
  /** {@code b'AKKA\x02'} then a negative 32-bit little-endian frame length. */
  static final byte[] PACKET = {
    'A', 'K', 'K', 'A', 2, (byte) 0xF0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF
  };

  @TempDir Path dir;

  @Test
  void theFramingLoopCannotFloodTheLog() throws Exception {
    String host = NodeProcess.LOOPBACK;
    int port = NodeProcess.freePort();
    int admin = NodeProcess.freePort();
    Path config = dir.resolve("no-guard.conf");
    Files.writeString(config, "parreg.cluster.framing-guard.enabled = off\n");
    List<String> args =
        List.of(
            "node",
            "--config",
            config.toString(),
            "--participant",
            "0",
            "--port",
            "" + port,
            "--admin-port",
            "" + admin,
            "--seed-nodes",
            host + ":" + port,
            "--backend",
            "cpu",
            "--data",
            "seed",
            "--journal",
            dir.resolve("j").toString(),
            "--steps",
            "10");
    try (NodeProcess node = NodeProcess.start(args, dir.resolve("node.log"), admin)) {
      String base = "http://" + host + ":" + admin;
      awaitReady(node, base);
      long before = Files.size(node.log());
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(host, port), 2000);
        OutputStream out = s.getOutputStream();
        out.write(PACKET);
        out.flush();
        Thread.sleep(3000);
        String log = Files.readString(node.log());
        long grown = Files.size(node.log()) - before;
        assertTrue(
            log.contains("Dropping message due to"),
            "the packet started the framing loop (else this test proves nothing)");
        assertTrue(log.contains("dropping messages of logger"), "the guard says it drops");
        assertTrue(grown < 200_000, "log grew by " + grown + " bytes in 3 s of the loop");
        HealthRoutesTest.Answer status = HealthRoutesTest.get(base + "/alive");
        assertEquals(200, status.code(), "the node still answers");
      }
    }
  }

  static void awaitReady(NodeProcess node, String base) throws Exception {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (System.nanoTime() < deadline && node.isAlive()) {
      HealthRoutesTest.Answer a;
      try {
        a = HealthRoutesTest.get(base + "/ready");
      } catch (java.net.SocketTimeoutException slow) {
        a = null; // a node still starting on an overloaded machine: ask again
      }
      if (a != null && a.code() == 200) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("node not ready; see " + node.log());
  }
}
