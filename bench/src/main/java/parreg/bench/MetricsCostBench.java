package parreg.bench;

import com.typesafe.config.ConfigFactory;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import parreg.metrics.NodeMetrics;

/**
 * What {@link NodeMetrics} costs, in CPU time of the calling thread (so that other processes on a
 * loaded machine do not count): the recording one committed step makes on a two-node run (step
 * commit, durable mark, one peer's exchange wait, one launch, and a journal write of 100 events
 * every 100 steps), and one scrape of the whole registry. Prints nanoseconds per step and
 * microseconds per scrape, the best of several rounds after a warm-up.
 *
 * <p>Usage: {@code MetricsCostBench [STEPS] [SCRAPES]}.
 */
public final class MetricsCostBench {
  private MetricsCostBench() {}

  public static void main(String[] args) throws Exception {
    int steps = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
    int scrapes = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
    ActorSystem<Void> system =
        ActorSystem.create(
            Behaviors.empty(),
            "bench",
            ConfigFactory.parseString(
                    "pekko.actor.provider = cluster\npekko.remote.artery.canonical.port = 0\npekko.loglevel = WARNING")
                .withFallback(ConfigFactory.defaultReference()));
    try {
      NodeMetrics m = NodeMetrics.get(system);
      m.recovered(0, Long.MAX_VALUE, Double.NaN);
      DistributionDataPoint peer = m.exchangeWait(1);
      ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
      double bestStep = Double.MAX_VALUE;
      double bestScrape = Double.MAX_VALUE;
      long step = 0;
      ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
      for (int round = 0; round < 7; round++) {
        long t0 = cpu.getCurrentThreadCpuTime();
        for (int i = 0; i < steps; i++) {
          step++;
          m.launched(20_000 + (i & 1023));
          peer.observe((i & 255) * 1e-6);
          m.stepCommitted(step, 1.0 / step, 300_000 + (i & 4095));
          if (step % 100 == 0) {
            m.journalWritten(100, 2_000_000);
            m.durable(step);
          }
        }
        long t1 = cpu.getCurrentThreadCpuTime();
        for (int i = 0; i < scrapes; i++) {
          out.reset();
          m.scrape(out);
        }
        long t2 = cpu.getCurrentThreadCpuTime();
        if (round >= 2) { // rounds 0 and 1 warm the JIT up
          bestStep = Math.min(bestStep, (t1 - t0) / (double) steps);
          bestScrape = Math.min(bestScrape, (t2 - t1) / 1e3 / scrapes);
        }
      }
      System.out.printf(
          Locale.ROOT,
          "recording per committed step: %.1f ns CPU; one scrape (%d bytes): %.1f us CPU%n",
          bestStep,
          out.size(),
          bestScrape);
    } finally {
      system.terminate();
    }
  }
}
