package parreg.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import parreg.metrics.NodeMetrics;
import parreg.net.HttpEndpoint;
import parreg.net.HttpEndpoint.Exchange;

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
 * <p>Why parreg's own server ({@link HttpEndpoint}) and not Pekko Management (which has the same
 * health paths): started on this 2-core machine, Pekko Management 1.1.1 took 0.54–0.80 s from a
 * running actor system to a bound endpoint (pekko-http's classes and materializer) and brings 15 MB
 * of jars. Why not the JDK's server: it reads each connection's request on an executor thread, so
 * 70 half-sent requests hold its threads and delay {@code /alive} by seconds. {@link HttpEndpoint}
 * binds in milliseconds and reads requests without a thread: a request's head must arrive within
 * {@link #HEAD_MILLIS} ms of its first byte, an idle connection is closed after {@link
 * #IDLE_MILLIS} ms, at most {@link #MAX_CONNECTIONS} are open (the oldest waiting one makes room
 * for a new one), and only complete requests reach the {@link #THREADS} handler threads: half-sent
 * or idle connections cannot keep {@code /alive}, {@code /ready} or {@code /status} from answering.
 */
public final class AdminHttpServer implements AutoCloseable {
  public static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  static final int THREADS = 8;
  static final long HEAD_MILLIS = 5_000;
  static final long IDLE_MILLIS = 30_000;
  static final long ANSWER_MILLIS = 30_000;
  static final int MAX_CONNECTIONS = 256;

  private final HttpEndpoint server;
  private final ThreadPoolExecutor executor;
  private final Map<String, Route> routes = new HashMap<>();

  /** A route's handler (the path and method are checked before it runs). */
  @FunctionalInterface
  private interface Route {
    void handle(Exchange ex) throws IOException;
  }

  public AdminHttpServer(
      ActorSystem<?> system,
      ActorRef<AdminActor.Command> admin,
      NodeHealth health,
      String host,
      int port)
      throws IOException {
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
    executor.allowCoreThreadTimeOut(true); // threads exist only while requests need them
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
          ex.addResponseHeader("Content-Type", metrics.contentType());
          if (ex.getRequestMethod().equals("HEAD")) {
            ex.sendResponseHeaders(200, -1);
            return;
          }
          ex.sendResponseHeaders(200, 0); // the body's length is counted as it is written
          try (OutputStream out = ex.getResponseBody()) {
            metrics.scrape(out);
          }
        });
    try {
      server =
          new HttpEndpoint(
              "parreg-admin-http",
              new InetSocketAddress(host, port),
              new HttpEndpoint.Limits(HEAD_MILLIS, IDLE_MILLIS, ANSWER_MILLIS, MAX_CONNECTIONS),
              executor,
              this::dispatch);
    } catch (IOException e) {
      executor.shutdownNow();
      throw new IOException(
          "cannot listen on http://" + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** The address the endpoint listens on. */
  public String host() {
    return server.address().getAddress().getHostAddress();
  }

  public int port() {
    return server.address().getPort();
  }

  private void route(String path, Route handler) {
    routes.put(path, handler);
  }

  /** GET or HEAD of exactly a route's path; 404/405 otherwise. */
  private void dispatch(Exchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getPath();
      Route handler = routes.get(path);
      if (handler == null) {
        reply(ex, 404, Map.of("error", "no route " + path));
      } else if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
        ex.addResponseHeader("Allow", "GET, HEAD");
        reply(ex, 405, Map.of("error", "method " + ex.getRequestMethod() + " not allowed"));
      } else {
        handler.handle(ex);
      }
    }
  }

  private static void check(Exchange ex, NodeHealth.Check c) throws IOException {
    reply(
        ex,
        c.ok() ? 200 : 503,
        c.ok() ? Map.of("ok", true) : Map.of("ok", false, "reason", c.reason()));
  }

  private static void reply(Exchange ex, int code, Object value) throws IOException {
    byte[] body = JSON.writeValueAsBytes(value);
    ex.addResponseHeader("Content-Type", "application/json");
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(code, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.close();
    executor.shutdownNow();
  }
}
