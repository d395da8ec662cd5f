package parreg.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import parreg.device.SeedData;
import parreg.settings.NodeSettings;
import parreg.training.TrainingActor;
import parreg.training.TrainingActorTest;

/**
 * A peer serves a lagging node the committed steps it no longer holds in memory from its own
 * journal (issue 13 item 5): a step read back damaged (checksum) is refused, not passed on, while
 * the steps around it are served.
 */
class PeerServesFromJournalTest {
  final TrainingActorTest t = new TrainingActorTest();

  @BeforeEach
  void start() throws Exception {
    t.start();
  }

  @AfterEach
  void stop() {
    t.stop();
  }

  @Test
  void aDamagedStepIsNotServed() throws Exception {
    TrainingActorTest.Node n =
        t.spawn(t.settings(TrainingActorTest.SEED, SeedData.partition(0), 8));
    n.peer().expectMessageClass(PeerActor.Attach.class, Duration.ofSeconds(30));
    n.training()
        .tell(new TrainingActor.FromPeer(new PeerActor.RosterComplete(TrainingActorTest.ROSTER)));
    TrainingActorTest.drive(n, 1, 8, new double[] {3.0});
    n.lifecycle().trainingDone().get(5, TimeUnit.SECONDS);
    t.kit.stop(n.training());

    String pid = "parreg|" + TrainingActorTest.SEED.runName() + "|p0";
    try (Connection c = t.journal.openConnection()) {
      // step 5 is event #6: flip one bit of its stored payload
      byte[] b;
      try (PreparedStatement s =
          c.prepareStatement(
              "SELECT \"event_payload\" FROM \"event_journal\" WHERE \"persistence_id\" = ? AND \"sequence_number\" = 6")) {
        s.setString(1, pid);
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          b = rs.getBytes(1);
        }
      }
      b[b.length - 3] ^= 0x10;
      try (PreparedStatement s =
          c.prepareStatement(
              "UPDATE \"event_journal\" SET \"event_payload\" = ? WHERE \"persistence_id\" = ? AND \"sequence_number\" = 6")) {
        s.setBytes(1, b);
        s.setString(2, pid);
        assertEquals(1, s.executeUpdate());
      }
    }

    // nothing committed in this incarnation's memory window: every step comes from the journal
    NodeSettings s =
        new NodeSettings(
            0,
            TrainingActorTest.SEED,
            parreg.device.PartitionSource.of(SeedData.partition(0)),
            8,
            "cpu",
            "0",
            null,
            false,
            20,
            Duration.ZERO,
            2,
            Duration.ofMinutes(1),
            Duration.ofSeconds(1),
            1,
            Duration.ofMillis(250),
            4,
            Duration.ofMillis(20),
            t.dir.toString(),
            Duration.ZERO,
            null);
    TestProbe<PeerActor.Delivery> training = t.kit.createTestProbe();
    TestProbe<PeerActor.Command> other = t.kit.createTestProbe();
    ActorRef<PeerActor.Command> peer = t.kit.spawn(PeerActor.create(s));
    peer.tell(new PeerActor.Attach(training.getRef(), TrainingActorTest.ROSTER, 8));
    String run = TrainingActorTest.SEED.digest();

    peer.tell(new PeerActor.ContributionRequest(run, 4, 1, other.getRef()));
    PeerActor.Contribution four =
        other.expectMessageClass(PeerActor.Contribution.class, Duration.ofSeconds(10));
    assertEquals(4, four.step());
    assertEquals(2, four.committedSet().length);

    peer.tell(new PeerActor.ContributionRequest(run, 5, 1, other.getRef()));
    other.expectNoMessage(Duration.ofSeconds(2));

    peer.tell(new PeerActor.ContributionRequest(run, 7, 1, other.getRef()));
    PeerActor.Contribution seven =
        other.expectMessageClass(PeerActor.Contribution.class, Duration.ofSeconds(10));
    assertEquals(7, seven.step());
    assertEquals(2, seven.committedSet().length);
  }
}
