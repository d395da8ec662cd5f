package parreg.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import parreg.device.PartitionSource;
import parreg.device.RunContract;

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
final class NodeConfig {
  /** A host name or an IPv4 address (what Artery's canonical hostname and a seed address hold). */
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.\\-]*[A-Za-z0-9])?");

  private final ParregNode.Deployment deployment;
  private final Config flags;
  private final Config user;
  private final String host;
  private final String bindHost;
  private final String adminHost;
  private final int adminPort;
  private final boolean tls;

  private NodeConfig(
      ParregNode.Deployment deployment,
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

  static NodeConfig parse(ParregNode.Deployment d) {
    if (d.port() < 1 || d.port() > 65535) {
      throw new ParregNode.BadInput("--port " + d.port() + " is not a TCP port");
    }
    List<String> seeds = new ArrayList<>();
    for (String s : d.seedNodes()) {
      String t = s.strip();
      int colon = t.lastIndexOf(':');
      if (colon < 0
          || !HOST.matcher(t.substring(0, colon)).matches()
          || !t.substring(colon + 1).matches("\\d{1,5}")) {
        throw new ParregNode.BadInput("--seed-nodes: '" + t + "' is not HOST:PORT");
      }
      int p = Integer.parseInt(t.substring(colon + 1));
      if (p < 1 || p > 65535) {
        throw new ParregNode.BadInput(
            "--seed-nodes: '" + t + "' is not HOST:PORT (" + p + " is not a TCP port)");
      }
      seeds.add(quote("pekko://" + ParregNode.SYSTEM_NAME + "@" + t));
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
            .append(quote(ParticipantClaims.role(d.participant())))
            .append("]\n");
    if (d.host() != null) {
      checkHost("--host", d.host());
      overlay
          .append("pekko.remote.artery.canonical.hostname = ")
          .append(quote(d.host()))
          .append('\n');
    }
    if (d.bindHost() != null) {
      checkHost("--bind-host", d.bindHost());
      // bind.port stays "" (= the canonical port): one port number, whatever address it listens on
      overlay
          .append("pekko.remote.artery.bind.hostname = ")
          .append(quote(d.bindHost()))
          .append('\n');
    }
    if (d.adminHost() != null) {
      checkHost("--admin-host", d.adminHost());
    }
    boolean tls = tls(d, overlay);
    Config flags = ConfigFactory.parseString(overlay.toString());
    Config user = ConfigFactory.empty();
    if (d.configFile() != null) {
      if (!Files.isRegularFile(d.configFile())) {
        throw new ParregNode.BadInput("--config " + d.configFile() + ": no such file");
      }
      if (!Files.isReadable(d.configFile())) {
        throw new ParregNode.BadInput("--config " + d.configFile() + ": not readable");
      }
      try {
        user = ConfigFactory.parseFile(d.configFile().toFile());
      } catch (ConfigException e) {
        throw new ParregNode.BadInput("--config " + d.configFile() + ": " + e.getMessage());
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
      throw new ParregNode.BadInput(
          (d.configFile() != null ? "--config " + d.configFile() : "configuration")
              + ": "
              + e.getMessage());
    }
    int adminPort = d.adminPort() != null ? d.adminPort() : d.port() + admin.getInt("port-offset");
    if (adminPort < 1 || adminPort > 65535) {
      throw new ParregNode.BadInput(
          "admin port " + adminPort + " is not a TCP port; give --admin-port");
    }
    if (adminPort == d.port()) {
      throw new ParregNode.BadInput(
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
      throw new ParregNode.BadInput(
          "the cluster port would listen on "
              + bind
              + ", which is not a loopback address, "
              + "in plain TCP: give --tls-keystore and --tls-truststore (bin/parreg keys makes them), or --insecure");
    }
    return new NodeConfig(d, flags, user, host, bind, adminHost, adminPort, secure);
  }

  /**
   * Artery over TLS with mutual authentication when a keystore and truststore are given: a peer is
   * admitted only with a certificate the cluster CA signed, and bytes from anyone else never reach
   * Artery's framing stage. Host names are not verified (the CA is the trust). The stores are
   * opened here, so a wrong password or file is refused before anything is written. The password
   * never appears on a command line: a file, or {@code PARREG_TLS_PASSWORD}.
   */
  private static boolean tls(ParregNode.Deployment d, StringBuilder overlay) {
    if (d.tlsKeystore() == null && d.tlsTruststore() == null) {
      if (d.tlsPasswordFile() != null) {
        throw new ParregNode.BadInput(
            "--tls-password-file needs --tls-keystore and --tls-truststore");
      }
      return false;
    }
    if (d.tlsKeystore() == null || d.tlsTruststore() == null) {
      throw new ParregNode.BadInput("TLS needs both --tls-keystore and --tls-truststore");
    }
    char[] password = tlsPassword(d);
    checkStore("--tls-keystore", d.tlsKeystore(), password, true);
    checkStore("--tls-truststore", d.tlsTruststore(), password, false);
    String pw = quote(new String(password));
    String engine = "pekko.remote.artery.ssl.config-ssl-engine.";
    overlay
        .append("pekko.remote.artery.transport = tls-tcp\n")
        // Pekko's provider, with a trust manager that logs a refused node's certificate
        .append("pekko.remote.artery.ssl.ssl-engine-provider = ")
        .append(RefusalLoggingSslEngineProvider.class.getName())
        .append('\n')
        .append(engine)
        .append("key-store = ")
        .append(quote(d.tlsKeystore().toAbsolutePath().toString()))
        .append('\n')
        .append(engine)
        .append("trust-store = ")
        .append(quote(d.tlsTruststore().toAbsolutePath().toString()))
        .append('\n')
        .append(engine)
        .append("key-store-password = ")
        .append(pw)
        .append('\n')
        .append(engine)
        .append("key-password = ")
        .append(pw)
        .append('\n')
        .append(engine)
        .append("trust-store-password = ")
        .append(pw)
        .append('\n')
        .append(engine)
        .append("require-mutual-authentication = on\n")
        .append(engine)
        .append("hostname-verification = off\n");
    return true;
  }

  private static char[] tlsPassword(ParregNode.Deployment d) {
    String value;
    String where;
    if (d.tlsPasswordFile() != null) {
      where = "--tls-password-file " + d.tlsPasswordFile();
      try {
        value = Files.readAllLines(d.tlsPasswordFile()).stream().findFirst().orElse("").strip();
      } catch (java.io.IOException e) {
        throw new ParregNode.BadInput(where + ": cannot read it (" + e.getMessage() + ")");
      }
    } else {
      where = "PARREG_TLS_PASSWORD";
      value = System.getenv("PARREG_TLS_PASSWORD");
      if (value == null) {
        throw new ParregNode.BadInput(
            "TLS needs the stores' password: --tls-password-file FILE or the environment variable "
                + "PARREG_TLS_PASSWORD (never on the command line)");
      }
    }
    if (value.isEmpty()) {
      throw new ParregNode.BadInput(where + ": the password is empty");
    }
    return value.toCharArray();
  }

  private static void checkStore(
      String flag, java.nio.file.Path file, char[] password, boolean needsKey) {
    if (!Files.isRegularFile(file)) {
      throw new ParregNode.BadInput(flag + " " + file + ": no such file");
    }
    java.security.KeyStore ks;
    try (var in = Files.newInputStream(file)) {
      ks = java.security.KeyStore.getInstance("PKCS12");
      ks.load(in, password);
    } catch (java.io.IOException | java.security.GeneralSecurityException e) {
      throw new ParregNode.BadInput(
          flag + " " + file + ": not a PKCS12 store this password opens (" + e.getMessage() + ")");
    }
    try {
      boolean hasKey = false;
      boolean hasCert = false;
      for (var aliases = ks.aliases(); aliases.hasMoreElements(); ) {
        String a = aliases.nextElement();
        hasKey |= ks.isKeyEntry(a);
        hasCert |= ks.isCertificateEntry(a);
      }
      if (needsKey && !hasKey) {
        throw new ParregNode.BadInput(
            flag + " " + file + ": holds no private key (give the node's keystore, node-P.p12)");
      }
      if (!needsKey && !hasCert) {
        throw new ParregNode.BadInput(
            flag + " " + file + ": holds no trusted certificate (give truststore.p12)");
      }
    } catch (java.security.KeyStoreException e) {
      throw new ParregNode.BadInput(flag + " " + file + ": " + e.getMessage());
    }
  }

  /** Whether cluster traffic is TLS. */
  boolean tls() {
    return tls;
  }

  private static void checkHost(String flag, String value) {
    if (!HOST.matcher(value).matches()) {
      throw new ParregNode.BadInput(flag + " '" + value + "' is not a host name or IPv4 address");
    }
  }

  private static boolean isLoopback(String flag, String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new ParregNode.BadInput(flag + " '" + host + "': unknown host");
    }
  }

  private static String quote(String s) {
    return ConfigFactory.empty()
        .withValue("v", com.typesafe.config.ConfigValueFactory.fromAnyRef(s))
        .getValue("v")
        .render();
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
      Config cfg, RunContract contract, PartitionSource partition, String journalDescription) {
    ParregNode.Deployment d = deployment;
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
          journalDescription);
    } catch (ConfigException e) {
      throw configError(e);
    }
  }

  private ParregNode.BadInput configError(ConfigException e) {
    return new ParregNode.BadInput(
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
