package parreg.persistence;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The step log of an embedded H2 journal (issue 13 item 6): a small append-only file beside the
 * database ({@link JournalLocation#stepLogDirectory}). Under {@code --sync-commit} it acknowledges
 * a step, so that the H2 journal can be written behind in groups as in the default mode (every step
 * was one H2 commit, and each commit is a ~19 KB chunk that H2 keeps 45 s: 97 MB of file for 0.91
 * MB of rows after 5,000 steps; BENCHMARKS.md, "Journal size"). In the default mode it guards each
 * H2 write, which can lose its last acknowledged commits on a kill once H2 reuses file space. A
 * record here is ~100 bytes for the seed run.
 *
 * <p>Layout: segments named {@code %020d.steplog} after the sequence number of their first record.
 *
 * <pre>
 *   segment header: 8 bytes "PRGSTEPL", int format version 1, short n, n bytes persistence id
 *                   (UTF-8), int CRC32C of the header's bytes before it
 *   record:         int payload length, long sequence number, long write time (epoch ms),
 *                   int CRC32C of those 20 bytes, int CRC32C of the payload, the payload
 * </pre>
 *
 * The payload is the event's journal envelope ({@link JournalEnvelope}: the bytes the journal
 * stores, with their own checksum and link), so the chain carries through the log into the journal.
 * The write time is what {@code history} shows for a step re-journaled from the log. The header has
 * a checksum of its own so that a record cut short at the end (a kill or a full disk mid-append:
 * never acknowledged) is told apart from a damaged length field ({@link StepLogScan}).
 *
 * <p>Durability: a record is written with one {@code write} before {@link #append} returns, so an
 * acknowledged step survives a process crash (kill -9); with {@code fsync} each append is also
 * forced to the device ({@code FileChannel.force(false)}), so it survives power loss. H2 with
 * {@code WRITE_DELAY=0} promises the first only: it writes each commit but does not fsync it.
 *
 * <p>Segments roll at {@code segmentBytes}; {@link #release} deletes the segments whose every
 * record the H2 journal holds. One writer: the node, which also holds the H2 database open (H2's
 * file lock keeps a second process away from both). Not thread-safe.
 */
public final class StepLog implements AutoCloseable {
  static final String SUFFIX = ".steplog";
  static final byte[] MAGIC = "PRGSTEPL".getBytes(StandardCharsets.US_ASCII);
  static final int FORMAT = 1;

  /** length, sequence number, write time, header CRC, payload CRC. */
  static final int RECORD_HEADER = 4 + 8 + 8 + 4 + 4;

  private record Segment(Path path, long lastSeq, long size) {}

  private final Path dir;
  private final byte[] segmentHeader;
  private final long segmentBytes;
  private final boolean fsync;
  private final ArrayDeque<Segment> full = new ArrayDeque<>();

  private FileChannel active;
  private Path activePath;
  private long activeSize;
  private long activeLast;
  private long lastSeq = -1;
  private long bytes;

  private StepLog(Path dir, String persistenceId, long segmentBytes, boolean fsync) {
    this.dir = dir;
    this.segmentHeader = header(persistenceId);
    this.segmentBytes = segmentBytes;
    this.fsync = fsync;
  }

  /**
   * The step log of {@code persistenceId} in {@code dir}: a new, empty one, or the one a start left
   * there, taken over. A start moves the records the journal lacks into it ({@link StepLogDrain})
   * and keeps the log when it moved any: H2 acknowledged them but may still lose them on a kill
   * until its store header covers them ({@link H2Durability}), so they are released like this
   * process's own records, and appends continue after the last of them. A record cut short at the
   * end (never acknowledged) is cut off, a segment without records deleted.
   *
   * @throws IllegalStateException when {@code dir} holds records of another persistence id
   * @throws JournalReadException when the log there is damaged
   */
  public static StepLog create(Path dir, String persistenceId, long segmentBytes, boolean fsync)
      throws IOException {
    Files.createDirectories(dir);
    StepLog log = new StepLog(dir, persistenceId, segmentBytes, fsync);
    if (!StepLogScan.segments(dir).isEmpty()) {
      log.adopt(persistenceId);
    }
    return log;
  }

  private void adopt(String persistenceId) throws IOException {
    StepLogScan.Contents c = StepLogScan.read(dir);
    if (c.persistenceId() != null && !c.persistenceId().equals(persistenceId)) {
      throw new IllegalStateException(
          "step log " + dir + " holds records of " + c.persistenceId() + ", not " + persistenceId);
    }
    List<Path> segments = StepLogScan.segments(dir);
    List<StepLogScan.Record> records = c.records();
    int next = 0;
    for (int i = 0; i < segments.size(); i++) {
      Path path = segments.get(i);
      long end =
          i + 1 < segments.size() ? StepLogScan.firstSeqOf(segments.get(i + 1)) - 1 : c.lastSeq();
      long length = segmentHeader.length;
      long last = -1;
      while (next < records.size() && records.get(next).sequenceNr() <= end) {
        length += RECORD_HEADER + records.get(next).payload().length;
        last = records.get(next).sequenceNr();
        next++;
      }
      if (last < 0) {
        Files.delete(path); // a header alone (rolled, then killed): nothing to keep
        continue;
      }
      if (Files.size(path) > length) {
        try (FileChannel f = FileChannel.open(path, StandardOpenOption.WRITE)) {
          f.truncate(length); // the torn tail: a record never acknowledged
        }
      }
      full.addLast(new Segment(path, last, length));
      bytes += length;
      lastSeq = last;
    }
  }

  /**
   * Appends one record; the step is acknowledged when this returns. Sequence numbers follow each
   * other. A failed write (a full disk) is cut off again where possible and thrown: what it left at
   * the end is a record cut short, which readers ignore and the next start removes.
   */
  public void append(long sequenceNr, long writtenAtMillis, byte[] payload) throws IOException {
    appendAll(sequenceNr, writtenAtMillis, List.of(payload));
  }

  /**
   * Appends the records {@code firstSeq}, {@code firstSeq + 1}, ... with one {@code write} per
   * segment they fill (one, unless a segment rolls among them), each forced when {@code fsync}: a
   * guarded journal write of a few hundred steps costs one system call, not one a step. When this
   * returns every record is in the log; when it throws (a full disk) the records of the failed
   * write are cut off again where possible, so that the log ends at a whole record or at one cut
   * short, and the records written to segments before it stay (whole, in order).
   */
  public void appendAll(long firstSeq, long writtenAtMillis, List<byte[]> payloads)
      throws IOException {
    if (payloads.isEmpty()) {
      return;
    }
    if (lastSeq >= 0 && firstSeq != lastSeq + 1) {
      throw new IllegalArgumentException(
          "step log record #" + firstSeq + " after #" + lastSeq + ": sequence numbers follow");
    }
    int from = 0;
    while (from < payloads.size()) {
      long seq = firstSeq + from;
      int size0 = RECORD_HEADER + payloads.get(from).length;
      if (active == null || (activeSize + size0 > segmentBytes && activeLast > 0)) {
        roll(seq);
      }
      // the records that fit this segment (at least one: a record larger than a segment has one
      // of its own)
      int to = from + 1;
      long chunk = size0;
      while (to < payloads.size()
          && activeSize + chunk + RECORD_HEADER + payloads.get(to).length <= segmentBytes) {
        chunk += RECORD_HEADER + payloads.get(to).length;
        to++;
      }
      writeChunk(seq, writtenAtMillis, payloads.subList(from, to), (int) chunk);
      from = to;
    }
  }

  private void writeChunk(long firstSeq, long writtenAtMillis, List<byte[]> payloads, int size)
      throws IOException {
    ByteBuffer b = ByteBuffer.allocate(size);
    long seq = firstSeq;
    for (byte[] payload : payloads) {
      int at = b.position();
      b.putInt(payload.length).putLong(seq++).putLong(writtenAtMillis);
      b.putInt(crc(b.array(), at, 20)).putInt(crc(payload, 0, payload.length)).put(payload);
    }
    b.flip();
    long at = activeSize;
    try {
      while (b.hasRemaining()) {
        at += active.write(b, at);
      }
      if (fsync) {
        active.force(false);
      }
    } catch (IOException e) {
      try {
        active.truncate(activeSize);
      } catch (IOException ignored) {
        // the disk may refuse this too: then the record cut short stays, and is ignored
      }
      throw e;
    }
    activeSize += size;
    bytes += size;
    activeLast = seq - 1;
    lastSeq = seq - 1;
  }

  private void roll(long firstSeq) throws IOException {
    if (active != null) {
      active.close();
      full.addLast(new Segment(activePath, activeLast, activeSize));
    }
    activePath = dir.resolve(String.format("%020d%s", firstSeq, SUFFIX));
    active = FileChannel.open(activePath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      active.write(ByteBuffer.wrap(segmentHeader), 0);
      if (fsync) {
        active.force(false);
        forceDirectory(dir); // the new file's name must survive a power loss too
      }
    } catch (IOException e) {
      active.close();
      active = null;
      Files.deleteIfExists(activePath);
      throw e;
    }
    activeSize = segmentHeader.length;
    activeLast = 0;
    bytes += segmentHeader.length;
  }

  /**
   * Deletes every segment whose records all have sequence numbers up to {@code journaledSeq} (the
   * journal holds them), the one being appended to included.
   */
  public void release(long journaledSeq) throws IOException {
    while (!full.isEmpty() && full.peekFirst().lastSeq() <= journaledSeq) {
      Segment s = full.removeFirst();
      Files.deleteIfExists(s.path());
      bytes -= s.size();
    }
    if (active != null && full.isEmpty() && activeLast > 0 && activeLast <= journaledSeq) {
      active.close();
      active = null;
      Files.deleteIfExists(activePath);
      bytes -= activeSize;
    }
  }

  /** The bytes of the segments on disk. */
  public long bytes() {
    return bytes;
  }

  /** The sequence number of the last record appended, or -1. */
  public long lastSeq() {
    return lastSeq;
  }

  /** Closes the segment being appended to; what the log holds stays for the next start. */
  @Override
  public void close() throws IOException {
    if (active != null) {
      active.close();
      active = null;
    }
  }

  /** Deletes the step log in {@code dir}: every segment, then the directory when it is empty. */
  public static void delete(Path dir) throws IOException {
    for (Path p : StepLogScan.segments(dir)) {
      Files.deleteIfExists(p);
    }
    try (var s = Files.list(dir)) {
      if (s.findAny().isEmpty()) {
        Files.delete(dir);
      }
    } catch (java.nio.file.NoSuchFileException gone) {
      // nothing there
    }
  }

  static byte[] header(String persistenceId) {
    byte[] pid = persistenceId.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 4 + 2 + pid.length + 4);
    b.put(MAGIC).putInt(FORMAT).putShort((short) pid.length).put(pid);
    b.putInt(crc(b.array(), 0, b.position()));
    return b.array();
  }

  static int crc(byte[] bytes, int from, int length) {
    CRC32C c = new CRC32C();
    c.update(bytes, from, length);
    return (int) c.getValue();
  }

  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
