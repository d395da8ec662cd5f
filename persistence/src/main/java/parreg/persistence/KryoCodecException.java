package parreg.persistence;

/**
 * A payload that {@link KryoCodec} refuses to write or read: an unregistered class, an unknown
 * class id, an unsupported format version, a truncated or over-long payload, or a registration
 * table that is not valid.
 */
public final class KryoCodecException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public KryoCodecException(String message) {
    super(message);
  }

  public KryoCodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
