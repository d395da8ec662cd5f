package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The health routes of a real node process: {@code /ready} is 503 (with its reason) until the node
 * is Up with its journal open and its backend ready, then 200; {@code /alive} and {@code
 * /cluster/members} answer; and 20 idle connections plus 2 half-sent requests do not keep {@code
 * /status} or {@code /ready} from answering within a second (issue 13 item 7: with the former
 * 2-thread executor, two half-sent requests blocked {@code /status} for everyone).
 */
@Tag("multiprocess")
class HealthRoutesTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  record Answer(int code, JsonNode body) {}

  @Test
  void readyAliveMembersAndIdleConnections() throws Exception {
    String host = NodeProcess.LOOPBACK;
    int port = NodeProcess.freePort();
    int admin = NodeProcess.freePort();
    // participant 0 of a two-node run, alone: it forms the cluster by itself after the seed-node
    // timeout (2 s), so there is a window in which its endpoint answers but it is not Up yet
    List<String> args =
        List.of(
            "node",
            "--participant",
            "0",
            "--port",
            "" + port,
            "--admin-port",
            "" + admin,
            "--seed-nodes",
            host + ":" + port + "," + host + ":" + NodeProcess.freePort(),
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
      Answer first = null;
      Answer ready = null;
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (System.nanoTime() < deadline && node.isAlive()) {
        Answer a;
        try {
          a = get(base + "/ready");
        } catch (java.net.SocketTimeoutException e) {
          a = null; // a node starting on a loaded machine may be slow to answer; keep polling
        }
        if (a != null && first == null) {
          first = a;
        }
        if (a != null && a.code() == 200) {
          ready = a;
          break;
        }
        Thread.sleep(20);
      }
      assertTrue(first != null && ready != null, "the node became ready; see " + node.log());
      assertEquals(503, first.code(), "not ready at first: " + first.body());
      assertTrue(first.body().get("reason").asText().length() > 0, "says why: " + first.body());
      assertEquals(true, ready.body().get("ok").asBoolean());

      assertEquals(200, get(base + "/alive").code());
      Answer members = get(base + "/cluster/members");
      assertEquals(200, members.code());
      assertEquals("pekko://parreg@" + host + ":" + port, members.body().get("selfNode").asText());
      assertEquals("Up", members.body().get("members").get(0).get("status").asText());
      assertEquals(404, get(base + "/readyz").code(), "exact paths only");

      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < 20; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress(host, admin), 2000);
          idle.add(s);
        }
        for (int i = 0; i < 2; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress(host, admin), 2000);
          OutputStream out = s.getOutputStream();
          out.write(
              ("GET /status HTTP/1.1\r\nHost: " + host + "\r\n")
                  .getBytes(StandardCharsets.US_ASCII)); // no blank line
          out.flush();
          idle.add(s);
        }
        Thread.sleep(200); // let the server take them all in
        for (String route : List.of("/status", "/ready")) {
          long t0 = System.nanoTime();
          Answer a = get(base + route);
          long ms = (System.nanoTime() - t0) / 1_000_000;
          assertTrue(
              a != null && a.code() == 200, route + " answers with 22 idle connections open: " + a);
          assertTrue(ms < 1000, route + " answered in " + ms + " ms with 22 idle connections open");
        }
      } finally {
        for (Socket s : idle) {
          s.close();
        }
      }
    }
  }

  /** One GET with a 1-second read timeout; null while nothing listens. */
  static Answer get(String url) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
    c.setConnectTimeout(1000);
    c.setReadTimeout(1000);
    try {
      int code = c.getResponseCode();
      var in = code < 400 ? c.getInputStream() : c.getErrorStream();
      return new Answer(code, JSON.readTree(in.readAllBytes()));
    } catch (java.net.ConnectException e) {
      return null;
    } finally {
      c.disconnect();
    }
  }
}
