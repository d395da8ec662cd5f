package parreg.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import parreg.net.NioServer;

/**
 * The front of a plain-TCP node's cluster port. Artery listens on an internal loopback port ({@code
 * pekko.remote.artery.bind.*}, while peers keep addressing the canonical one); this server listens
 * on the cluster port and passes on, in both directions, only bytes that are Artery's TCP framing
 * ({@link FrameCheck}): a connection whose header or a frame length is invalid is closed before a
 * byte of it reaches Pekko, whose framing stage loops for ever on a negative length (STACK.md,
 * "Traps"). One thread serves every connection ({@link NioServer}); the upstream connection is
 * opened once the header is accepted.
 *
 * <p>What it does not do: authenticate. Any process that can reach a plain-TCP port can send
 * well-framed messages, and Artery's internal port is reachable from this machine; TLS ({@link
 * ArteryTls}) is the transport that admits only the cluster's own nodes. The guard is not used
 * under TLS, which keeps unauthenticated bytes from the framing stage by itself.
 */
public final class FramingGuard extends NioServer {
  private static final Logger LOG = LoggerFactory.getLogger(FramingGuard.class);
  private static final String KEY = "parreg.cluster.framing-guard.";
  private static final int BUFFER_BYTES = 64 * 1024;

  /**
   * Where the guard listens and what it accepts, read from the node's configuration ({@link
   * #plan}).
   */
  public record Plan(
      String host,
      int port,
      List<byte[]> magics,
      int maxFrame,
      int maxLargeFrame,
      long firstFrameMillis,
      int maxConnections) {

    /**
     * The actor system's configuration: Artery bound to a free port on the loopback address, its
     * canonical address (what peers use) unchanged.
     */
    public Config systemConfig(Config cfg) {
      return ConfigFactory.parseMap(
              Map.of(
                  "pekko.remote.artery.bind.hostname",
                  InetAddress.getLoopbackAddress().getHostAddress(),
                  "pekko.remote.artery.bind.port",
                  "0"))
          .withFallback(cfg);
    }
  }

  /**
   * The guard's plan for this configuration, or empty where it does not apply: TLS (which needs no
   * guard), {@code parreg.cluster.framing-guard.enabled = off}, a canonical port of 0 (chosen at
   * bind time, so the canonical and the bound port are one), or a bind port set apart from the
   * canonical one by hand.
   */
  public static Optional<Plan> plan(Config cfg) {
    if (!cfg.hasPath(KEY + "enabled")
        || !cfg.getBoolean(KEY + "enabled")
        || !cfg.getString("pekko.remote.artery.transport").equals("tcp")) {
      return Optional.empty();
    }
    int port = cfg.getInt("pekko.remote.artery.canonical.port");
    String bindPort = cfg.getString("pekko.remote.artery.bind.port");
    if (port == 0 || !(bindPort.isEmpty() || bindPort.equals(Integer.toString(port)))) {
      return Optional.empty();
    }
    String bindHost = cfg.getString("pekko.remote.artery.bind.hostname");
    String host =
        bindHost.isEmpty() ? cfg.getString("pekko.remote.artery.canonical.hostname") : bindHost;
    // as Artery reads them: the first 4 UTF-8 bytes of each
    List<byte[]> magics =
        cfg.getStringList("pekko.remote.artery.advanced.tcp-magic").stream()
            .map(m -> Arrays.copyOf(m.getBytes(StandardCharsets.UTF_8), 4))
            .toList();
    return Optional.of(
        new Plan(
            host,
            port,
            magics,
            (int)
                Math.min(
                    Integer.MAX_VALUE,
                    cfg.getBytes("pekko.remote.artery.advanced.maximum-frame-size")),
            (int)
                Math.min(
                    Integer.MAX_VALUE,
                    cfg.getBytes("pekko.remote.artery.advanced.maximum-large-frame-size")),
            cfg.getDuration(KEY + "first-frame-timeout").toMillis(),
            cfg.getInt(KEY + "max-connections")));
  }

  /**
   * Starts the guard of {@code system}, whose Artery was configured with {@link Plan#systemConfig};
   * it stops when the system terminates.
   *
   * @throws IOException when the cluster port cannot be bound (a {@link java.net.BindException}
   *     when in use)
   */
  public static FramingGuard start(ActorSystem<?> system, Plan plan) throws IOException {
    FramingGuard guard =
        new FramingGuard(
            plan,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), ArteryPort.bound(system)));
    system.getWhenTerminated().thenRun(guard::close);
    return guard;
  }

  /**
   * A guard on {@code plan}'s address in front of any Artery-framed listener at {@code artery}
   * (benchmarks and tests; a node's guard comes from {@link #start}).
   */
  public static FramingGuard open(Plan plan, InetSocketAddress artery) throws IOException {
    return new FramingGuard(plan, artery);
  }

  private final Plan plan;
  private final InetSocketAddress artery;
  private final RefusalLog refusals = new RefusalLog();

  FramingGuard(Plan plan, InetSocketAddress artery) throws IOException {
    super(
        "parreg-cluster-port-guard",
        new InetSocketAddress(plan.host(), plan.port()),
        plan.maxConnections());
    this.plan = plan;
    this.artery = artery;
    start();
  }

  /** Artery's own listening address, where accepted connections are passed on. */
  InetSocketAddress artery() {
    return artery;
  }

  @Override
  protected Connection accepted(SocketChannel client) throws IOException {
    client.setOption(StandardSocketOptions.TCP_NODELAY, true);
    return new GuardedLink(
        this,
        client,
        new FrameCheck(plan.magics(), plan.maxFrame(), plan.maxLargeFrame()),
        BUFFER_BYTES,
        plan.firstFrameMillis());
  }

  void refused(String from, String why) {
    refusals.refused(plan.host() + ":" + plan.port(), from, why);
  }

  /**
   * One line per refused connection, at most one a second (the rest counted into the next line): a
   * flood of bad connections must not become a flood of log lines.
   */
  private static final class RefusalLog {
    private long lastNanos = System.nanoTime() - 2_000_000_000L;
    private long suppressed;

    void refused(String port, String from, String why) {
      long now = System.nanoTime();
      if (now - lastNanos < 1_000_000_000L) {
        suppressed++;
        return;
      }
      lastNanos = now;
      LOG.warn(
          "cluster port {}: closed a connection from {}: {}{}",
          port,
          from,
          why,
          suppressed == 0 ? "" : " (" + suppressed + " more refused since the last line)");
      suppressed = 0;
    }
  }

  /** Reads Artery's bound port from Pekko (internal API: the only place it is known). */
  static final class ArteryPort {
    private ArteryPort() {}

    static int bound(ActorSystem<?> system) throws IOException {
      try {
        var provider =
            (org.apache.pekko.remote.RemoteActorRefProvider)
                ((org.apache.pekko.actor.ExtendedActorSystem)
                        org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system))
                    .provider();
        var transport = (org.apache.pekko.remote.artery.ArteryTransport) provider.transport();
        return transport.bindAddress().address().getPort().orElseThrow();
      } catch (ClassCastException | java.util.NoSuchElementException e) {
        throw new IOException("cannot find the port Artery is bound to (" + e + ")", e);
      }
    }
  }
}
