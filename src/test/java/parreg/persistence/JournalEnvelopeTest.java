package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The version-2 envelope and the chain (issue 13 item 5), byte by byte. */
class JournalEnvelopeTest {
  static final KryoCodec CODEC = KryoCodec.create(KryoCodecTest.TABLE);

  static KryoCodecTest.Part part(int i) {
    return new KryoCodecTest.Part(i, i * 0.25);
  }

  @Test
  void sealedPayloadsOpenToTheSameValueLinkAndHash() {
    Chained c = JournalEnvelope.seal(CODEC, part(3), 0x1234_5678_9abc_def0L);
    assertEquals(JournalEnvelope.VERSION, c.payload()[0]);
    Chained back = JournalEnvelope.open(CODEC, c.payload());
    assertEquals(part(3), back.value());
    assertEquals(0x1234_5678_9abc_def0L, back.link());
    assertEquals(c.hash(), back.hash());
    assertTrue(back.linked());
    assertEquals(c.hash(), JournalEnvelope.check(c.payload()).hash());
  }

  @Test
  void everySingleBitFlipIsRefused() {
    byte[] payload = JournalEnvelope.seal(CODEC, part(7), 42).payload();
    for (int i = 0; i < payload.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] b = payload.clone();
        b[i] ^= (byte) (1 << bit);
        assertThrows(
            KryoCodecException.class,
            () -> JournalEnvelope.open(CODEC, b),
            "byte " + i + " bit " + bit);
      }
    }
  }

  @Test
  void versionOnePayloadsReadAsTheyAreWithoutALink() {
    byte[] v1 = CODEC.encode(part(2));
    Chained c = JournalEnvelope.open(CODEC, v1);
    assertFalse(c.linked());
    assertEquals(part(2), c.value());
    assertEquals(JournalEnvelope.chainHash(v1), c.hash());
    assertArrayEquals(v1, c.payload());
  }

  static List<Chained> chain(int n) {
    Chained[] events = new Chained[n];
    long link = JournalEnvelope.GENESIS;
    for (int i = 0; i < n; i++) {
      events[i] = JournalEnvelope.seal(CODEC, part(i), link);
      link = events[i].hash();
    }
    return List.of(events);
  }

  static JournalReadException check(List<Chained> events) {
    ChainCheck check = ChainCheck.fromStart("pid");
    try {
      for (int i = 0; i < events.size(); i++) {
        check.next(i + 1, events.get(i));
      }
      return null;
    } catch (JournalReadException e) {
      return e;
    }
  }

  @Test
  void aDeletedOrSwappedEventBreaksTheChainAtItsSequenceNumber() {
    List<Chained> good = chain(6);
    assertEquals(null, check(good));
    List<Chained> deleted =
        List.of(good.get(0), good.get(1), good.get(3), good.get(4), good.get(5));
    assertEquals(3, check(deleted).sequenceNr());
    assertTrue(
        check(deleted).getMessage().contains("event pid #3 does not follow #2"),
        check(deleted).getMessage());
    List<Chained> swapped =
        List.of(good.get(0), good.get(1), good.get(3), good.get(2), good.get(4), good.get(5));
    assertEquals(3, check(swapped).sequenceNr());
    List<Chained> firstGone = good.subList(1, 6);
    assertEquals(1, check(firstGone).sequenceNr(), "the first event links to GENESIS");
  }

  @Test
  void aSkippedSequenceNumberOrAnUnchecksummedEventAfterChecksummedOnesIsRefused() {
    List<Chained> good = chain(3);
    ChainCheck gap = ChainCheck.fromStart("pid");
    gap.next(1, good.get(0));
    JournalReadException e =
        assertThrows(JournalReadException.class, () -> gap.next(3, good.get(1)));
    assertEquals(2, e.sequenceNr());
    ChainCheck v1After = ChainCheck.fromStart("pid");
    v1After.next(1, good.get(0));
    Chained v1 = JournalEnvelope.open(CODEC, CODEC.encode(part(9)));
    assertEquals(
        2, assertThrows(JournalReadException.class, () -> v1After.next(2, v1)).sequenceNr());
  }

  @Test
  void aVersionOneJournalContinuesWithLinkedEvents() {
    Chained v1a = JournalEnvelope.open(CODEC, CODEC.encode(part(0)));
    Chained v1b = JournalEnvelope.open(CODEC, CODEC.encode(part(1)));
    Chained next = JournalEnvelope.seal(CODEC, part(2), v1b.hash());
    ChainCheck check = ChainCheck.fromStart("pid");
    check.next(1, v1a);
    check.next(2, v1b);
    check.next(3, next);
    Chained wrong = JournalEnvelope.seal(CODEC, part(3), v1a.hash());
    assertEquals(
        4, assertThrows(JournalReadException.class, () -> check.next(4, wrong)).sequenceNr());
    // the first checksummed event after version-1 ones starts the chain, whatever it links to
    ChainCheck resumed = ChainCheck.fromStart("pid");
    resumed.next(1, v1a);
    resumed.next(2, JournalEnvelope.seal(CODEC, part(2), JournalEnvelope.GENESIS));
  }

  @Test
  void aSnapshotMustLinkToTheEventAtItsSequenceNumber() {
    List<Chained> events = chain(4);
    ChainCheck check = ChainCheck.fromStart("pid");
    for (int i = 0; i < 4; i++) {
      check.next(i + 1, events.get(i));
    }
    check.snapshot(4, JournalEnvelope.seal(CODEC, part(99), events.get(3).hash()));
    JournalReadException e =
        assertThrows(
            JournalReadException.class,
            () -> check.snapshot(4, JournalEnvelope.seal(CODEC, part(99), events.get(2).hash())));
    assertEquals(4, e.sequenceNr());
  }
}
