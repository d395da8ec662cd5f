package parreg.persistence;

import java.util.Objects;

/**
 * An event or snapshot in its journal envelope ({@link JournalEnvelope}): the value, the format
 * version its bytes were read from or written in, its link (the chain hash of the event before it
 * in its persistence id; {@link JournalEnvelope#GENESIS} for the first) and the chain hash of its
 * own stored bytes, which the next event links to.
 *
 * <p>Written: the training actor's journal wraps each event with the link it knows, and the
 * serializer stores {@link #payload()} as computed here. Read: the serializer (and {@link
 * JournalRows}) return one for every version-2 payload, the checksum already checked; a version-1
 * payload has no link ({@link #linked()} false). {@code value} is null where only the envelope was
 * read ({@link JournalEnvelope#check}).
 */
public record Chained(int version, Object value, long link, long hash, byte[] payload) {
  public Chained {
    Objects.requireNonNull(payload, "payload");
  }

  /** Whether the payload carries a checksum and a link (format version 2 and later). */
  public boolean linked() {
    return version >= JournalEnvelope.VERSION;
  }

  /** Whether this event may follow one whose chain hash is {@code previousHash}. */
  public boolean follows(long previousHash) {
    return !linked() || link == previousHash;
  }
}
