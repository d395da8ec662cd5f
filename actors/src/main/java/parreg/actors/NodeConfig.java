package parreg.actors;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * A node's configuration from its deployment inputs. Precedence: command-line flags (port,
 * seeds, the journal's database) > {@code --config FILE} > the defaults of {@code cluster-config/}
 * (application.conf and every jar's reference.conf).
 *
 * <p>{@link #parse} checks every flag and reads the {@code --config} file without loading the
 * defaults of every jar (the slow part), so that bad input is refused before the journal is
 * touched; {@link #complete} then loads them, concurrently with the journal's preparation.
 */
final class NodeConfig {
  private final Config flags;
  private final Config user;
  private final String adminHost;
  private final int adminPort;

  private NodeConfig(Config flags, Config user, String adminHost, int adminPort) {
    this.flags = flags;
    this.user = user;
    this.adminHost = adminHost;
    this.adminPort = adminPort;
  }

  static NodeConfig parse(ParregNode.Deployment d) {
    if (d.port() < 1 || d.port() > 65535) {
      throw new ParregNode.BadInput("--port " + d.port() + " is not a TCP port");
    }
    List<String> seeds = new ArrayList<>();
    for (String s : d.seedNodes()) {
      String t = s.strip();
      if (!t.matches("[A-Za-z0-9.\\-]+:\\d{1,5}")) {
        throw new ParregNode.BadInput("--seed-nodes: '" + t + "' is not HOST:PORT");
      }
      seeds.add("\"pekko://" + ParregNode.SYSTEM_NAME + "@" + t + "\"");
    }
    Config flags = ConfigFactory.parseString(
        "pekko.remote.artery.canonical.port = " + d.port() + "\n"
            + "pekko.cluster.seed-nodes = [" + String.join(",", seeds) + "]\n");
    Config user = ConfigFactory.empty();
    if (d.configFile() != null) {
      if (!Files.isRegularFile(d.configFile())) {
        throw new ParregNode.BadInput("--config " + d.configFile() + ": no such file");
      }
      try {
        user = ConfigFactory.parseFile(d.configFile().toFile());
      } catch (ConfigException e) {
        throw new ParregNode.BadInput("--config " + d.configFile() + ": " + e.getMessage());
      }
    }
    // parreg.admin.* from --config over parreg.conf: the HTTP endpoint's address is known (and
    // checked) before anything is written.
    Config admin;
    try {
      admin = user.withFallback(ConfigFactory.parseResources("parreg.conf")).resolve().getConfig("parreg.admin");
    } catch (ConfigException e) {
      throw new ParregNode.BadInput("--config " + d.configFile() + ": " + e.getMessage());
    }
    int adminPort = d.adminPort() != null ? d.adminPort() : d.port() + admin.getInt("port-offset");
    if (adminPort < 1 || adminPort > 65535) {
      throw new ParregNode.BadInput("admin port " + adminPort + " is not a TCP port; give --admin-port");
    }
    return new NodeConfig(flags, user, admin.getString("host"), adminPort);
  }

  /** The whole configuration: flags > the journal's database > --config > defaults. */
  Config complete(Config journalDatabase) {
    return flags.withFallback(journalDatabase).withFallback(user).withFallback(ConfigFactory.load()).resolve();
  }

  String adminHost() {
    return adminHost;
  }

  int adminPort() {
    return adminPort;
  }
}
