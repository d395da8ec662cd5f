package parreg.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import parreg.device.BackendInfo;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.PartitionInfo;
import parreg.device.ReferenceKernel;
import parreg.device.RunContract;
import parreg.device.SeedData;
import parreg.exchange.PeerActor;
import parreg.gpu.GpuActor;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalRows;
import parreg.persistence.KryoCodec;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.settings.NodeLifecycle;
import parreg.settings.NodeSettings;

/**
 * The training actor on a real H2 journal, with the real GPU actor (CPU backend) and a probe in the
 * peer actor's place: persist, stop, recover from journal and snapshot; refusals; corrupted
 * journals.
 */
public class TrainingActorTest {
  public static final RunContract SEED = RunContract.seed(2, 0);
  public static final PartitionInfo[] ROSTER = {
    SeedData.partition(0).info(0), SeedData.partition(1).info(1)
  };

  public Path dir;
  public JournalLocation journal;
  public ActorTestKit kit;

  @BeforeEach
  public void start() throws Exception {
    dir = Files.createTempDirectory("parreg-training-");
    journal = JournalLocation.parse(dir.toString());
    journal.createSchema();
    Config cfg =
        ConfigFactory.parseString("pekko.actor.provider = local\npekko.loglevel = WARNING")
            .withFallback(journal.databaseConfig())
            .withFallback(ConfigFactory.load());
    kit = ActorTestKit.create("training-test", cfg);
  }

  @AfterEach
  public void stop() {
    kit.shutdownTestKit();
  }

  public NodeSettings settings(RunContract contract, Partition partition, long target) {
    return settings(contract, partition, target, 8);
  }

  public NodeSettings settings(
      RunContract contract, Partition partition, long target, int maxLagSteps) {
    return settings(contract, partition, target, maxLagSteps, Duration.ZERO);
  }

  public NodeSettings settings(
      RunContract contract, Partition partition, long target, int maxLagSteps, Duration progress) {
    return new NodeSettings(
        0,
        contract,
        parreg.device.PartitionSource.of(partition),
        target,
        "cpu",
        "0",
        null,
        false,
        20,
        Duration.ZERO,
        1024,
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        maxLagSteps,
        Duration.ofSeconds(5),
        2,
        Duration.ofMillis(20),
        dir.toString(),
        progress,
        null);
  }

  public record Node(
      ActorRef<TrainingActor.Command> training,
      TestProbe<PeerActor.Command> peer,
      NodeLifecycle lifecycle) {}

  public Node spawn(NodeSettings s) throws Exception {
    CompletableFuture<BackendInfo> ready = new CompletableFuture<>();
    ActorRef<GpuActor.Command> gpu =
        kit.spawn(
            GpuActor.create("cpu", "0", s.partition(), s.contract().bias(), ready),
            DispatcherSelector.fromConfig(GpuActor.DISPATCHER));
    ready.get(10, TimeUnit.SECONDS);
    TestProbe<PeerActor.Command> peer = kit.createTestProbe();
    NodeLifecycle lc = new NodeLifecycle();
    return new Node(kit.spawn(TrainingActor.create(s, lc, gpu, peer.getRef())), peer, lc);
  }

  /**
   * Plays participant 1 (computing its contribution with the reference kernel) up to {@code to}.
   */
  public static double[] drive(Node n, long from, long to, double[] w) {
    return drive(n, from, to, w, Integer.MAX_VALUE);
  }

  /**
   * As {@link #drive(Node, long, long, double[])}, and checks the journal's lag: when step k is
   * published, the training actor has reported at least step k - maxLag durable (k - 1 when maxLag
   * is 0 or 1: every step durable before the next starts). {@link PeerActor.Durable} and {@link
   * PeerActor.Publish} come from the same actor, so the probe sees them in the order they were
   * sent.
   */
  public static double[] drive(Node n, long from, long to, double[] w, int maxLag) {
    Partition p1 = SeedData.partition(1);
    // A lag bound is checked from a node that has just recovered step from - 1 (durable); without
    // one, a run driven on from step k may still report an earlier step durable, late.
    long[] durable = {maxLag == Integer.MAX_VALUE ? -1 : from - 1};
    for (long k = from; k <= to; k++) {
      PeerActor.Publish pub = next(n, PeerActor.Publish.class, durable);
      assertEquals(k, pub.step());
      assertTrue(
          k - 1 - durable[0] <= Math.max(1, maxLag) - 1,
          "step "
              + k
              + " started with the journal at step "
              + durable[0]
              + " (max lag "
              + maxLag
              + ")");
      LocalSums other = ReferenceKernel.compute(p1, 0, p1.samples(), w, false);
      n.training()
          .tell(
              new TrainingActor.FromPeer(
                  new PeerActor.StepReady(k, new LocalSums[] {pub.sums(), other}, null)));
      PeerActor.Committed c = next(n, PeerActor.Committed.class, durable);
      assertEquals(k, c.step());
      w = parreg.device.UpdateRule.apply(w, c.set(), 0.25).parameters();
    }
    return w;
  }

  /**
   * The next message of this class to the peer probe, noting the durable steps reported meanwhile.
   */
  static <T> T next(Node n, Class<T> type, long[] durable) {
    while (true) {
      PeerActor.Command m = n.peer().receiveMessage(Duration.ofSeconds(10));
      if (m instanceof PeerActor.Durable d) {
        assertTrue(d.step() >= durable[0], "durable steps only grow");
        durable[0] = d.step();
      } else {
        assertTrue(type.isInstance(m), "expected " + type.getSimpleName() + ", got " + m);
        return type.cast(m);
      }
    }
  }

  TrainingActor.View view(Node n) {
    TestProbe<TrainingActor.View> probe = kit.createTestProbe();
    n.training().tell(new TrainingActor.GetState(probe.getRef()));
    return probe.receiveMessage(Duration.ofSeconds(5));
  }

  long rows() throws Exception {
    try (Connection c = journal.openConnection()) {
      return new JournalRows(c, KryoCodec.fromConfig(ConfigFactory.load()))
          .countEvents("parreg|" + SEED.runName() + "|p0");
    }
  }

  @Test
  void persistsStopsAndRecoversFromJournalAndSnapshot() throws Exception {
    Node n = spawn(settings(SEED, SeedData.partition(0), 150));
    PeerActor.Attach a = n.peer().expectMessageClass(PeerActor.Attach.class);
    assertEquals(0, a.committed());
    assertNull(a.roster(), "a new journal has no roster yet");
    n.training().tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(ROSTER)));
    double[] w = drive(n, 1, 150, new double[] {3.0});
    n.lifecycle().trainingDone().get(5, TimeUnit.SECONDS);
    TrainingActor.View v = view(n);
    assertEquals(150, v.committedStep());
    assertEquals(
        0x36a8000000000000L,
        Double.doubleToRawLongBits(v.parameters()[0]),
        "3*2^-150 after step 150");
    assertEquals(TrainingActor.Phase.DONE, v.phase());
    assertTrue(v.lastSnapshot() > 0, "a snapshot was taken");
    assertEquals(151, rows(), "RunStarted + 150 steps");
    kit.stop(n.training());

    // A new incarnation recovers (snapshot + events), is told the roster again, and trains on.
    Node m = spawn(settings(SEED, SeedData.partition(0), 200));
    PeerActor.Attach b = m.peer().expectMessageClass(PeerActor.Attach.class);
    assertEquals(150, b.committed());
    assertEquals(java.util.List.of(ROSTER), java.util.List.of(b.roster()));
    m.training().tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(ROSTER)));
    drive(m, 151, 200, w);
    m.lifecycle().trainingDone().get(5, TimeUnit.SECONDS);
    TrainingActor.View v2 = view(m);
    assertEquals(200, v2.committedStep());
    assertEquals(150, v2.recoveredStep());
    assertEquals(0x3690000000000000L, Double.doubleToRawLongBits(v2.parameters()[0]));
    assertEquals(201, rows(), "each step exactly once");
  }

  @Test
  void viewReportsStartRateAndEta() throws Exception {
    long before = System.currentTimeMillis();
    Node n = spawn(settings(SEED, SeedData.partition(0), 20, 8, Duration.ofMillis(200)));
    // The first journal of the JVM may take seconds to open on a loaded machine.
    n.peer().expectMessageClass(PeerActor.Attach.class, Duration.ofSeconds(30));
    n.training().tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(ROSTER)));
    double[] w = drive(n, 1, 10, new double[] {3.0});
    TrainingActor.View v = view(n);
    assertTrue(
        v.startedAtMillis() >= before && v.startedAtMillis() <= System.currentTimeMillis(),
        "started during the test");
    // Step 11 waits for participant 1 (this test plays it and does not answer): an interval with
    // no committed step gives a rate of 0 and no ETA.
    // Generous: on a loaded CI machine the 200 ms progress tick can come late.
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!(v.stepsPerSecond() == 0.0) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      v = view(n);
    }
    assertEquals(0.0, v.stepsPerSecond(), "a measured interval without steps");
    assertTrue(Double.isNaN(v.etaSeconds()), "no progress, no ETA");
    drive(n, 11, 20, w);
    n.lifecycle().trainingDone().get(30, TimeUnit.SECONDS);
    assertEquals(0.0, view(n).etaSeconds(), "nothing left once the target is reached");
  }

  @Test
  void theJournalLagsAtMostMaxLagStepsAndSyncCommitNone() throws Exception {
    Node sync = spawn(settings(SEED, SeedData.partition(0), 40, 0));
    sync.peer().expectMessageClass(PeerActor.Attach.class);
    sync.training().tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(ROSTER)));
    double[] w = drive(sync, 1, 40, new double[] {3.0}, 0);
    sync.lifecycle().trainingDone().get(5, TimeUnit.SECONDS);
    assertEquals(41, rows(), "RunStarted + 40 steps");
    kit.stop(sync.training());

    Node lagging = spawn(settings(SEED, SeedData.partition(0), 160, 3));
    assertEquals(40, lagging.peer().expectMessageClass(PeerActor.Attach.class).committed());
    lagging.training().tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(ROSTER)));
    drive(lagging, 41, 160, w, 3);
    lagging.lifecycle().trainingDone().get(5, TimeUnit.SECONDS);
    TrainingActor.View v = view(lagging);
    assertEquals(160, v.durableStep(), "done means durable");
    assertEquals(TrainingActor.Phase.DONE, v.phase());
    assertEquals(161, rows(), "each step exactly once");
  }

  void trainAFewSteps() throws Exception {
    Node n = spawn(settings(SEED, SeedData.partition(0), 5));
    n.peer().expectMessageClass(PeerActor.Attach.class);
    n.training().tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(ROSTER)));
    drive(n, 1, 5, new double[] {3.0});
    n.lifecycle().trainingDone().get(5, TimeUnit.SECONDS);
    kit.stop(n.training());
  }

  @Test
  void anotherContractIsRefusedAndNothingIsWritten() throws Exception {
    trainAFewSteps();
    long before = rows();
    // The seed's loss term restates the rate: another rate is another loss term too.
    RunContract other =
        new RunContract(
            SEED.runName(),
            SEED.schema(),
            SEED.checkpointContract(),
            SEED.loss().replace("rate=1/4", "rate=1/8"),
            "1/8",
            SEED.initialWeights(),
            SEED.initialization(),
            1,
            false,
            2,
            SEED.dataset(),
            0,
            SEED.reductionOrder());
    Node n = spawn(settings(other, SeedData.partition(0), 10));
    NodeLifecycle.Outcome o = n.lifecycle().outcome().get(10, TimeUnit.SECONDS);
    assertEquals(2, o.exitCode());
    assertTrue(o.message().contains("rate=1/8"), o.message());
    n.peer().expectNoMessage(Duration.ofMillis(300));
    assertEquals(before, rows(), "nothing written");
  }

  @Test
  void otherDataIsRefused() throws Exception {
    trainAFewSteps();
    Partition changed = Partition.ofRows(new float[][] {{1.5f}}, new float[] {0f});
    Node n = spawn(settings(SEED, changed, 10));
    NodeLifecycle.Outcome o = n.lifecycle().outcome().get(10, TimeUnit.SECONDS);
    assertEquals(2, o.exitCode());
    assertTrue(o.message().contains("differs from the journal's roster"), o.message());
  }

  /** Writes arbitrary events under a persistence id: how a damaged journal is made for the test. */
  static final class Forger extends EventSourcedBehavior<Object, Object, Object> {
    record Write(Object event, ActorRef<Boolean> done) {}

    Forger(String pid) {
      super(PersistenceId.ofUniqueId(pid));
    }

    static Behavior<Object> create(String pid) {
      return new Forger(pid);
    }

    @Override
    public Object emptyState() {
      return "";
    }

    @Override
    public CommandHandler<Object, Object, Object> commandHandler() {
      return newCommandHandlerBuilder()
          .forAnyState()
          .onCommand(
              Write.class, (s, w) -> Effect().persist(w.event()).thenRun(x -> w.done().tell(true)))
          .build();
    }

    @Override
    public EventHandler<Object, Object> eventHandler() {
      return newEventHandlerBuilder().forAnyState().onAnyEvent((s, e) -> s);
    }
  }

  @Test
  void aJournalWithAGapIsReportedNotAccepted() throws Exception {
    ActorRef<Object> forger = kit.spawn(Forger.create("parreg|" + SEED.runName() + "|p0"));
    TestProbe<Boolean> ok = kit.createTestProbe();
    double[] w = {3.0};
    forger.tell(new Forger.Write(new RunStarted(SEED, ROSTER), ok.getRef()));
    ok.receiveMessage();
    StepCommitted s1 = TrainingStateTest.step(1, w);
    forger.tell(new Forger.Write(s1, ok.getRef()));
    ok.receiveMessage();
    forger.tell(new Forger.Write(TrainingStateTest.step(3, s1.parameters()), ok.getRef()));
    ok.receiveMessage();
    kit.stop(forger);

    Node n = spawn(settings(SEED, SeedData.partition(0), 10));
    NodeLifecycle.Outcome o = n.lifecycle().outcome().get(15, TimeUnit.SECONDS);
    assertEquals(1, o.exitCode());
    assertTrue(o.message().contains("not contiguous: step 3 follows step 1"), o.message());
  }
}
