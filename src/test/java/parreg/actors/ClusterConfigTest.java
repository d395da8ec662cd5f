package parreg.actors;

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
   * stayed down for ~6 s (found with scripts/bench-restart.sh, DELAY=6).
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
        ParregNode.isFirstSeed(
            ConfigFactory.parseString("pekko.remote.artery.canonical.port = 2551")
                .withFallback(seeds)));
    org.junit.jupiter.api.Assertions.assertFalse(
        ParregNode.isFirstSeed(
            ConfigFactory.parseString("pekko.remote.artery.canonical.port = 2552")
                .withFallback(seeds)));
    org.junit.jupiter.api.Assertions.assertFalse(
        ParregNode.isFirstSeed(
            ConfigFactory.parseString(
                    "pekko.remote.artery.canonical.port = 2551\npekko.remote.artery.canonical.hostname = \"127.0.0.2\"")
                .withFallback(seeds)));
  }
}
