package parreg.persistence;

/**
 * A journal row that {@link JournalRows} cannot turn into an object, or that breaks its persistence
 * id's chain: written by another serializer, a payload the codec refuses (a checksum that does not
 * match, say), or an event missing, moved or changed ({@link ChainCheck}). The message names the
 * persistence id and sequence number; {@link #sequenceNr()} is that number.
 */
public final class JournalReadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long sequenceNr;

  public JournalReadException(String message) {
    this(message, -1, null);
  }

  public JournalReadException(String message, Throwable cause) {
    this(message, -1, cause);
  }

  public JournalReadException(String message, long sequenceNr, Throwable cause) {
    super(message, cause);
    this.sequenceNr = sequenceNr;
  }

  /** The sequence number of the first bad row, or -1 when not known. */
  public long sequenceNr() {
    return sequenceNr;
  }
}
