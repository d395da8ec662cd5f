package parreg.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import parreg.metrics.NodeMetrics;

/**
 * The node's HTTP endpoint. Routes (GET):
 *
 * <ul>
 *   <li>{@code /status}: asks the admin actor, answers its {@link AdminActor.Status} as JSON;
 *   <li>{@code /ready}: 200 once the node is Up, its journal open and its backend ready, 503 before
 *       that and while it shuts down ({@link NodeHealth#ready});
 *   <li>{@code /alive}: 200 while the actor system runs;
 *   <li>{@code /cluster/members}: the members as this node sees them (JSON);
 *   <li>{@code /cluster/status}: every participant's status, gathered by this node ({@link
 *       ClusterStatus});
 *   <li>{@code /metrics}: the node's metrics in the Prometheus text format ({@link NodeMetrics}).
 * </ul>
 *
 * <p>Why HTTP: a command-line client that is not a cluster member would need an ActorSystem of its
 * own to ask the admin actor over Artery, about 2 s to start here; a plain HTTP request to the node
 * answers in milliseconds. The endpoint binds to loopback unless told otherwise.
 *
 * <p>Why the JDK's server and not Pekko Management (which has the same health paths): started on
 * this 2-core machine, Pekko Management 1.1.1 took 0.54–0.80 s from a running actor system to a
 * bound endpoint (pekko-http's classes and materializer) and brings 15 MB of jars; the JDK server
 * binds in 10–20 ms. A restarted node's start-up is what a crash costs (docs/ARCHITECTURE.md).
 *
 * <p>The JDK server reads a new connection's request on an executor thread, so a client that sends
 * half a request holds a thread. Hence a pool much larger than the handful of concurrent requests
 * an admin endpoint serves ({@link #THREADS}), and requests that take longer than {@link
 * #MAX_REQUEST_SECONDS} to arrive are cut ({@code sun.net.httpserver.maxReqTime}): idle or
 * half-sent connections cannot keep {@code /status} and {@code /ready} from answering.
 */
public final class AdminHttpServer implements AutoCloseable {
  public static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  static final int THREADS = 64;
  static final int MAX_REQUEST_SECONDS = 10;
  static final int MAX_RESPONSE_SECONDS = 30;

  static {
    // read once, when the JDK's server classes load; an operator's -D setting wins
    setIfAbsent("sun.net.httpserver.maxReqTime", Integer.toString(MAX_REQUEST_SECONDS));
    setIfAbsent("sun.net.httpserver.maxRspTime", Integer.toString(MAX_RESPONSE_SECONDS));
  }

  private final HttpServer server;
  private final ThreadPoolExecutor executor;

  public AdminHttpServer(
      ActorSystem<?> system,
      ActorRef<AdminActor.Command> admin,
      NodeHealth health,
      String host,
      int port)
      throws IOException {
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 64);
    } catch (IOException e) {
      throw new IOException(
          "cannot listen on http://" + host + ":" + port + ": " + e.getMessage(), e);
    }
    AtomicInteger n = new AtomicInteger();
    executor =
        new ThreadPoolExecutor(
            THREADS,
            THREADS,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "parreg-admin-http-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    executor.allowCoreThreadTimeOut(true); // threads exist only while connections need them
    server.setExecutor(executor);
    route(
        "/status",
        ex -> {
          try {
            AdminActor.Status s =
                AskPattern.<AdminActor.Command, AdminActor.Status>ask(
                        admin, AdminActor.GetStatus::new, Duration.ofSeconds(5), system.scheduler())
                    .toCompletableFuture()
                    .get();
            reply(ex, 200, s);
          } catch (Exception e) {
            reply(ex, 503, Map.of("error", e.getClass().getSimpleName()));
          }
        });
    route("/ready", ex -> check(ex, health.ready()));
    route("/alive", ex -> check(ex, health.alive()));
    route("/cluster/members", ex -> reply(ex, 200, health.members()));
    route(
        "/cluster/status",
        ex -> {
          try {
            reply(ex, 200, ClusterStatus.gather(system, Duration.ofSeconds(3)));
          } catch (Exception e) {
            reply(ex, 503, Map.of("error", e.getClass().getSimpleName()));
          }
        });
    NodeMetrics metrics = NodeMetrics.get(system);
    route(
        "/metrics",
        ex -> {
          ex.getResponseHeaders().add("Content-Type", metrics.contentType());
          if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(200, -1);
            return;
          }
          ex.sendResponseHeaders(200, 0); // chunked: the body is written as the registry is scraped
          try (OutputStream out = ex.getResponseBody()) {
            metrics.scrape(out);
          }
        });
    server.start();
  }

  /** The address the endpoint listens on. */
  public String host() {
    return server.getAddress().getAddress().getHostAddress();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * GET or HEAD of exactly {@code path} (the JDK matches contexts by prefix); 404/405 otherwise.
   */
  private void route(String path, HttpHandler handler) {
    server.createContext(
        path,
        ex -> {
          try (ex) {
            if (!ex.getRequestURI().getPath().equals(path)) {
              reply(ex, 404, Map.of("error", "no route " + ex.getRequestURI().getPath()));
            } else if (!ex.getRequestMethod().equals("GET")
                && !ex.getRequestMethod().equals("HEAD")) {
              ex.getResponseHeaders().add("Allow", "GET, HEAD");
              reply(ex, 405, Map.of("error", "method " + ex.getRequestMethod() + " not allowed"));
            } else {
              handler.handle(ex);
            }
          }
        });
  }

  private static void check(HttpExchange ex, NodeHealth.Check c) throws IOException {
    reply(
        ex,
        c.ok() ? 200 : 503,
        c.ok() ? Map.of("ok", true) : Map.of("ok", false, "reason", c.reason()));
  }

  private static void reply(HttpExchange ex, int code, Object value) throws IOException {
    byte[] body = JSON.writeValueAsBytes(value);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(code, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
