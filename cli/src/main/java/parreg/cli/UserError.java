package parreg.cli;

/** Bad usage or bad input: printed as one line, exit code 2 (SPEC section 4). */
public class UserError extends RuntimeException {
  public UserError(String message) {
    super(message);
  }

  public UserError(String message, Throwable cause) {
    super(message, cause);
  }
}
