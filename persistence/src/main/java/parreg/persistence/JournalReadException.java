package parreg.persistence;

/**
 * A journal row that {@link JournalRows} cannot turn into an object: written by another
 * serializer, or a payload the codec refuses. The message names the persistence id and sequence
 * number.
 */
public final class JournalReadException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public JournalReadException(String message) {
    super(message);
  }

  public JournalReadException(String message, Throwable cause) {
    super(message, cause);
  }
}
