package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The step log of {@code --sync-commit} (issue 13 item 6): append, read back, roll, release; a
 * record cut short at the end is a torn tail (left out), damage in the middle, a gap and a repeated
 * sequence number are named by sequence number.
 */
class StepLogTest {
  static final String PID = "parreg|run|p0";

  @TempDir Path dir;

  static byte[] payload(long seq) {
    byte[] b = new byte[60 + (int) (seq % 7)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (seq * 31 + i);
    }
    return b;
  }

  /** Records first..last in segments of {@code segmentBytes}. */
  Path written(long first, long last, long segmentBytes) throws Exception {
    Path log = dir.resolve("journal.steplog");
    try (StepLog w = StepLog.create(log, PID, segmentBytes, false)) {
      for (long s = first; s <= last; s++) {
        w.append(s, 1_700_000_000_000L + s, payload(s));
      }
    }
    return log;
  }

  static String damage(Path log) {
    return assertThrows(JournalReadException.class, () -> StepLogScan.read(log)).getMessage();
  }

  @Test
  void recordsReadBackInOrderAcrossSegments() throws Exception {
    Path log = written(2, 101, 1024);
    assertTrue(StepLogScan.segments(log).size() > 5, "rolled: " + StepLogScan.segments(log));
    StepLogScan.Contents c = StepLogScan.read(log);
    assertEquals(PID, c.persistenceId());
    assertEquals(100, c.records().size());
    assertNull(c.tornTail());
    for (int i = 0; i < 100; i++) {
      StepLogScan.Record r = c.records().get(i);
      assertEquals(i + 2, r.sequenceNr());
      assertEquals(1_700_000_000_000L + i + 2, r.writtenAtMillis());
      assertArrayEquals(payload(i + 2), r.payload());
    }
    assertEquals(List.of(), c.after("parreg|other|p0", 0));
    assertEquals(11, c.after(PID, 90).size());
  }

  /**
   * A guarded journal write appends its steps in one call ({@link StepLog#appendAll}): the same
   * segments, byte for byte, as appending them one by one, rolls inside a batch included.
   */
  @Test
  void appendingInBatchesWritesTheSameSegmentsAsOneByOne() throws Exception {
    Path one = dir.resolve("one.steplog");
    try (StepLog w = StepLog.create(one, PID, 1024, false)) {
      for (long s = 2; s <= 101; s++) {
        w.append(s, 5, payload(s));
      }
    }
    Path batched = dir.resolve("batched.steplog");
    try (StepLog w = StepLog.create(batched, PID, 1024, false)) {
      long s = 2;
      for (int n : new int[] {1, 7, 30, 2, 60}) { // 100 records; the 30 and the 60 span rolls
        List<byte[]> payloads = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
          payloads.add(payload(s + i));
        }
        w.appendAll(s, 5, payloads);
        s += n;
      }
      assertEquals(101, w.lastSeq());
      assertThrows(
          IllegalArgumentException.class, () -> w.appendAll(103, 5, List.of(payload(103))));
    }
    assertTrue(names(one).size() > 5, "rolled: " + names(one));
    assertEquals(names(one), names(batched));
    for (int i = 0; i < names(one).size(); i++) {
      assertArrayEquals(
          Files.readAllBytes(StepLogScan.segments(one).get(i)),
          Files.readAllBytes(StepLogScan.segments(batched).get(i)));
    }
    StepLogScan.Contents c = StepLogScan.read(batched);
    assertEquals(100, c.records().size());
    assertNull(c.tornTail());
  }

  static List<String> names(Path log) throws Exception {
    return StepLogScan.segments(log).stream().map(p -> p.getFileName().toString()).toList();
  }

  @Test
  void releaseDeletesWhatTheJournalHolds() throws Exception {
    Path log = dir.resolve("journal.steplog");
    try (StepLog w = StepLog.create(log, PID, 1024, false)) {
      for (long s = 2; s <= 60; s++) {
        w.append(s, s, payload(s));
      }
      int before = StepLogScan.segments(log).size();
      long bytes = w.bytes();
      w.release(30);
      assertTrue(StepLogScan.segments(log).size() < before);
      assertTrue(w.bytes() < bytes);
      long first = StepLogScan.read(log).records().get(0).sequenceNr();
      assertTrue(first <= 31 && first > 2, "kept from " + first);
      w.release(60);
      assertEquals(List.of(), StepLogScan.segments(log), "everything journaled: nothing left");
      assertEquals(0, w.bytes());
      w.append(61, 61, payload(61)); // a new segment
      assertEquals(List.of(61L), seqs(StepLogScan.read(log)));
    }
    StepLog.delete(log);
    assertTrue(Files.notExists(log));
  }

  /**
   * A log a start kept (its records moved into a journal that may still lose them: StepLogDrain) is
   * taken over: appends continue after its last record, and its segments are released like the new
   * ones.
   */
  @Test
  void aLogLeftBehindIsTakenOverAndReleasedLikeItsOwn() throws Exception {
    Path log = written(2, 60, 1024);
    List<String> before = names(log);
    assertTrue(before.size() > 2, "rolled: " + before);
    try (StepLog w = StepLog.create(log, PID, 1024, false)) {
      assertEquals(60, w.lastSeq());
      long onDisk = 0;
      for (Path p : StepLogScan.segments(log)) {
        onDisk += Files.size(p);
      }
      assertEquals(onDisk, w.bytes());
      assertThrows(IllegalArgumentException.class, () -> w.append(62, 62, payload(62)));
      w.append(61, 61, payload(61));
      assertEquals(before.size() + 1, names(log).size(), "a segment of its own for #61");
      assertEquals(
          java.util.stream.LongStream.rangeClosed(2, 61).boxed().toList(),
          seqs(StepLogScan.read(log)));
      w.release(45);
      long first = StepLogScan.read(log).records().get(0).sequenceNr();
      assertTrue(first > 2 && first <= 46, "kept from " + first);
      w.release(61);
      assertEquals(List.of(), StepLogScan.segments(log));
    }
  }

  @Test
  void takingOverCutsATornTailAndDropsASegmentWithoutRecords() throws Exception {
    Path log = written(2, 20, 1 << 20);
    Path segment = StepLogScan.segments(log).get(0);
    long size = Files.size(segment);
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(size - 5); // inside the payload of #20: never acknowledged
    }
    try (StepLog w = StepLog.create(log, PID, 1 << 20, false)) {
      assertEquals(19, w.lastSeq());
      w.append(20, 20, payload(20));
    }
    StepLogScan.Contents c = StepLogScan.read(log);
    assertNull(c.tornTail());
    assertEquals(java.util.stream.LongStream.rangeClosed(2, 20).boxed().toList(), seqs(c));
    // a segment rolled for #21 and killed before its record: its header alone
    Path alone = log.resolve(String.format("%020d%s", 21, StepLog.SUFFIX));
    Files.write(alone, StepLog.header(PID));
    try (StepLog w = StepLog.create(log, PID, 1 << 20, false)) {
      assertEquals(20, w.lastSeq());
      assertTrue(Files.notExists(alone), "the header alone is gone");
      w.append(21, 21, payload(21));
    }
    assertEquals(21, StepLogScan.read(log).lastSeq());
  }

  @Test
  void aLogOfAnotherPersistenceIdIsNotTakenOver() throws Exception {
    Path log = written(2, 5, 1024);
    assertTrue(
        assertThrows(
                IllegalStateException.class,
                () -> StepLog.create(log, "parreg|other|p0", 1024, false))
            .getMessage()
            .contains(PID));
  }

  static List<Long> seqs(StepLogScan.Contents c) {
    return c.records().stream().map(StepLogScan.Record::sequenceNr).toList();
  }

  @Test
  void aRecordCutShortAtTheEndIsATornTail() throws Exception {
    Path log = written(2, 20, 1 << 20);
    Path segment = StepLogScan.segments(log).get(0);
    long size = Files.size(segment);
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(size - 5); // inside the payload of #20
    }
    StepLogScan.Contents c = StepLogScan.read(log);
    assertEquals(19, c.lastSeq());
    assertTrue(c.tornTail().contains("#20"), c.tornTail());
    try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
      f.setLength(size - payload(20).length - StepLog.RECORD_HEADER + 7); // inside its header
    }
    assertEquals(19, StepLogScan.read(log).lastSeq());
    assertTrue(StepLogScan.read(log).tornTail() != null);
  }

  @Test
  void aRecordCutShortBeforeTheLastSegmentIsDamage() throws Exception {
    Path log = written(2, 40, 512);
    Path first = StepLogScan.segments(log).get(0);
    try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
      f.setLength(Files.size(first) - 3);
    }
    String m = damage(log);
    assertTrue(m.contains("ends inside record"), m);
  }

  @Test
  void damageInTheMiddleIsNamedBySequenceNumber() throws Exception {
    Path log = written(2, 20, 1 << 20);
    Path segment = StepLogScan.segments(log).get(0);
    byte[] bytes = Files.readAllBytes(segment);
    int at = StepLog.header(PID).length;
    for (long s = 2; s < 10; s++) {
      at += StepLog.RECORD_HEADER + payload(s).length;
    }
    // #10's payload, then its header's sequence number
    bytes[at + StepLog.RECORD_HEADER + 3] ^= 4;
    Files.write(segment, bytes);
    String m = damage(log);
    assertTrue(m.contains("damaged at #10") && m.contains("payload"), m);
    bytes[at + StepLog.RECORD_HEADER + 3] ^= 4;
    bytes[at + 6] ^= 1;
    Files.write(segment, bytes);
    m = damage(log);
    assertTrue(m.contains("damaged at #10") && m.contains("header"), m);
  }

  @Test
  void aGapIsNamed() throws Exception {
    Path log = written(2, 40, 512);
    List<Path> segments = StepLogScan.segments(log);
    assertTrue(segments.size() >= 3);
    long missing =
        StepLogScan.read(log).records().stream()
            .filter(r -> r.sequenceNr() >= firstSeq(segments.get(1)))
            .findFirst()
            .orElseThrow()
            .sequenceNr();
    Files.delete(segments.get(1));
    String m = damage(log);
    assertTrue(m.contains("damaged at #" + missing) && m.contains("is missing"), m);
  }

  @Test
  void aRepeatedSequenceNumberIsNamed() throws Exception {
    Path log = written(2, 40, 512);
    List<Path> segments = StepLogScan.segments(log);
    // The second segment once more, under a later name: its records repeat.
    Path again = log.resolve(String.format("%020d%s", 999, StepLog.SUFFIX));
    Files.copy(segments.get(1), again);
    Files.delete(segments.get(segments.size() - 1));
    String m = damage(log);
    assertTrue(m.contains("damaged at #" + firstSeq(segments.get(1))) && m.contains("repeats"), m);
  }

  @Test
  void aSegmentOfAnotherPersistenceIdIsDamage() throws Exception {
    Path log = written(2, 10, 1 << 20);
    try (StepLog w = StepLog.create(dir.resolve("other"), "parreg|run|p1", 1 << 20, false)) {
      w.append(11, 11, payload(11));
    }
    Files.move(
        StepLogScan.segments(dir.resolve("other")).get(0),
        log.resolve(String.format("%020d%s", 11, StepLog.SUFFIX)));
    String m = damage(log);
    assertTrue(m.contains("belongs to parreg|run|p1"), m);
  }

  @Test
  void appendsFollowEachOther() throws Exception {
    try (StepLog w = StepLog.create(dir.resolve("l"), PID, 1024, false)) {
      w.append(5, 0, payload(5));
      assertThrows(IllegalArgumentException.class, () -> w.append(7, 0, payload(7)));
      assertThrows(IllegalArgumentException.class, () -> w.append(5, 0, payload(5)));
    }
  }

  static long firstSeq(Path segment) {
    String n = segment.getFileName().toString();
    return Long.parseLong(n.substring(0, n.length() - StepLog.SUFFIX.length()));
  }
}
