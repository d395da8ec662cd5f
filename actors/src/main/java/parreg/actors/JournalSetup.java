package parreg.actors;

import com.typesafe.config.Config;
import java.sql.SQLException;
import parreg.persistence.JournalLocation;

/** The {@code --journal} value of a node, turned into configuration and a ready schema. */
final class JournalSetup implements AutoCloseable {
  private final JournalLocation location;
  private java.sql.Connection keeper;

  private JournalSetup(JournalLocation location) {
    this.location = location;
  }

  static JournalSetup open(String value) {
    try {
      return new JournalSetup(JournalLocation.parse(value));
    } catch (IllegalArgumentException e) {
      throw new ParregNode.BadInput("--journal: " + e.getMessage());
    }
  }

  JournalLocation location() {
    return location;
  }

  /** Only the database keys of this location; the static persistence settings come from application.conf. */
  Config config() {
    return location.databaseConfig();
  }

  /**
   * Creates the journal tables when missing (a failure such as a permission problem or an
   * unreachable server is reported) and says whether the journal already holds events of this
   * persistence id, i.e. whether the node is restarting. One connection does both and, for an
   * embedded H2 database, stays open until {@link #close}: the database then stays open in this
   * process, so the journal plugin's own connections do not pay for opening the file again.
   */
  boolean prepare(String persistenceId) {
    try {
      keeper = location.openConnection();
      parreg.persistence.JournalSchema.createIfNotExists(keeper, location.dialect());
      boolean restarting =
          new parreg.persistence.JournalRows(keeper, parreg.persistence.KryoCodec.create(java.util.List.of()))
                  .highestSequenceNr(persistenceId)
              > 0;
      if (location.dialect() != parreg.persistence.JournalDialect.H2) {
        keeper.close();
        keeper = null;
      }
      return restarting;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prepare the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (keeper != null) {
      try {
        keeper.close();
      } catch (SQLException ignored) {
        // closing at shutdown: nothing left to protect
      }
    }
  }

  String describe() {
    return location.toString();
  }
}
