package parreg.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import parreg.device.LocalSums;
import parreg.device.SeedData;
import parreg.settings.NodeSettings;
import parreg.training.TrainingActorTest;

/**
 * The peer actor in one JVM, with a probe as the other participant: a node restarted one step
 * behind is answered at once, and an answer is never answered; a peer started with another {@code
 * --steps} is refused like one of another contract.
 */
class PeerActorTest {
  ActorTestKit kit;

  @BeforeEach
  void start() {
    kit =
        ActorTestKit.create(
            "peer-test",
            ConfigFactory.parseString("pekko.actor.provider = local\npekko.loglevel = WARNING")
                .withFallback(ConfigFactory.load()));
  }

  @AfterEach
  void stop() {
    kit.shutdownTestKit();
  }

  /**
   * Participant 0 with target step 100; retry interval one minute: any answer within a test comes
   * from what it sent.
   */
  static NodeSettings settings() {
    return new NodeSettings(
        0,
        TrainingActorTest.SEED,
        parreg.device.PartitionSource.of(SeedData.partition(0)),
        100,
        "cpu",
        "0",
        null,
        false,
        20,
        Duration.ZERO,
        1024,
        Duration.ofMinutes(1),
        Duration.ofSeconds(1),
        8,
        Duration.ofMillis(250),
        4,
        Duration.ofMillis(20),
        "test",
        Duration.ZERO,
        null);
  }

  @Test
  void aPeerWithAnotherTargetStepIsRefusedNamingTheTarget() {
    TestProbe<PeerActor.Delivery> training = kit.createTestProbe();
    TestProbe<PeerActor.Command> other = kit.createTestProbe();
    ActorRef<PeerActor.Command> peer = kit.spawn(PeerActor.create(settings()));
    peer.tell(new PeerActor.Attach(training.getRef(), null, 0));

    // same contract and data, but started with --steps 50: it would stop at 50 and leave us waiting
    peer.tell(
        new PeerActor.Hello(
            TrainingActorTest.SEED, TrainingActorTest.ROSTER[1], 0, 50, other.getRef(), true));
    other.expectNoMessage(Duration.ofMillis(200)); // not admitted: no reply
    TestProbe<PeerActor.View> view = kit.createTestProbe();
    peer.tell(new PeerActor.GetView(view.getRef()));
    PeerActor.View v = view.receiveMessage();
    assertTrue(v.peers().isEmpty(), "nobody admitted");
    assertTrue(
        v.refusal().reason().contains("targetSteps: expected '100' but found '50'"),
        v.refusal().reason());
    assertEquals(v.refusal().reason(), v.refused().get(0));
    training.expectNoMessage(Duration.ofMillis(50)); // no roster: no step starts
  }

  @Test
  void aContributionToAStepAlreadyDurableHereIsAnsweredAtOnceButAnAnswerIsNot() {
    NodeSettings s = settings();
    TestProbe<PeerActor.Delivery> training = kit.createTestProbe();
    TestProbe<PeerActor.Command> other = kit.createTestProbe();
    ActorRef<PeerActor.Command> peer = kit.spawn(PeerActor.create(s));
    peer.tell(new PeerActor.Attach(training.getRef(), TrainingActorTest.ROSTER, 5));
    String run = TrainingActorTest.SEED.digest();

    // participant 1 comes back from its journal at step 4 and introduces itself
    peer.tell(
        new PeerActor.Hello(
            TrainingActorTest.SEED, TrainingActorTest.ROSTER[1], 4, 100, other.getRef(), true));
    PeerActor.Hello reply = other.expectMessageClass(PeerActor.Hello.class);
    assertEquals(5, reply.committed());

    LocalSums mine = new LocalSums(new double[] {6.0}, 9.0, 1);
    LocalSums theirs = new LocalSums(new double[] {18.0}, 45.0, 2);
    LocalSums[] set5 = {mine, theirs};
    peer.tell(new PeerActor.Committed(5, set5));

    // its fresh contribution to step 5 (durable here): our contribution and the committed set come
    // back
    peer.tell(new PeerActor.Contribution(run, 5, 1, theirs, null));
    PeerActor.Contribution answer = next(other, PeerActor.Contribution.class);
    assertEquals(5, answer.step());
    assertEquals(0, answer.participant());
    assertSame(mine, answer.sums());
    assertArrayEquals(set5, answer.committedSet());

    // an answer (it carries a committed set) to a step durable here gets nothing back: no ping-pong
    peer.tell(new PeerActor.Contribution(run, 5, 1, theirs, set5));
    onlyHeartbeats(other, Duration.ofMillis(500));
  }

  /**
   * A contribution larger than {@code parreg.peer.part-bytes} leaves in parts, and one that arrives
   * in parts (shuffled, one part twice) is delivered with every bit: the exact solver's statistics
   * at d = 1,024 and more exceed Artery's frame, which drops such a message.
   */
  @Test
  void aLargeContributionTravelsInPartsAndArrivesWhole() throws Exception {
    kit.shutdownTestKit();
    kit =
        ActorTestKit.create(
            "peer-parts-test",
            ConfigFactory.parseString(
                    "pekko.actor.provider = local\npekko.loglevel = WARNING\n"
                        + "parreg.peer.part-bytes = 256")
                .withFallback(ConfigFactory.load()));
    TestProbe<PeerActor.Delivery> training = kit.createTestProbe();
    TestProbe<PeerActor.Command> other = kit.createTestProbe();
    ActorRef<PeerActor.Command> peer = kit.spawn(PeerActor.create(settings()));
    peer.tell(new PeerActor.Attach(training.getRef(), TrainingActorTest.ROSTER, 5));
    String run = TrainingActorTest.SEED.digest();
    peer.tell(
        new PeerActor.Hello(
            TrainingActorTest.SEED, TrainingActorTest.ROSTER[1], 5, 100, other.getRef(), true));
    other.expectMessageClass(PeerActor.Hello.class);

    java.util.Random random = new java.util.Random(7);
    double[] big = new double[300];
    for (int i = 0; i < big.length; i++) {
      big[i] = random.nextGaussian();
    }
    big[3] = -0.0;
    big[4] = Double.longBitsToDouble(0x7ff8000000000123L); // a NaN payload survives too
    LocalSums mine = new LocalSums(big, 1.5, 7);
    peer.tell(new PeerActor.Publish(6, mine));

    // what leaves: parts of at most 256 bytes, which put together give our contribution
    parreg.persistence.KryoCodec codec = parreg.persistence.KryoCodec.fromRegistrationsResource();
    ContributionParts joiner =
        new ContributionParts(256, codec::encode, b -> (PeerActor.Contribution) codec.decode(b));
    PeerActor.Contribution sent = null;
    int count = 0;
    while (sent == null) {
      PeerActor.ContributionPart part = next(other, PeerActor.ContributionPart.class);
      assertTrue(part.bytes().length <= 256, "part of " + part.bytes().length + " bytes");
      count = part.count();
      sent = joiner.receive(part, System.nanoTime());
    }
    assertTrue(count > 1, "sent in " + count + " parts");
    assertEquals(6, sent.step());
    assertArrayEquals(bits(big), bits(sent.sums().gradient()));

    // what arrives: participant 1's contribution in parts, out of order, one of them twice
    double[] theirsValues = big.clone();
    theirsValues[0] = 42.0;
    LocalSums theirs = new LocalSums(theirsValues, 2.5, 9);
    java.util.List<PeerActor.Command> parts =
        new java.util.ArrayList<>(
            joiner.messages(new PeerActor.Contribution(run, 6, 1, theirs, null)));
    assertTrue(parts.size() > 1);
    parts.add(parts.get(1));
    java.util.Collections.shuffle(parts, random);
    parts.forEach(peer::tell);
    PeerActor.StepReady ready = null;
    while (ready == null) {
      PeerActor.Delivery d = training.receiveMessage(Duration.ofSeconds(3));
      ready = d instanceof PeerActor.StepReady r ? r : null;
    }
    assertEquals(6, ready.step());
    assertArrayEquals(bits(big), bits(ready.contributions()[0].gradient()));
    assertArrayEquals(bits(theirsValues), bits(ready.contributions()[1].gradient()));
    assertEquals(9, ready.contributions()[1].mass());
  }

  /**
   * The next message of class {@code c}, heartbeats ({@link PeerActor.Progress}, sent to a peer at
   * its admission and every second) passed over.
   */
  private static <T> T next(TestProbe<PeerActor.Command> probe, Class<T> c) {
    while (true) {
      PeerActor.Command m = probe.receiveMessage(Duration.ofSeconds(3));
      if (c.isInstance(m)) {
        return c.cast(m);
      }
      assertTrue(m instanceof PeerActor.Progress, "expected " + c.getSimpleName() + ", got " + m);
    }
  }

  /** Nothing but heartbeats ({@link PeerActor.Progress}) arrives at {@code probe} for {@code d}. */
  private static void onlyHeartbeats(TestProbe<PeerActor.Command> probe, Duration d) {
    long until = System.nanoTime() + d.toNanos();
    for (long left = d.toNanos(); left > 0; left = until - System.nanoTime()) {
      PeerActor.Command m;
      try {
        m = probe.receiveMessage(Duration.ofNanos(left));
      } catch (AssertionError timeout) {
        return; // nothing more came
      }
      assertTrue(m instanceof PeerActor.Progress, "only heartbeats, not " + m);
    }
  }

  private static long[] bits(double[] values) {
    long[] b = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      b[i] = Double.doubleToRawLongBits(values[i]);
    }
    return b;
  }
}
