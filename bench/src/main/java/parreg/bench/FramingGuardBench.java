package parreg.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import parreg.cluster.FramingGuard;

/**
 * What one pass through the cluster port's {@link FramingGuard} costs a message: round trips of
 * Artery-framed messages between a client and an echo server, directly and through the guard (which
 * checks the client's frames and passes the echo back), alternated over several rounds. Prints, per
 * round, microseconds per round trip each way, and the guard thread's CPU time per message it
 * passed (its own thread's CPU, so other processes on a loaded machine do not count). A round trip
 * through the guard is two passes (there and back); a step of a two-node run sends each node about
 * one message per peer, so one pass per message is what a step pays.
 *
 * <p>Usage: {@code FramingGuardBench [ROUND_TRIPS] [PAYLOAD_BYTES] [ROUNDS]}.
 */
public final class FramingGuardBench {
  private FramingGuardBench() {}

  public static void main(String[] args) throws Exception {
    int trips = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int payload = args.length > 1 ? Integer.parseInt(args[1]) : 256;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    InetAddress lo = InetAddress.getLoopbackAddress();
    try (ServerSocket echo = new ServerSocket(0, 50, lo)) {
      Thread server = new Thread(() -> serve(echo), "echo");
      server.setDaemon(true);
      server.start();
      FramingGuard.Plan plan =
          new FramingGuard.Plan(
              lo.getHostAddress(),
              0,
              List.of("AKKA".getBytes(StandardCharsets.US_ASCII)),
              4 << 20,
              4 << 20,
              10_000,
              16);
      try (FramingGuard guard =
          FramingGuard.open(plan, (InetSocketAddress) echo.getLocalSocketAddress())) {
        Thread guardThread =
            Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("parreg-cluster-port-guard"))
                .findFirst()
                .orElseThrow();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        InetSocketAddress direct = (InetSocketAddress) echo.getLocalSocketAddress();
        System.out.printf(
            Locale.ROOT,
            "%d round trips of %d-byte frames per measurement, after a warm-up of a tenth as many%n",
            trips,
            payload);
        System.out.println(
            "round  direct us/trip  guarded us/trip  added us/pass  guard CPU us/pass");
        for (int r = 1; r <= rounds; r++) {
          double d = roundTrips(direct, trips, payload);
          long c0 = cpu.getThreadCpuTime(guardThread.getId());
          double g = roundTrips(guard.address(), trips, payload);
          long c1 = cpu.getThreadCpuTime(guardThread.getId());
          // each guarded round trip is two passes, and the warm-up (a tenth) passed too
          double cpuPerPass = (c1 - c0) / 1e3 / (2.0 * trips * 1.1);
          System.out.printf(
              Locale.ROOT,
              "%5d  %14.1f  %15.1f  %13.1f  %17.2f%n",
              r,
              d,
              g,
              (g - d) / 2,
              cpuPerPass);
        }
      }
    }
  }

  /** Microseconds per round trip after a warm-up of a tenth as many. */
  private static double roundTrips(InetSocketAddress to, int trips, int payload)
      throws IOException {
    try (Socket s = new Socket()) {
      s.setTcpNoDelay(true);
      s.connect(to, 2000);
      OutputStream out = s.getOutputStream();
      DataInputStream in = new DataInputStream(s.getInputStream());
      out.write(new byte[] {'A', 'K', 'K', 'A', 2});
      byte[] frame = new byte[4 + payload];
      frame[0] = (byte) payload;
      frame[1] = (byte) (payload >> 8);
      frame[2] = (byte) (payload >> 16);
      byte[] back = new byte[frame.length];
      for (int i = 0; i < trips / 10; i++) {
        out.write(frame);
        in.readFully(back);
      }
      long t0 = System.nanoTime();
      for (int i = 0; i < trips; i++) {
        out.write(frame);
        in.readFully(back);
      }
      return (System.nanoTime() - t0) / 1e3 / trips;
    }
  }

  /** Echoes every frame of every connection (after its 5-byte header) back to its sender. */
  private static void serve(ServerSocket echo) {
    while (true) {
      Socket s;
      try {
        s = echo.accept();
        s.setTcpNoDelay(true);
      } catch (IOException closed) {
        return;
      }
      Thread t =
          new Thread(
              () -> {
                try (s) {
                  InputStream raw = s.getInputStream();
                  DataInputStream in = new DataInputStream(raw);
                  OutputStream out = s.getOutputStream();
                  in.readFully(new byte[5]);
                  byte[] len = new byte[4];
                  while (true) {
                    in.readFully(len);
                    int n =
                        (len[0] & 0xFF)
                            | (len[1] & 0xFF) << 8
                            | (len[2] & 0xFF) << 16
                            | (len[3] & 0xFF) << 24;
                    byte[] frame = new byte[4 + n];
                    System.arraycopy(len, 0, frame, 0, 4);
                    in.readFully(frame, 4, n);
                    out.write(frame);
                  }
                } catch (IOException done) {
                  // the client closed
                }
              },
              "echo-connection");
      t.setDaemon(true);
      t.start();
    }
  }
}
