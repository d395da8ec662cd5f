package parreg.cli;

import java.nio.file.Path;
import parreg.persistence.JournalLocation;

/**
 * A command's {@code --journal} value with its {@code --journal-password-file}, parsed into a
 * {@link JournalLocation}: a bad value is a {@link UserError} (exit 2) whose message shows the
 * value without its secrets, and what the user should know about the credentials (a password file
 * ignored for its mode) goes to standard error.
 */
final class JournalOption {
  /** The help line of {@code --journal-password-file}, the same on every command. */
  static final String PASSWORD_FILE_HELP =
      "file whose first line is the PostgreSQL journal's password (mode 0600: the owner's alone),"
          + " instead of password= in the URL, which the process list shows; PGPASSWORD and"
          + " ~/.pgpass (or PGPASSFILE) are read too";

  private JournalOption() {}

  static JournalLocation parse(String journal, Path passwordFile) {
    JournalLocation location;
    try {
      location = JournalLocation.parse(journal, passwordFile);
    } catch (IllegalArgumentException e) {
      throw new UserError(message(e));
    }
    for (String w : location.warnings()) {
      System.err.println("parreg: warning: " + w);
    }
    return location;
  }

  /** A parse failure as one line: the option it is about first. */
  static String message(IllegalArgumentException e) {
    String m = e.getMessage();
    return m.startsWith("--journal") ? m : "--journal: " + m;
  }

  /**
   * A reader's failure to open or read a journal database: a database that does not answer
   * (PostgreSQL down or unreachable: SQLSTATE class 08) is a runtime failure, exit 1, that the same
   * command overcomes once it is back; anything else it says is the user's to fix, exit 2.
   */
  static RuntimeException readFailure(String what, java.sql.SQLException e) {
    if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
      return new IllegalStateException(
          what
              + ": "
              + e.getMessage()
              + " (the database does not answer; the same command reads it once it is back)",
          e);
    }
    return new UserError(what + ": " + e.getMessage());
  }
}
