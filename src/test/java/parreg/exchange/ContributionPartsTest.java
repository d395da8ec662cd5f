package parreg.exchange;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import parreg.device.LocalSums;
import parreg.persistence.KryoCodec;

/** Splitting a large contribution into parts and putting it back together. */
class ContributionPartsTest {
  static final KryoCodec CODEC = KryoCodec.fromRegistrationsResource();

  static ContributionParts parts(int partBytes) {
    return new ContributionParts(
        partBytes, CODEC::encode, b -> (PeerActor.Contribution) CODEC.decode(b));
  }

  static PeerActor.Contribution contribution(int doubles, long step) {
    double[] g = new double[doubles];
    for (int i = 0; i < doubles; i++) {
      g[i] = i * 0.5 - 3;
    }
    return new PeerActor.Contribution("run", step, 1, new LocalSums(g, 1.25, 4), null);
  }

  @Test
  void aSmallContributionGoesWhole() {
    PeerActor.Contribution c = contribution(10, 3);
    List<PeerActor.Command> m = parts(1024).messages(c);
    assertEquals(1, m.size());
    assertSame(c, m.get(0));
  }

  @Test
  void aLargeOneGoesInPartsOfAtMostTheLimitAndComesBackWhole() {
    PeerActor.Contribution c = contribution(1000, 3);
    ContributionParts sender = parts(1000);
    List<PeerActor.Command> m = sender.messages(c);
    int encoded = CODEC.encode(c).length;
    assertEquals((encoded + 999) / 1000, m.size());
    ContributionParts receiver = parts(1000);
    PeerActor.Contribution whole = null;
    for (int i = m.size() - 1; i >= 0; i--) { // last part first
      PeerActor.ContributionPart p = (PeerActor.ContributionPart) m.get(i);
      assertTrue(p.bytes().length <= 1000);
      assertNull(whole);
      whole = receiver.receive(p, 0);
    }
    assertEquals(c.step(), whole.step());
    assertEquals(c.sums().gradient().length, whole.sums().gradient().length);
    for (int i = 0; i < c.sums().gradient().length; i++) {
      assertEquals(c.sums().gradient()[i], whole.sums().gradient()[i]);
    }
    assertEquals(0, receiver.assembling());
  }

  @Test
  void aTransferMissingAPartIsArrivingUntilItStallsAndTwoTransfersDoNotMix() {
    ContributionParts sender = parts(500);
    List<PeerActor.Command> first = sender.messages(contribution(400, 7));
    List<PeerActor.Command> second = sender.messages(contribution(400, 7));
    ContributionParts receiver = parts(500);
    for (int i = 1; i < first.size(); i++) { // part 0 of the first transfer is lost
      assertNull(receiver.receive((PeerActor.ContributionPart) first.get(i), 1_000));
    }
    assertTrue(receiver.arriving(1, 7, 1_000 + ContributionParts.STALLED_NANOS - 1));
    assertFalse(receiver.arriving(1, 7, 1_000 + ContributionParts.STALLED_NANOS));
    assertFalse(receiver.arriving(0, 7, 1_000), "another sender");
    // the transfer asked for again completes on its own parts
    PeerActor.Contribution whole = null;
    List<PeerActor.Command> again = new ArrayList<>(second);
    for (PeerActor.Command p : again) {
      whole = receiver.receive((PeerActor.ContributionPart) p, 5_000);
    }
    assertEquals(7, whole.step());
    receiver.dropUpTo(7);
    assertEquals(0, receiver.assembling());
  }

  @Test
  void aRequestForTheSameStepJustAfterATransferIsNotAnsweredAgain() {
    var to = org.apache.pekko.actor.testkit.typed.javadsl.TestInbox.<PeerActor.Command>create();
    ContributionParts sender = parts(500);
    sender.send(to.getRef(), contribution(400, 7), 100);
    assertTrue(to.getAllReceived().size() > 1);
    assertTrue(sender.recentlySent(to.getRef(), 7, 100 + ContributionParts.RESEND_NANOS - 1));
    assertFalse(sender.recentlySent(to.getRef(), 7, 100 + ContributionParts.RESEND_NANOS));
    assertFalse(sender.recentlySent(to.getRef(), 8, 200), "another step");
    sender.send(to.getRef(), contribution(4, 9), 300); // sent whole: nothing to hold back
    assertFalse(sender.recentlySent(to.getRef(), 9, 300));
  }
}
