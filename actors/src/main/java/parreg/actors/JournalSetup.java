package parreg.actors;

import com.typesafe.config.Config;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.persistence.H2Compaction;
import parreg.persistence.JournalDialect;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalReadException;
import parreg.persistence.JournalRuns;
import parreg.persistence.JournalSchema;
import parreg.persistence.KryoCodec;

/**
 * The {@code --journal} value of a node, in two stages: {@link #inspect} reads what the journal
 * holds and decides whether this start is admitted (writing nothing), and {@link #create} creates
 * the journal and its schema once every other input has been checked as well, so that a refused
 * start leaves nothing behind.
 */
final class JournalSetup implements AutoCloseable {
  private final JournalLocation location;
  private Connection keeper;
  private H2Compaction compaction;

  private JournalSetup(JournalLocation location) {
    this.location = location;
  }

  /** @param compress compressed H2 pages (off for {@code --sync-commit}: {@link JournalLocation#parse(String, boolean)}) */
  static JournalSetup open(String value, boolean compress) {
    try {
      return new JournalSetup(JournalLocation.parse(value, compress));
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
   * What this start finds in the journal ({@link JournalRuns#admit}); writes nothing and creates
   * nothing. An embedded journal that does not exist yet holds nothing.
   *
   * @throws ParregNode.BadInput when another process holds the embedded journal
   * @throws IllegalStateException when the database cannot be read
   */
  JournalRuns.Admission inspect(RunContract contract, int participant, PartitionInfo data, boolean runNameGiven) {
    try {
      try {
        keeper = location.openExistingConnection();
      } catch (IllegalArgumentException noJournalYet) {
        return new JournalRuns.Fresh();
      } catch (IllegalStateException inUse) {
        throw new ParregNode.BadInput(inUse.getMessage());
      }
      return JournalRuns.of(keeper, KryoCodec.fromRegistrationsResource(), location)
          .admit(contract, participant, data, runNameGiven);
    } catch (SQLException | JournalReadException e) {
      throw new IllegalStateException("cannot read the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  /**
   * Creates the journal when missing and its tables (a failure such as a permission problem or an
   * unreachable server is reported). For an embedded H2 database the connection stays open until
   * {@link #close}: the database then stays open in this process, so the journal plugin's own
   * connections do not pay for opening the file again, and {@link H2Compaction} keeps its file
   * bounded, every {@code compactionInterval} rewriting at most {@code compactionBytes}.
   */
  void create(Duration compactionInterval, int compactionBytes) {
    try {
      if (keeper == null) {
        keeper = location.openConnection();
      }
      JournalSchema.createIfNotExists(keeper, location.dialect());
      if (location.dialect() != JournalDialect.H2) {
        keeper.close();
        keeper = null;
      } else {
        compaction = H2Compaction.start(keeper, compactionInterval, compactionBytes);
      }
    } catch (IllegalStateException inUse) {
      throw new ParregNode.BadInput(inUse.getMessage());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prepare the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (compaction != null) {
      compaction.close();
      compaction = null;
    }
    if (keeper != null) {
      try {
        keeper.close();
      } catch (SQLException ignored) {
        // closing at shutdown: nothing left to protect
      }
      keeper = null;
    }
  }

  String describe() {
    return location.toString();
  }
}
