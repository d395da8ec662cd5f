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
import parreg.persistence.JournalWriterLock;
import parreg.persistence.KryoCodec;

/**
 * The {@code --journal} value of a node, in two stages: {@link #inspect} reads what the journal
 * holds and decides whether this start is admitted (writing nothing), and {@link #create} creates
 * the journal and its schema once every other input has been checked as well, so that a refused
 * start leaves nothing behind.
 */
final class JournalSetup implements AutoCloseable {
  private final JournalLocation location;
  private final String writerName;
  private Connection keeper;
  private H2Compaction compaction;
  private JournalWriterLock writerLock;

  private JournalSetup(JournalLocation location, String writerName) {
    this.location = location;
    this.writerName = writerName;
  }

  /**
   * @param writerName how this node is named to another that finds the shared journal's writer lock
   *     taken
   * @param compress compressed H2 pages (off for {@code --sync-commit}: {@link
   *     JournalLocation#parse(String, boolean)})
   */
  static JournalSetup open(String value, String writerName, boolean compress) {
    try {
      return new JournalSetup(JournalLocation.parse(value, compress), writerName);
    } catch (IllegalArgumentException e) {
      throw new ParregNode.BadInput("--journal: " + e.getMessage());
    }
  }

  /**
   * "parreg participant P, port N on HOST": how a node names itself in a shared journal's writer
   * lock.
   */
  static String writerName(ParregNode.Deployment d) {
    String host = d.host();
    if (host == null) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException e) {
        host = "this machine";
      }
    }
    return "parreg participant " + d.participant() + ", port " + d.port() + " on " + host;
  }

  JournalLocation location() {
    return location;
  }

  /**
   * Only the database keys of this location; the static persistence settings come from
   * application.conf.
   */
  Config config() {
    return location.databaseConfig();
  }

  /**
   * What this start finds in the journal ({@link JournalRuns#admit}); writes nothing and creates
   * nothing. An embedded journal that does not exist yet holds nothing. In a shared database this
   * node first becomes the one writer of its persistence id ({@link JournalWriterLock}, held until
   * {@link #close}).
   *
   * @throws ParregNode.BadInput when another process holds the embedded journal, or another node
   *     writes this persistence id in the shared one
   * @throws IllegalStateException when the database cannot be read
   */
  JournalRuns.Admission inspect(
      RunContract contract, int participant, PartitionInfo data, boolean runNameGiven) {
    try {
      if (location.dialect() == JournalDialect.POSTGRES) {
        try {
          writerLock =
              JournalWriterLock.acquire(
                  location, JournalRuns.persistenceId(contract.runName(), participant), writerName);
        } catch (JournalWriterLock.HeldException held) {
          throw new ParregNode.BadInput(held.getMessage());
        }
      }
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
      throw new IllegalStateException(
          "cannot read the journal at " + location + ": " + e.getMessage(), e);
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
      throw new IllegalStateException(
          "cannot prepare the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (writerLock != null) {
      writerLock.close();
      writerLock = null;
    }
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
