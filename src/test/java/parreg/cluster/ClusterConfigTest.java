package parreg.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/** Settings of cluster-config/ whose loss would not show in a short test run. */
class ClusterConfigTest {
  private final Config cfg = ConfigFactory.load();

  /**
   * While a peer is down its survivors' outbound streams fail and restart about once a second; with
   * Pekko's default of 5 restarts in 5 s the survivor's whole actor system terminated when its peer
   * stayed down for ~6 s (found with scripts/bench/restart.sh, DELAY=6).
   */
  @Test
  void aPeerDownForLongNeverTerminatesTheSurvivor() {
    int max = cfg.getInt("pekko.remote.artery.advanced.outbound-max-restarts");
    long window =
        cfg.getDuration("pekko.remote.artery.advanced.outbound-restart-timeout").toMillis();
    long backoff =
        cfg.getDuration("pekko.remote.artery.advanced.outbound-restart-backoff").toMillis();
    assertTrue(
        max > 100L * window / Math.max(1, backoff),
        "outbound-max-restarts " + max + " within " + window + " ms");
  }

  /**
   * A node that finds itself Down is handled by SelfRemoval and the node's main thread (a new
   * incarnation, or exit 4): Pekko's coordinated shutdown on Down would end the actor system under
   * them, and the node would exit 1 instead.
   */
  @Test
  void aDownedNodeRejoinsByDefaultAndPekkoDoesNotShutItDown() {
    assertTrue(!cfg.getBoolean("pekko.cluster.run-coordinated-shutdown-when-down"));
    assertTrue(cfg.getString(Membership.ON_REMOVAL).equals("rejoin"));
  }

  /** The journal plugins start with the actor system (restart latency, BENCHMARKS.md). */
  @Test
  void persistenceStartsWithTheActorSystem() {
    assertTrue(
        cfg.getStringList("pekko.extensions").contains("org.apache.pekko.persistence.Persistence"));
  }

  /** Only the first seed may form a cluster alone, so only it waits the long rejoin timeout. */
  @Test
  void onlyTheFirstSeedIsTheFirstSeed() {
    Config seeds =
        ConfigFactory.parseString(
                "pekko.cluster.seed-nodes = [\"pekko://parreg@127.0.0.1:2551\", \"pekko://parreg@127.0.0.1:2552\"]")
            .withFallback(cfg);
    assertTrue(
        ClusterJoin.isFirstSeed(
            ConfigFactory.parseString("pekko.remote.artery.canonical.port = 2551")
                .withFallback(seeds)));
    org.junit.jupiter.api.Assertions.assertFalse(
        ClusterJoin.isFirstSeed(
            ConfigFactory.parseString("pekko.remote.artery.canonical.port = 2552")
                .withFallback(seeds)));
    org.junit.jupiter.api.Assertions.assertFalse(
        ClusterJoin.isFirstSeed(
            ConfigFactory.parseString(
                    "pekko.remote.artery.canonical.port = 2551\npekko.remote.artery.canonical.hostname = \"127.0.0.2\"")
                .withFallback(seeds)));
  }

  private static Config node(int port) {
    return ConfigFactory.parseString(
            "pekko.remote.artery.canonical.port = "
                + port
                + "\npekko.cluster.seed-nodes = [\"pekko://parreg@127.0.0.1:2551\", \"pekko://parreg@127.0.0.1:2552\"]")
        .withFallback(ConfigFactory.load());
  }

  private static long seedNodeTimeout(Config c) {
    return c.getDuration("pekko.cluster.seed-node-timeout").toMillis();
  }

  /**
   * A node that is not the first seed only retries its join at the seed-node timeout, so it gets
   * the short retry interval on every start; the first seed waits the configured timeout on a fresh
   * start and the long rejoin timeout on a restart (never an island: see isFirstSeed).
   */
  @Test
  void onlyTheFirstSeedWaitsLongBeforeFormingACluster() {
    long retry = cfg.getDuration("parreg.cluster.join-retry-interval").toMillis();
    long rejoin = cfg.getDuration("parreg.cluster.rejoin-seed-node-timeout").toMillis();
    long configured = seedNodeTimeout(cfg);
    assertTrue(retry < configured, "retry " + retry + " ms, seed-node-timeout " + configured);
    org.junit.jupiter.api.Assertions.assertEquals(
        retry, seedNodeTimeout(ClusterJoin.withJoinTimeouts(node(2552), false)));
    org.junit.jupiter.api.Assertions.assertEquals(
        retry, seedNodeTimeout(ClusterJoin.withJoinTimeouts(node(2552), true)));
    org.junit.jupiter.api.Assertions.assertEquals(
        configured, seedNodeTimeout(ClusterJoin.withJoinTimeouts(node(2551), false)));
    org.junit.jupiter.api.Assertions.assertEquals(
        rejoin, seedNodeTimeout(ClusterJoin.withJoinTimeouts(node(2551), true)));
  }

  /**
   * The actor system starts while the journal is created: it must neither join the cluster nor
   * connect to the journal before the node tells it to (ParregNode.go); the journals still start as
   * soon as the Persistence extension loads.
   */
  @Test
  void theActorSystemStartsWithoutJoiningOrTouchingTheJournal() {
    Config system = ClusterJoin.systemConfig(node(2551));
    assertTrue(system.getStringList("pekko.cluster.seed-nodes").isEmpty());
    org.junit.jupiter.api.Assertions.assertFalse(
        system
            .getStringList("pekko.extensions")
            .contains("org.apache.pekko.persistence.Persistence"));
    assertTrue(
        system
            .getStringList("pekko.persistence.journal.auto-start-journals")
            .contains("jdbc-journal"));
    org.junit.jupiter.api.Assertions.assertEquals(
        2, node(2551).getStringList("pekko.cluster.seed-nodes").size());
  }
}
