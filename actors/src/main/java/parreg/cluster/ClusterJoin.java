package parreg.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.apache.pekko.actor.typed.ActorSystem;
import parreg.metrics.StartupTrace;

/**
 * How a node joins the cluster: its actor system starts without the seed nodes (and without the
 * journal plugins), and joins once the journal is prepared, with a seed-node timeout that depends
 * on whether it is the first seed and whether its journal holds a run.
 */
public final class ClusterJoin {
  /** The actor system's name, the same on every node of a cluster. */
  public static final String SYSTEM_NAME = "parreg";

  private ClusterJoin() {}

  /**
   * Whether this node is the first of the seed nodes: the only one Pekko lets form a cluster alone
   * (its FirstSeedNodeProcess), and so the only one that needs the long rejoin timeout. For the
   * others seed-node-timeout is only how long they wait, silent, before asking the seeds again
   * (JoinSeedNodeProcess): a long one there made a node restarted with all the others ask once,
   * before the first seed listened, and then wait the whole minute (the chaos soak took 480 s
   * instead of 146 s).
   */
  static boolean isFirstSeed(Config cfg) {
    List<String> seeds = cfg.getStringList("pekko.cluster.seed-nodes");
    String self =
        "pekko://"
            + SYSTEM_NAME
            + "@"
            + cfg.getString("pekko.remote.artery.canonical.hostname")
            + ":"
            + cfg.getInt("pekko.remote.artery.canonical.port");
    return !seeds.isEmpty() && seeds.get(0).equals(self);
  }

  /**
   * The seed-node timeout of this start. Only the first seed may form a cluster alone: it waits the
   * configured timeout for the others on a fresh start, and the long rejoin timeout when its
   * journal holds a run (it is probably rejoining a cluster that still runs, and must not form an
   * island). For every other node the timeout is only how long it waits, unanswered, before asking
   * the seeds again ({@link #isFirstSeed}): a fresh cluster's second node asks once before the
   * first seed has formed the cluster and is refused, so this is a wait on every start.
   */
  public static Config withJoinTimeouts(Config cfg, boolean restart) {
    String timeout;
    if (!isFirstSeed(cfg)) {
      timeout = cfg.getDuration("parreg.cluster.join-retry-interval").toMillis() + "ms";
    } else if (restart) {
      timeout = cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout").toMillis() + "ms";
    } else {
      return cfg;
    }
    return ConfigFactory.parseString("pekko.cluster.seed-node-timeout = " + timeout)
        .withFallback(cfg);
  }

  /**
   * The actor system's configuration: {@code cfg} without the seed nodes and without the
   * Persistence extension, so that the system can start while the journal is still being created
   * (the journal plugins connect as soon as the extension loads) and joins the cluster only once
   * every input is checked ({@link #go}).
   */
  public static Config systemConfig(Config cfg) {
    List<String> extensions =
        cfg.getStringList("pekko.extensions").stream().filter(e -> !e.equals(PERSISTENCE)).toList();
    return ConfigFactory.parseMap(
            java.util.Map.of("pekko.cluster.seed-nodes", List.of(), "pekko.extensions", extensions))
        .withFallback(cfg);
  }

  /**
   * The journal is prepared and the device open: start the journal plugins, spawn the actors
   * ({@code spawnActors}) and join the cluster through the seed nodes of {@code cfg}.
   */
  public static void go(ActorSystem<?> system, Config cfg, Runnable spawnActors) {
    org.apache.pekko.actor.ActorSystem classic =
        org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system);
    org.apache.pekko.persistence.Persistence.get(classic); // auto-starts journal and snapshot store
    spawnActors.run();
    org.apache.pekko.cluster.Cluster cluster = org.apache.pekko.cluster.Cluster.get(classic);
    if (StartupTrace.on()) {
      cluster.registerOnMemberUp(() -> StartupTrace.mark("cluster: this node Up"));
    }
    List<org.apache.pekko.actor.Address> seeds =
        cfg.getStringList("pekko.cluster.seed-nodes").stream()
            .map(org.apache.pekko.actor.AddressFromURIString::parse)
            .toList();
    cluster.joinSeedNodes(seeds);
    StartupTrace.mark("cluster join started");
  }

  private static final String PERSISTENCE = "org.apache.pekko.persistence.Persistence";
}
