package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.ConnectException;
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
 * Two nodes on two different addresses, 127.0.0.1 and 127.0.0.2 (both loopback on Linux), each
 * listening only on its own: the seed run goes through a SIGKILL and restart of node 1 to the
 * golden bits, and every address the nodes report (banner, status, members) is the real one.
 */
@Tag("multiprocess")
class TwoAddressCrashTest {
  static final int STEPS = 200;
  static final String[] HOSTS = {"127.0.0.1", "127.0.0.2"};

  @TempDir Path dir;

  @Test
  void nodesOnTwoAddressesSurviveAKillAndEndAtTheGoldenBits() throws Exception {
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
                    "" + STEPS))) {
      List<String> expected = new ArrayList<>();
      for (int p = 0; p < 2; p++) {
        expected.add("pekko://parreg@" + HOSTS[p] + ":" + c.ports[p]);
      }
      for (int p = 0; p < 2; p++) {
        JsonNode s =
            ClusterRun.await(
                c.node(p), j -> j.get("members").size() == 2, "node to see both members");
        assertEquals(
            expected.get(p), s.get("address").asText(), "status reports the node's own address");
        List<String> members = new ArrayList<>();
        s.get("members").forEach(m -> members.add(m.get("address").asText()));
        assertEquals(
            expected, members.stream().sorted().toList(), "members on their own addresses");
        // each node listens only on its own address: the other loopback address refuses
        int other = 1 - p;
        int port = c.ports[p];
        assertThrows(
            ConnectException.class,
            () -> connect(HOSTS[other], port),
            "cluster port of node " + p + " on " + HOSTS[other]);
        int admin = c.admin[p];
        assertThrows(
            ConnectException.class,
            () -> connect(HOSTS[other], admin),
            "HTTP port of node " + p + " on " + HOSTS[other]);
      }
      JsonNode resumed = c.crashAndRestart(1, 80);
      // crashAndRestart checked that it resumed at least where its journal was durable
      assertTrue(
          resumed.get("recoveredStep").asLong() > 0, "resumed from its journal, not from scratch");
      for (JsonNode s : c.awaitAllDone()) {
        assertEquals(STEPS, s.get("committedStep").asLong());
        assertEquals("0x3690000000000000", s.get("weightBits").get(0).asText(), "golden bits");
      }
      String banner = Files.readString(c.node(1).log());
      assertTrue(
          banner.contains(
              "parreg node 1: "
                  + expected.get(1)
                  + " (cluster port listening on 127.0.0.2:"
                  + c.ports[1]
                  + ", plain TCP)"),
          "banner names the real addresses:\n"
              + banner.lines().filter(l -> l.startsWith("parreg node")).toList());
      assertTrue(
          banner.contains("status http://127.0.0.2:" + c.admin[1] + "/status"),
          "banner names the HTTP address");
    }
    ClusterRun.assertEveryStepOnce(dir, 2, STEPS);
  }

  static void connect(String host, int port) throws Exception {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 2000);
    }
  }
}
