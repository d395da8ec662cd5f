package parreg.training.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import parreg.persistence.Chained;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.JournalReadException;
import parreg.persistence.KryoCodec;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;
import parreg.training.TrainingStateTest;

/**
 * The training actor's journal adapters: what they write links up, what recovery reads is checked.
 */
class JournalChainTest {
  static final KryoCodec CODEC = KryoCodec.fromConfig(ConfigFactory.load());

  /** RunStarted and steps 1..n as the adapter writes them, then through the serializer's bytes. */
  static List<Chained> written(JournalChain chain, int n) {
    List<Chained> out = new ArrayList<>();
    TrainingState s = TrainingState.empty();
    RunStarted started = new RunStarted(TrainingStateTest.C, TrainingStateTest.ROSTER);
    s = s.apply(started);
    out.add(JournalEnvelope.open(CODEC, ((Chained) chain.events.toJournal(started)).payload()));
    for (int k = 1; k <= n; k++) {
      StepCommitted e = TrainingStateTest.step(k, s.parameters());
      s = s.apply(e);
      out.add(JournalEnvelope.open(CODEC, ((Chained) chain.events.toJournal(e)).payload()));
    }
    return out;
  }

  @Test
  void recoveryAcceptsWhatWasWrittenAndRefusesItReordered() {
    List<Chained> events = written(new JournalChain("p", CODEC), 5);
    JournalChain good = new JournalChain("p", CODEC);
    for (Chained c : events) {
      assertEquals(c.value(), good.events.fromJournal(c, "").events().head());
    }
    JournalChain swapped = new JournalChain("p", CODEC);
    swapped.events.fromJournal(events.get(0), "");
    swapped.events.fromJournal(events.get(1), "");
    JournalReadException e =
        assertThrows(
            JournalReadException.class, () -> swapped.events.fromJournal(events.get(3), ""));
    assertEquals(3, e.sequenceNr());
    assertTrue(e.getMessage().contains("event p #3 does not follow #2"), e.getMessage());
  }

  @Test
  void aSnapshotLinksToItsEventAndRecoveryFromItChecksTheNextEvent() {
    JournalChain writer = new JournalChain("p", CODEC);
    List<Chained> events = written(writer, 3); // events 1..4: RunStarted, steps 1..3
    TrainingState at3 = TrainingState.empty();
    for (Chained c : events) {
      at3 = c.value() instanceof RunStarted r ? at3.apply(r) : at3.apply((StepCommitted) c.value());
    }
    Chained snapshot =
        JournalEnvelope.open(CODEC, ((Chained) writer.snapshots.toJournal(at3)).payload());
    assertEquals(events.get(3).hash(), snapshot.link());
    StepCommitted step4 = TrainingStateTest.step(4, at3.parameters());
    Chained event5 =
        JournalEnvelope.open(CODEC, ((Chained) writer.events.toJournal(step4)).payload());

    JournalChain recovering = new JournalChain("p", CODEC);
    assertEquals(at3, recovering.snapshots.fromJournal(snapshot));
    recovering.events.fromJournal(event5, "");

    JournalChain wrong = new JournalChain("p", CODEC);
    wrong.snapshots.fromJournal(snapshot);
    assertEquals(
        5,
        assertThrows(JournalReadException.class, () -> wrong.events.fromJournal(events.get(2), ""))
            .sequenceNr());
  }
}
