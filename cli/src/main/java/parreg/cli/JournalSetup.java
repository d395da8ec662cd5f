package parreg.cli;

import com.typesafe.config.Config;
import java.sql.SQLException;
import parreg.persistence.JournalLocation;

/** The {@code --journal} value of a node, turned into configuration and a ready schema. */
final class JournalSetup {
  private final JournalLocation location;

  private JournalSetup(JournalLocation location) {
    this.location = location;
  }

  static JournalSetup open(String value) {
    try {
      return new JournalSetup(JournalLocation.parse(value));
    } catch (IllegalArgumentException e) {
      throw new UserError("--journal: " + e.getMessage());
    }
  }

  JournalLocation location() {
    return location;
  }

  /** Only the database keys of this location; the static persistence settings come from application.conf. */
  Config config() {
    return location.databaseConfig();
  }

  /** Creates the journal tables when missing; a failure (permissions, unreachable server) is reported. */
  void ensureSchema() {
    try {
      location.createSchema();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prepare the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  /** Whether the journal already holds events of this persistence id (the node is restarting). */
  boolean hasEvents(String persistenceId) {
    try (java.sql.Connection c = location.openConnection()) {
      return new parreg.persistence.JournalRows(c, parreg.persistence.KryoCodec.create(java.util.List.of()))
          .highestSequenceNr(persistenceId) > 0;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  String describe() {
    return location.toString();
  }
}
