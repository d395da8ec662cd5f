package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's {@code /alive} and {@code /status} answer within a second under a load of half-sent
 * requests ({@code GET /alive HTTP/1.1} and a header line, never the blank line that ends the
 * head): first with 70 of them open, then while 100 new ones arrive every 3 s. Where each
 * connection's request is read on a thread of a 64-thread pool until a 10 s cut, 70 delayed {@code
 * /alive} by 8.8 s and the sustained load failed every probe.
 */
@Tag("multiprocess")
class ProbesUnderLoadTest {
  static final byte[] HALF =
      "GET /alive HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII);

  @TempDir Path dir;

  @Test
  void aliveAndStatusAnswerWithinASecondBesideHalfSentRequests() throws Exception {
    List<Socket> held = new ArrayList<>();
    try (ClusterRun c =
        new ClusterRun(
            2,
            dir,
            p ->
                List.of(
                    "--data",
                    "seed",
                    "--journal",
                    dir.resolve("node-" + p).toString(),
                    "--steps",
                    "1000000",
                    "--step-interval-ms",
                    "50"))) {
      String host = c.hosts[0];
      int admin = c.admin[0];
      String base = "http://" + host + ":" + admin;
      LogFloodTest.awaitReady(c.node(0), base);
      ClusterRun.await(c.node(0), s -> s.get("committedStep").asLong() >= 5, "training to run");
      List<String> slow = new ArrayList<>();
      List<String> times = new ArrayList<>();
      halfSent(host, admin, 70, held);
      probe(base, "70 half-sent open", slow, times);
      for (int round = 1; round <= 4; round++) {
        halfSent(host, admin, 100, held);
        probe(base, "round " + round + " of 100 new half-sent", slow, times);
        Thread.sleep(3000);
      }
      System.out.println("ProbesUnderLoadTest: " + times);
      assertTrue(slow.isEmpty(), "probes over 1 s or failed: " + slow + "; all: " + times);
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
  }

  private static void probe(String base, String when, List<String> slow, List<String> times)
      throws Exception {
    for (String route : List.of("/alive", "/status")) {
      long t0 = System.nanoTime();
      String outcome;
      try {
        HealthRoutesTest.Answer a = HealthRoutesTest.get(base + route); // 1 s timeouts
        outcome = a == null ? "refused" : "" + a.code();
      } catch (IOException e) {
        outcome = e.getClass().getSimpleName();
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      String line = when + ": " + route + " " + outcome + " in " + ms + " ms";
      times.add(line);
      if (!outcome.equals("200") || ms >= 1000) {
        slow.add(line);
      }
    }
  }

  /** Opens {@code n} connections that each send a request head without its final blank line. */
  private static void halfSent(String host, int port, int n, List<Socket> held) throws IOException {
    for (int i = 0; i < n; i++) {
      Socket s = new Socket();
      s.connect(new InetSocketAddress(host, port), 2000);
      s.getOutputStream().write(HALF);
      s.getOutputStream().flush();
      held.add(s);
    }
  }
}
