package parreg.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The guard between a client and a stand-in for Artery's internal port (a plain server socket):
 * valid framing passes unchanged both ways, in pieces of any size; a bad frame closes the client's
 * connection and never reaches the upstream side; a connection that sends nothing in time, or that
 * makes room for a newer one when the guard is full, is closed.
 */
class FramingGuardTest {
  private ServerSocket upstream;
  private FramingGuard guard;
  private final BlockingQueue<Socket> accepted = new ArrayBlockingQueue<>(64);

  @BeforeEach
  void start() throws IOException {
    upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              try {
                while (true) {
                  accepted.add(upstream.accept());
                }
              } catch (IOException closed) {
                // the test is over
              }
            });
    t.setDaemon(true);
    t.start();
    guard = guard(10_000, 16);
  }

  private FramingGuard guard(long firstFrameMillis, int maxConnections) throws IOException {
    FramingGuard.Plan plan =
        new FramingGuard.Plan(
            InetAddress.getLoopbackAddress().getHostAddress(),
            0,
            FrameCheckTest.MAGICS,
            1000,
            5000,
            firstFrameMillis,
            maxConnections);
    return new FramingGuard(plan, (InetSocketAddress) upstream.getLocalSocketAddress());
  }

  @AfterEach
  void stop() throws IOException {
    guard.close();
    upstream.close();
    for (Socket s : accepted) {
      s.close();
    }
  }

  private Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(guard.address(), 2000);
    s.setSoTimeout(5000);
    return s;
  }

  @Test
  void validFramingPassesBothWaysInPiecesOfAnySize() throws Exception {
    Random rnd = new Random(1);
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.writeBytes(FrameCheckTest.header("AKKA", 2));
    for (int i = 0; i < 200; i++) {
      int n = 1 + rnd.nextInt(1000);
      all.writeBytes(FrameCheckTest.frame(n, n));
    }
    byte[] stream = all.toByteArray();
    try (Socket client = connect()) {
      var out = client.getOutputStream();
      for (int off = 0; off < stream.length; ) {
        int n = Math.min(stream.length - off, 1 + rnd.nextInt(3000));
        out.write(stream, off, n);
        out.flush();
        off += n;
      }
      Socket far = accepted.poll(5, TimeUnit.SECONDS);
      assertTrue(far != null, "the guard connected upstream");
      far.setSoTimeout(5000);
      assertArrayEquals(stream, far.getInputStream().readNBytes(stream.length));
      // and back: what the upstream side sends reaches the client unchanged
      byte[] answer = "answer bytes".getBytes();
      far.getOutputStream().write(answer);
      assertArrayEquals(answer, client.getInputStream().readNBytes(answer.length));
      // the client closes: the upstream connection ends too
      client.close();
      assertEquals(-1, far.getInputStream().read());
      far.close();
    }
  }

  @Test
  void aNegativeLengthClosesTheConnectionAndNeverReachesUpstream() throws Exception {
    try (Socket client = connect()) {
      byte[] good =
          FrameCheckTest.concat(FrameCheckTest.header("AKKA", 2), FrameCheckTest.frame(4, 4));
      client.getOutputStream().write(good);
      Socket far = accepted.poll(5, TimeUnit.SECONDS);
      assertTrue(far != null, "the guard connected upstream");
      far.setSoTimeout(5000);
      assertArrayEquals(good, far.getInputStream().readNBytes(good.length));
      client.getOutputStream().write(FrameCheckTest.frame(-16, 0));
      assertEquals(-1, client.getInputStream().read(), "the guard closed the client");
      assertEquals(-1, far.getInputStream().read(), "not a byte of the bad length went upstream");
      far.close();
    }
  }

  @Test
  void aBadHeaderIsClosedWithoutAnUpstreamConnection() throws Exception {
    try (Socket client = connect()) {
      client
          .getOutputStream()
          .write(
              FrameCheckTest.concat(
                  FrameCheckTest.header("AKKA", 2), FrameCheckTest.frame(-16, 0)));
      assertEquals(-1, client.getInputStream().read(), "closed");
    }
    try (Socket client = connect()) {
      client.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes());
      assertEquals(-1, client.getInputStream().read(), "closed");
    }
    // the header and the bad length came in one read: refused before the upstream connection opened
    assertEquals(null, accepted.poll(300, TimeUnit.MILLISECONDS), "nothing reached upstream");
  }

  @Test
  void aSilentConnectionIsClosedAtTheFirstFrameTimeout() throws Exception {
    guard.close();
    guard = guard(300, 16);
    try (Socket client = connect()) {
      long t0 = System.nanoTime();
      assertEquals(-1, client.getInputStream().read());
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(ms >= 250 && ms < 3000, "closed after " + ms + " ms");
    }
  }

  @Test
  void whenFullTheOldestConnectionWithoutAFrameMakesRoom() throws Exception {
    guard.close();
    guard = guard(60_000, 3);
    List<Socket> idle = new ArrayList<>();
    try (Socket peer = connect()) {
      // a peer's connection, with a whole frame: never evicted
      peer.getOutputStream()
          .write(
              FrameCheckTest.concat(FrameCheckTest.header("AKKA", 2), FrameCheckTest.frame(4, 4)));
      Socket far = accepted.poll(5, TimeUnit.SECONDS);
      assertTrue(far != null);
      far.setSoTimeout(5000);
      far.getInputStream().readNBytes(13);
      for (int i = 0; i < 5; i++) {
        idle.add(connect());
        Thread.sleep(50);
      }
      // of the five silent ones, the first three were closed to make room for the later ones
      for (int i = 0; i < 3; i++) {
        assertEquals(-1, idle.get(i).getInputStream().read(), "silent connection " + i);
      }
      idle.get(4).setSoTimeout(300);
      try {
        idle.get(4).getInputStream().read();
        throw new AssertionError("the newest connection was closed");
      } catch (SocketTimeoutException expected) {
        // still open
      }
      peer.getOutputStream().write(FrameCheckTest.frame(2, 2));
      assertEquals(
          6, far.getInputStream().readNBytes(6).length, "the peer's connection still passes");
      far.close();
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }
}
