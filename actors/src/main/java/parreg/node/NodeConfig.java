package parreg.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import parreg.cluster.ArteryTls;
import parreg.cluster.ClusterJoin;
import parreg.cluster.Membership;
import parreg.cluster.ParticipantClaims;
import parreg.device.PartitionSource;
import parreg.device.RunContract;
import parreg.settings.BadInput;
import parreg.settings.Deployment;
import parreg.settings.Hocon;
import parreg.settings.NodeSettings;

/**
 * A node's configuration from its deployment inputs. Precedence: command-line flags (port, seeds,
 * the journal's database; an option set through {@code PARREG_<OPTION>} counts as a flag) > {@code
 * -D} system properties ({@code bin/parreg -Dkey=value node ...}) > {@code --config FILE} > the
 * defaults of {@code cluster-config/} (application.conf and every jar's reference.conf).
 *
 * <p>{@link #parse} checks every flag and reads the {@code --config} file without loading the
 * defaults of every jar (the slow part), so that bad input is refused before the journal is
 * touched; {@link #complete} then loads them, concurrently with the journal's preparation.
 */
public final class NodeConfig {
  /** A host name or an IPv4 address (what Artery's canonical hostname and a seed address hold). */
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.\\-]*[A-Za-z0-9])?");

  private final Deployment deployment;
  private final Config flags;
  private final Config user;
  private final String host;
  private final String bindHost;
  private final String adminHost;
  private final int adminPort;
  private final boolean tls;

  private NodeConfig(
      Deployment deployment,
      Config flags,
      Config user,
      String host,
      String bindHost,
      String adminHost,
      int adminPort,
      boolean tls) {
    this.deployment = deployment;
    this.flags = flags;
    this.user = user;
    this.host = host;
    this.bindHost = bindHost;
    this.adminHost = adminHost;
    this.adminPort = adminPort;
    this.tls = tls;
  }

  static NodeConfig parse(Deployment d) {
    if (d.port() < 1 || d.port() > 65535) {
      throw new BadInput("--port " + d.port() + " is not a TCP port");
    }
    List<String> seeds = new ArrayList<>();
    for (String s : d.seedNodes()) {
      String t = s.strip();
      int colon = t.lastIndexOf(':');
      if (colon < 0
          || !HOST.matcher(t.substring(0, colon)).matches()
          || !t.substring(colon + 1).matches("\\d{1,5}")) {
        throw new BadInput("--seed-nodes: '" + t + "' is not HOST:PORT");
      }
      int p = Integer.parseInt(t.substring(colon + 1));
      if (p < 1 || p > 65535) {
        throw new BadInput(
            "--seed-nodes: '" + t + "' is not HOST:PORT (" + p + " is not a TCP port)");
      }
      seeds.add(Hocon.quote("pekko://" + ClusterJoin.SYSTEM_NAME + "@" + t));
    }
    StringBuilder overlay =
        new StringBuilder()
            .append("pekko.remote.artery.canonical.port = ")
            .append(d.port())
            .append('\n')
            .append("pekko.cluster.seed-nodes = [")
            .append(String.join(",", seeds))
            .append("]\n")
            // the participant id in the membership: a second live node with it is refused
            // (ParticipantClaims)
            .append("pekko.cluster.roles = [")
            .append(Hocon.quote(ParticipantClaims.role(d.participant())))
            .append("]\n");
    if (d.host() != null) {
      checkHost("--host", d.host());
      overlay
          .append("pekko.remote.artery.canonical.hostname = ")
          .append(Hocon.quote(d.host()))
          .append('\n');
    }
    if (d.bindHost() != null) {
      checkHost("--bind-host", d.bindHost());
      // bind.port stays "" (= the canonical port): one port number, whatever address it listens on
      overlay
          .append("pekko.remote.artery.bind.hostname = ")
          .append(Hocon.quote(d.bindHost()))
          .append('\n');
    }
    if (d.adminHost() != null) {
      checkHost("--admin-host", d.adminHost());
    }
    boolean tls = ArteryTls.configure(d, overlay);
    Config flags = ConfigFactory.parseString(overlay.toString());
    Config user = ConfigFactory.empty();
    if (d.configFile() != null) {
      if (!Files.isRegularFile(d.configFile())) {
        throw new BadInput("--config " + d.configFile() + ": no such file");
      }
      if (!Files.isReadable(d.configFile())) {
        throw new BadInput("--config " + d.configFile() + ": not readable");
      }
      try {
        user = ConfigFactory.parseFile(d.configFile().toFile());
      } catch (ConfigException e) {
        throw new BadInput("--config " + d.configFile() + ": " + e.getMessage());
      }
    }
    // parreg.admin.* from -D, --config, parreg.conf: the HTTP endpoint's address is known (and
    // checked) before anything is written.
    Config admin;
    try {
      admin =
          ConfigFactory.systemProperties()
              .withFallback(user)
              .withFallback(ConfigFactory.parseResources("parreg.conf"))
              .resolve()
              .getConfig("parreg.admin");
    } catch (ConfigException e) {
      throw new BadInput(
          (d.configFile() != null ? "--config " + d.configFile() : "configuration")
              + ": "
              + e.getMessage());
    }
    int adminPort = d.adminPort() != null ? d.adminPort() : d.port() + admin.getInt("port-offset");
    if (adminPort < 1 || adminPort > 65535) {
      throw new BadInput("admin port " + adminPort + " is not a TCP port; give --admin-port");
    }
    if (adminPort == d.port()) {
      throw new BadInput(
          (d.adminPort() != null ? "--admin-port " : "admin port ")
              + adminPort
              + " is the cluster port; give another"
              + (d.adminPort() != null ? "" : " with --admin-port"));
    }
    // The addresses as the node will use them: flags, else -D, else --config, else cluster.conf.
    Config addresses =
        flags
            .withFallback(ConfigFactory.systemProperties())
            .withFallback(user)
            .withFallback(ConfigFactory.parseResources("cluster.conf"))
            .resolve();
    String host = addresses.getString("pekko.remote.artery.canonical.hostname");
    String bind =
        addresses.hasPath("pekko.remote.artery.bind.hostname")
                && !addresses.getString("pekko.remote.artery.bind.hostname").isEmpty()
            ? addresses.getString("pekko.remote.artery.bind.hostname")
            : host;
    String adminHost = d.adminHost() != null ? d.adminHost() : admin.getString("host");
    // TLS configured by hand in a --config file counts as TLS too
    boolean secure =
        tls
            || (addresses.hasPath("pekko.remote.artery.transport")
                && addresses.getString("pekko.remote.artery.transport").equals("tls-tcp"));
    if (!secure
        && !d.insecure()
        && !isLoopback(d.bindHost() != null ? "--bind-host" : "--host", bind)) {
      throw new BadInput(
          "the cluster port would listen on "
              + bind
              + ", which is not a loopback address, "
              + "in plain TCP: give --tls-keystore and --tls-truststore (bin/parreg keys makes them), or --insecure");
    }
    return new NodeConfig(d, flags, user, host, bind, adminHost, adminPort, secure);
  }

  /** Whether cluster traffic is TLS. */
  boolean tls() {
    return tls;
  }

  private static void checkHost(String flag, String value) {
    if (!HOST.matcher(value).matches()) {
      throw new BadInput(flag + " '" + value + "' is not a host name or IPv4 address");
    }
  }

  private static boolean isLoopback(String flag, String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new BadInput(flag + " '" + host + "': unknown host");
    }
  }

  /** The address peers reach this node by. */
  String host() {
    return host;
  }

  /** The address its cluster port listens on. */
  String bindHost() {
    return bindHost;
  }

  /**
   * The whole configuration: flags > the journal's database > -D system properties > --config >
   * defaults. The settings {@link ParregNode#run} reads itself are read here once, so that a bad
   * value is refused as bad input, not reported as a trace later.
   */
  Config complete(Config journalDatabase) {
    try {
      Config cfg =
          flags
              .withFallback(journalDatabase)
              .withFallback(ConfigFactory.systemProperties())
              .withFallback(user)
              .withFallback(ConfigFactory.load())
              .resolve();
      cfg.getString("parreg.admin.host");
      clusterHost(cfg);
      cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout");
      cfg.getDuration("parreg.cluster.join-retry-interval");
      cfg.getDuration("parreg.peer.refusal-grace");
      String onRemoval = cfg.getString(Membership.ON_REMOVAL);
      if (!onRemoval.equals("rejoin") && !onRemoval.equals("exit")) {
        throw new ConfigException.BadValue(
            cfg.getValue(Membership.ON_REMOVAL).origin(),
            Membership.ON_REMOVAL,
            "'" + onRemoval + "' is neither rejoin nor exit");
      }
      return cfg;
    } catch (ConfigException e) {
      throw configError(e);
    }
  }

  /**
   * The node's settings from the complete configuration ({@link #complete}); a bad value is bad
   * input.
   */
  NodeSettings settings(
      Config cfg,
      RunContract contract,
      PartitionSource partition,
      String journalDescription,
      java.nio.file.Path stepLogDirectory,
      parreg.persistence.H2Durability durability) {
    Deployment d = deployment;
    try {
      return NodeSettings.of(
          cfg,
          d.participant(),
          contract,
          partition,
          d.steps(),
          d.backend(),
          d.device(),
          d.evidence(),
          d.exitWhenDone(),
          d.stepInterval(),
          d.syncCommit(),
          journalDescription,
          stepLogDirectory,
          durability);
    } catch (ConfigException e) {
      throw configError(e);
    }
  }

  private BadInput configError(ConfigException e) {
    return new BadInput(
        (deployment.configFile() != null
                ? "--config " + deployment.configFile() + ": "
                : "configuration: ")
            + e.getMessage());
  }

  /**
   * The address the cluster transport binds to: Artery's bind hostname, else its canonical
   * hostname.
   */
  static String clusterHost(Config cfg) {
    String bind = cfg.getString("pekko.remote.artery.bind.hostname");
    return bind.isEmpty() ? cfg.getString("pekko.remote.artery.canonical.hostname") : bind;
  }

  String adminHost() {
    return adminHost;
  }

  int adminPort() {
    return adminPort;
  }
}
