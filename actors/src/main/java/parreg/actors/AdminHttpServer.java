package parreg.actors;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The node's status endpoint: {@code GET /status} asks the admin actor and answers its {@link
 * AdminActor.Status} as JSON.
 *
 * <p>Why HTTP: a command-line client that is not a cluster member would need an ActorSystem of
 * its own to ask the admin actor over Artery, about 2 s to start here; a plain HTTP request to
 * the node answers in milliseconds. The endpoint binds to loopback by default.
 */
public final class AdminHttpServer implements AutoCloseable {
  public static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final HttpServer server;

  public AdminHttpServer(ActorSystem<?> system, ActorRef<AdminActor.Command> admin, String host, int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.setExecutor(Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "parreg-admin-http");
      t.setDaemon(true);
      return t;
    }));
    server.createContext("/status", ex -> {
      try {
        AdminActor.Status s = AskPattern.<AdminActor.Command, AdminActor.Status>ask(
                admin, AdminActor.GetStatus::new, Duration.ofSeconds(5), system.scheduler())
            .toCompletableFuture()
            .get();
        reply(ex, 200, JSON.writeValueAsBytes(s));
      } catch (Exception e) {
        reply(ex, 503, ("{\"error\": \"" + e.getClass().getSimpleName() + "\"}").getBytes(StandardCharsets.UTF_8));
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

  private static void reply(HttpExchange ex, int code, byte[] body) throws IOException {
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(code, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
