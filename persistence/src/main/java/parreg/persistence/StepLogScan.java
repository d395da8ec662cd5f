package parreg.persistence;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads a {@link StepLog} back and tells a torn tail from damage.
 *
 * <ul>
 *   <li><b>Torn tail</b>: the last segment ends inside a record (or inside its header, or in zeros
 *       a power loss may leave): a kill or a full disk mid-append. That record was never
 *       acknowledged: it is left out ({@link Contents#tornTail}), and the next start removes it.
 *   <li><b>Damage</b>: a record whose header or payload fails its CRC32C, a record cut short that
 *       is not at the very end of the last segment, a sequence number skipped or repeated, a bad
 *       segment header, segments of two persistence ids. Thrown as {@link JournalReadException}
 *       naming the first bad sequence number (for a bad header: the number the record should have
 *       had).
 * </ul>
 */
public final class StepLogScan {
  private StepLogScan() {}

  /** One record: the sequence number, its write time and the event's journal envelope. */
  public record Record(long sequenceNr, long writtenAtMillis, byte[] payload) {}

  /**
   * What a step log holds.
   *
   * @param persistenceId whose records they are, null when there are none
   * @param records in sequence order, contiguous
   * @param tornTail what was left out at the end, or null
   */
  public record Contents(
      Path directory, String persistenceId, List<Record> records, String tornTail) {
    static Contents empty(Path directory) {
      return new Contents(directory, null, List.of(), null);
    }

    /** The sequence number of the last record, or 0. */
    public long lastSeq() {
      return records.isEmpty() ? 0 : records.get(records.size() - 1).sequenceNr();
    }

    /** The records of {@code persistenceId} after {@code afterSeq}. */
    public List<Record> after(String pid, long afterSeq) {
      if (!pid.equals(persistenceId)) {
        return List.of();
      }
      return records.stream().filter(r -> r.sequenceNr() > afterSeq).toList();
    }
  }

  /**
   * The segment files of the log in {@code dir}, in order; none when there is no such directory.
   */
  public static List<Path> segments(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.getFileName().toString().endsWith(StepLog.SUFFIX)).sorted().toList();
    } catch (NoSuchFileException gone) {
      return List.of();
    }
  }

  /**
   * Reads every segment of the log in {@code dir} (none: empty contents).
   *
   * @throws JournalReadException naming the first bad sequence number (see the class comment)
   */
  public static Contents read(Path dir) throws IOException {
    List<Path> segments = segments(dir);
    String pid = null;
    List<Record> records = new ArrayList<>();
    String torn = null;
    for (int i = 0; i < segments.size(); i++) {
      Path file = segments.get(i);
      boolean last = i == segments.size() - 1;
      byte[] bytes = Files.readAllBytes(file);
      long named = firstSeqOf(file);
      long expected = records.isEmpty() ? named : records.get(records.size() - 1).sequenceNr() + 1;
      ByteBuffer b = ByteBuffer.wrap(bytes);
      int headerLength = StepLog.MAGIC.length + 4 + 2;
      if (bytes.length < headerLength || allZero(bytes, 0)) {
        if (last) {
          torn = "segment " + file.getFileName() + " ends inside its header";
          break;
        }
        throw damage(dir, file, expected, "the segment ends inside its header");
      }
      int pidLength = Short.toUnsignedInt(b.getShort(StepLog.MAGIC.length + 4));
      int end = headerLength + pidLength + 4;
      if (bytes.length < end) {
        if (last) {
          torn = "segment " + file.getFileName() + " ends inside its header";
          break;
        }
        throw damage(dir, file, expected, "the segment ends inside its header");
      }
      if (!Arrays.equals(bytes, 0, StepLog.MAGIC.length, StepLog.MAGIC, 0, StepLog.MAGIC.length)
          || b.getInt(StepLog.MAGIC.length) != StepLog.FORMAT
          || b.getInt(end - 4) != StepLog.crc(bytes, 0, end - 4)) {
        throw damage(dir, file, expected, "its segment header is damaged (magic, version or CRC)");
      }
      String segmentPid = new String(bytes, headerLength, pidLength, StandardCharsets.UTF_8);
      if (pid != null && !pid.equals(segmentPid)) {
        throw damage(
            dir, file, expected, "the segment belongs to " + segmentPid + ", the log to " + pid);
      }
      pid = segmentPid;
      int at = end;
      while (at < bytes.length) {
        expected = records.isEmpty() ? named : records.get(records.size() - 1).sequenceNr() + 1;
        int left = bytes.length - at;
        if (left < StepLog.RECORD_HEADER || allZero(bytes, at)) {
          if (last) {
            torn = "a record cut short at the end of " + file.getFileName();
            break;
          }
          throw damage(dir, file, expected, "the segment ends inside a record");
        }
        int length = b.getInt(at);
        long seq = b.getLong(at + 4);
        long time = b.getLong(at + 12);
        if (b.getInt(at + 20) != StepLog.crc(bytes, at, 20) || length < 0) {
          throw damage(dir, file, expected, "a record header fails its CRC32C");
        }
        if (left < StepLog.RECORD_HEADER + length) {
          if (last) {
            torn = "record #" + seq + " cut short at the end of " + file.getFileName();
            break;
          }
          throw damage(dir, file, seq, "the segment ends inside record #" + seq);
        }
        int payloadAt = at + StepLog.RECORD_HEADER;
        if (b.getInt(at + 24) != StepLog.crc(bytes, payloadAt, length)) {
          throw damage(dir, file, seq, "record #" + seq + "'s payload fails its CRC32C");
        }
        if (!records.isEmpty() && seq != expected) {
          throw damage(
              dir,
              file,
              Math.min(seq, expected),
              seq < expected
                  ? "record #" + seq + " repeats (#" + (expected - 1) + " came before it)"
                  : "record #" + expected + " is missing: the next record is #" + seq);
        }
        records.add(
            new Record(seq, time, Arrays.copyOfRange(bytes, payloadAt, payloadAt + length)));
        at = payloadAt + length;
      }
    }
    return new Contents(dir, records.isEmpty() ? null : pid, List.copyOf(records), torn);
  }

  /** The sequence number a segment is named after (its first record's), or -1. */
  static long firstSeqOf(Path file) {
    String name = file.getFileName().toString();
    try {
      return Long.parseLong(name.substring(0, name.length() - StepLog.SUFFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static boolean allZero(byte[] bytes, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static JournalReadException damage(Path dir, Path file, long seq, String what) {
    return new JournalReadException(
        "step log " + dir + " is damaged at #" + seq + " (" + file.getFileName() + "): " + what,
        seq,
        null);
  }
}
