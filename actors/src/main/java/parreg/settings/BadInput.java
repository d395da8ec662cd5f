package parreg.settings;

/** Bad deployment input (a flag, the config file, the journal): one line, exit code 2. */
public final class BadInput extends RuntimeException {
  public BadInput(String message) {
    super(message);
  }
}
