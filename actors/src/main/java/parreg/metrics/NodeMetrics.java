package parreg.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * The node's Prometheus metrics ({@code GET /metrics}, {@code parreg.admin.AdminHttpServer}), one
 * registry per actor system. Each actor records where its data is: the training actor its committed
 * steps, loss and step time; the journal child its write latency and batch size; the peer actor the
 * exchange wait per peer; the GPU actor its fence waits and launches. Cluster membership is read
 * when scraped.
 *
 * <p>Why this costs the step path nothing measurable: recording is a counter increment, a histogram
 * observation (striped adders, no lock; data points are looked up once, not per step) or a release
 * store of a long that the scrape reads; nothing allocates, nothing is sent to another actor.
 * Exemplars are off (they would look for a trace on every observation).
 */
public final class NodeMetrics implements Extension {

  /** One instance per actor system (tests run several nodes in one JVM). */
  static final ExtensionId<NodeMetrics> ID =
      new ExtensionId<>() {
        @Override
        public NodeMetrics createExtension(ActorSystem<?> system) {
          return new NodeMetrics(system);
        }
      };

  public static NodeMetrics get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /** Step time and exchange wait: 50 µs to about 13 s, doubling. */
  private static final double[] SECONDS = exponential(0.00005, 2, 19);

  /** Events per journal write: 1 to 4096, doubling (the lag bound is 512 steps by default). */
  private static final double[] EVENTS = exponential(1, 2, 13);

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  private final AtomicLong committed = new AtomicLong(-1);
  private final AtomicLong durable = new AtomicLong(-1);
  private final AtomicLong target = new AtomicLong(-1);
  // doubles as their bits (no lock to read or write one; NaN until the first value)
  private final AtomicLong lossBits = nanBits();
  private final AtomicLong validationStep = new AtomicLong(-1);
  private final AtomicLong validationRmseBits = nanBits();
  private final AtomicLong validationR2Bits = nanBits();

  private final CounterDataPoint steps;
  private final DistributionDataPoint stepSeconds;
  private final DistributionDataPoint journalWriteSeconds;
  private final DistributionDataPoint journalWriteEvents;
  private final Histogram exchangeWait;
  private final DistributionDataPoint fenceWaitSeconds;
  private final CounterDataPoint launches;

  private NodeMetrics(ActorSystem<?> system) {
    gauge("parreg_committed_step", "last step committed (agreed by every participant)", committed);
    gauge("parreg_durable_step", "last step in this node's journal", durable);
    gauge("parreg_target_step", "step the run trains to (--steps)", target);
    doubleGauge("parreg_loss", "training loss after the last committed step", lossBits);
    gauge(
        "parreg_validation_step",
        "committed step of the last hold-out evaluation (--validation; -1: none yet)",
        validationStep);
    doubleGauge(
        "parreg_validation_rmse",
        "hold-out RMSE at parreg_validation_step (NaN: none yet)",
        validationRmseBits);
    doubleGauge(
        "parreg_validation_r2",
        "hold-out R^2 at parreg_validation_step (NaN: none yet)",
        validationR2Bits);
    steps =
        Counter.builder()
            .name("parreg_steps_total")
            .help("steps committed by this process (a restart's replayed steps are not counted)")
            .withoutExemplars()
            .register(registry);
    stepSeconds =
        histogram(
            "parreg_step_duration_seconds", "from a step's start to its commit", SECONDS, true);
    journalWriteSeconds =
        histogram(
            "parreg_journal_write_duration_seconds",
            "one journal write (many steps' events), from the request to durable",
            SECONDS,
            true);
    journalWriteEvents =
        histogram("parreg_journal_write_events", "events per journal write", EVENTS, false);
    exchangeWait =
        Histogram.builder()
            .name("parreg_exchange_wait_seconds")
            .help(
                "from publishing this node's contribution to a step until this peer's arrived (0 if it came first)")
            .unit(Unit.SECONDS)
            .labelNames("peer")
            .classicOnly()
            .classicUpperBounds(SECONDS)
            .withoutExemplars()
            .register(registry);
    fenceWaitSeconds =
        histogram(
            "parreg_gpu_fence_wait_seconds", "wait for a launch's fence to retire", SECONDS, true);
    launches =
        Counter.builder()
            .name("parreg_gpu_launches_total")
            .help("gradient launches issued on the backend")
            .withoutExemplars()
            .register(registry);
    GaugeWithCallback.builder()
        .name("parreg_cluster_members_up")
        .help("cluster members with status Up, as this node sees them")
        .callback(cb -> cb.call(members(system, false)))
        .register(registry);
    GaugeWithCallback.builder()
        .name("parreg_cluster_members_unreachable")
        .help("cluster members this node sees as unreachable")
        .callback(cb -> cb.call(members(system, true)))
        .register(registry);
  }

  /**
   * Loads the client's classes and reads its configuration (environment, system properties), about
   * 70 classes, on a daemon thread while the actor system starts: the registry is first needed as
   * the journal starts its replay, which is on the path of a restarted node's first step.
   */
  public static void prepareInBackground() {
    Thread t =
        new Thread(
            () -> {
              PrometheusRegistry scratch = new PrometheusRegistry();
              Counter.builder().name("warm_total").withoutExemplars().register(scratch).inc();
              Histogram.builder()
                  .name("warm_seconds")
                  .unit(Unit.SECONDS)
                  .classicOnly()
                  .withoutExemplars()
                  .register(scratch)
                  .observe(1);
              GaugeWithCallback.builder()
                  .name("warm_gauge")
                  .callback(cb -> cb.call(1))
                  .register(scratch);
            },
            "parreg-metrics-init");
    t.setDaemon(true);
    t.start();
  }

  // ---- recording: called by the actors that own the data ----

  /** The training actor after recovery: where the run stands, the target. */
  public void recovered(long committedStep, long targetStep, double loss) {
    committed.lazySet(committedStep);
    durable.lazySet(committedStep);
    target.lazySet(targetStep);
    lossBits.lazySet(Double.doubleToRawLongBits(loss));
  }

  /** The training actor: step {@code step} committed {@code nanos} after it started. */
  public void stepCommitted(long step, double loss, long nanos) {
    committed.lazySet(step);
    lossBits.lazySet(Double.doubleToRawLongBits(loss));
    steps.inc();
    stepSeconds.observe(nanos / 1e9);
  }

  /** A hold-out evaluation finished (off the step path, on the validation dispatcher). */
  public void validated(long step, double rmse, double r2) {
    validationRmseBits.set(Double.doubleToRawLongBits(rmse));
    validationR2Bits.set(Double.doubleToRawLongBits(r2));
    validationStep.set(step);
  }

  public void durable(long step) {
    durable.lazySet(step);
  }

  /** The journal child: a write of {@code events} events took {@code nanos}. */
  public void journalWritten(int events, long nanos) {
    journalWriteSeconds.observe(nanos / 1e9);
    journalWriteEvents.observe(events);
  }

  /** The peer actor: one data point per peer, looked up once when the peer is admitted. */
  public DistributionDataPoint exchangeWait(int peer) {
    return exchangeWait.labelValues(Integer.toString(peer));
  }

  /** The GPU actor: a launch was issued; its fence retired after {@code nanos}. */
  public void launched(long fenceNanos) {
    launches.inc();
    fenceWaitSeconds.observe(fenceNanos / 1e9);
  }

  // ---- exposition ----

  public String contentType() {
    return writer.getContentType();
  }

  /** Writes every metric in the Prometheus text format (0.0.4). */
  public void scrape(OutputStream out) throws IOException {
    writer.write(out, registry.scrape());
  }

  private static AtomicLong nanBits() {
    return new AtomicLong(Double.doubleToRawLongBits(Double.NaN));
  }

  /** A gauge of a double kept as its bits in {@code bits}. */
  private void doubleGauge(String name, String help, AtomicLong bits) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(Double.longBitsToDouble(bits.get())))
        .register(registry);
  }

  private void gauge(String name, String help, AtomicLong value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> cb.call(value.get()))
        .register(registry);
  }

  private DistributionDataPoint histogram(
      String name, String help, double[] bounds, boolean seconds) {
    Histogram.Builder b =
        Histogram.builder()
            .name(name)
            .help(help)
            .classicOnly()
            .classicUpperBounds(bounds)
            .withoutExemplars();
    if (seconds) {
      b.unit(Unit.SECONDS);
    }
    return b.register(registry);
  }

  private static double members(ActorSystem<?> system, boolean unreachable) {
    ClusterEvent.CurrentClusterState cs = Cluster.get(system).state();
    int n = 0;
    if (unreachable) {
      for (Member ignored : cs.getUnreachable()) {
        n++;
      }
      return n;
    }
    for (Member m : cs.getMembers()) {
      if (m.status().equals(MemberStatus.up())) {
        n++;
      }
    }
    return n;
  }

  private static double[] exponential(double start, double factor, int count) {
    double[] out = new double[count];
    for (int i = 0; i < count; i++) {
      out[i] = start * Math.pow(factor, i);
    }
    return out;
  }
}
