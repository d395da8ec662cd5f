package parreg.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpEndpoint} as a client sees it: answers with the handler's status, headers and body;
 * keeps a connection for the next request (pipelined too) unless told to close; refuses what it
 * does not serve with a clear status; and half-sent or idle connections neither hold a handler nor
 * keep another client from an answer, and are closed at their deadlines.
 */
class HttpEndpointTest {
  private final ExecutorService workers = Executors.newFixedThreadPool(2);
  private HttpEndpoint endpoint;

  private HttpEndpoint start(HttpEndpoint.Limits limits) throws IOException {
    endpoint =
        new HttpEndpoint(
            "test-http",
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            limits,
            workers,
            ex -> {
              String path = ex.getRequestURI().getPath();
              if (path.equals("/boom")) {
                throw new IllegalStateException("handler failed");
              }
              byte[] body = ("path " + path).getBytes(StandardCharsets.UTF_8);
              ex.addResponseHeader("Content-Type", "text/plain");
              ex.sendResponseHeaders(path.equals("/missing") ? 404 : 200, body.length);
              ex.getResponseBody().write(body);
            });
    return endpoint;
  }

  private HttpEndpoint start() throws IOException {
    return start(new HttpEndpoint.Limits(5_000, 30_000, 30_000, 64));
  }

  @AfterEach
  void stop() {
    if (endpoint != null) {
      endpoint.close();
    }
    workers.shutdownNow();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(endpoint.address(), 2000);
    s.setSoTimeout(5000);
    return s;
  }

  /** Reads one answer: its head (status line and headers) and its body of Content-Length bytes. */
  static String[] answer(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed after " + head);
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).strip());
      }
    }
    return new String[] {
      head.toString(), new String(in.readNBytes(length), StandardCharsets.UTF_8)
    };
  }

  static void send(Socket s, String request) throws IOException {
    s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
    s.getOutputStream().flush();
  }

  @Test
  void answersAndKeepsTheConnectionForPipelinedRequests() throws Exception {
    start();
    try (Socket s = connect()) {
      send(s, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /missing?q=1 HTTP/1.1\r\nHost: x\r\n\r\n");
      String[] first = answer(s.getInputStream());
      assertTrue(first[0].startsWith("HTTP/1.1 200 OK\r\n"), first[0]);
      assertTrue(first[0].contains("Content-Type: text/plain\r\n"), first[0]);
      assertTrue(first[0].contains("Date: "), first[0]);
      assertEquals("path /a", first[1]);
      String[] second = answer(s.getInputStream());
      assertTrue(second[0].startsWith("HTTP/1.1 404 Not Found\r\n"), second[0]);
      assertEquals("path /missing", second[1]);
      send(s, "HEAD /h HTTP/1.1\r\n\r\n");
      String[] head = answer(s.getInputStream());
      assertTrue(head[0].startsWith("HTTP/1.1 200"), head[0]);
      assertFalse(head[0].toLowerCase().contains("content-length"), "HEAD: no length, no body");
      send(s, "GET /c HTTP/1.1\r\nConnection: close\r\n\r\n");
      String[] last = answer(s.getInputStream());
      assertTrue(last[0].contains("Connection: close\r\n"), last[0]);
      assertEquals(-1, s.getInputStream().read(), "closed after the answer it announced");
    }
  }

  @Test
  void http10ClosesAndABodyIsReadAndIgnored() throws Exception {
    start();
    try (Socket s = connect()) {
      send(s, "GET /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
      assertEquals("path /x", answer(s.getInputStream())[1]);
      send(s, "GET /y HTTP/1.0\r\n\r\n");
      assertEquals("path /y", answer(s.getInputStream())[1]);
      assertEquals(-1, s.getInputStream().read());
    }
  }

  @Test
  void refusesWhatItDoesNotServe() throws Exception {
    start();
    for (String[] c :
        new String[][] {
          {"garbage\r\n\r\n", "400"},
          {"GET /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "501"},
          {"GET /x HTTP/1.1\r\nContent-Length: 100000\r\n\r\n", "413"},
          {
            "GET /" + "a".repeat(HttpEndpoint.MAX_HEAD_BYTES - 5), "431"
          }, // fills the buffer exactly
          {"GET /boom HTTP/1.1\r\n\r\n", "500"}
        }) {
      try (Socket s = connect()) {
        send(s, c[0]);
        String[] a = answer(s.getInputStream());
        assertTrue(a[0].startsWith("HTTP/1.1 " + c[1] + " "), c[1] + ": " + a[0]);
      }
    }
  }

  @Test
  void halfSentRequestsHoldNoHandlerAndAreClosedAtTheHeadDeadline() throws Exception {
    start(new HttpEndpoint.Limits(500, 30_000, 30_000, 256));
    List<Socket> half = new ArrayList<>();
    try {
      for (int i = 0; i < 100; i++) {
        Socket s = connect();
        send(s, "GET /alive HTTP/1.1\r\nHost: x\r\n"); // no blank line
        half.add(s);
      }
      long t0 = System.nanoTime();
      try (Socket s = connect()) {
        send(s, "GET /alive HTTP/1.1\r\n\r\n");
        assertEquals("path /alive", answer(s.getInputStream())[1]);
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms < 1000, "answered in " + ms + " ms beside 100 half-sent requests");
      for (Socket s : half) {
        assertEquals(-1, s.getInputStream().read(), "closed at the head deadline");
      }
      long closedAfter = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(closedAfter < 3000, "half-sent requests closed after " + closedAfter + " ms");
    } finally {
      for (Socket s : half) {
        s.close();
      }
    }
  }

  @Test
  void idleConnectionsAreClosedAtTheIdleDeadline() throws Exception {
    start(new HttpEndpoint.Limits(5_000, 400, 30_000, 64));
    try (Socket s = connect()) {
      send(s, "GET /a HTTP/1.1\r\n\r\n");
      answer(s.getInputStream());
      long t0 = System.nanoTime();
      assertEquals(-1, s.getInputStream().read());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 300 && ms < 3000, "idle connection closed after " + ms + " ms");
    }
  }

  @Test
  void whenFullTheOldestWaitingConnectionMakesRoom() throws Exception {
    start(new HttpEndpoint.Limits(60_000, 60_000, 30_000, 4));
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 10; i++) {
        idle.add(connect());
      }
      try (Socket s = connect()) {
        send(s, "GET /probe HTTP/1.1\r\n\r\n");
        assertEquals("path /probe", answer(s.getInputStream())[1]);
      }
      for (int i = 0; i < 7; i++) {
        assertEquals(-1, idle.get(i).getInputStream().read(), "oldest connection " + i);
      }
      idle.get(9).setSoTimeout(200);
      try {
        idle.get(9).getInputStream().read();
        throw new AssertionError("the newest idle connection was closed");
      } catch (SocketTimeoutException expected) {
        // still open
      }
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }
}
