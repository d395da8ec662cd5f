package parreg.device;

/** The requested backend or device cannot be used; the message says why and what was found. */
public class BackendUnavailableException extends Exception {
  public BackendUnavailableException(String message) {
    super(message);
  }

  public BackendUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
