package parreg.training.journal;

import com.typesafe.config.Config;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.persistence.H2Compaction;
import parreg.persistence.H2Durability;
import parreg.persistence.JournalDialect;
import parreg.persistence.JournalErrors;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalReadException;
import parreg.persistence.JournalRuns;
import parreg.persistence.JournalSchema;
import parreg.persistence.JournalWriterLock;
import parreg.persistence.KryoCodec;
import parreg.persistence.StepLogDrain;
import parreg.settings.BadInput;
import parreg.settings.Deployment;

/**
 * The {@code --journal} value of a node, in two stages: {@link #inspect} reads what the journal
 * holds and decides whether this start is admitted (writing nothing), and {@link #create} creates
 * the journal and its schema once every other input has been checked as well, so that a refused
 * start leaves nothing behind.
 */
public final class JournalSetup implements AutoCloseable {
  private final JournalLocation location;
  private final String writerName;
  private Connection keeper;
  private final H2Durability durability = new H2Durability();
  private H2Compaction compaction;
  private JournalWriterLock writerLock;
  // What create() found, so that undoCreate() can remove exactly what this start added.
  private Path createdRoot;
  private Set<Path> filesBefore;
  private boolean created;
  private int rejournaled;

  private JournalSetup(JournalLocation location, String writerName) {
    this.location = location;
    this.writerName = writerName;
  }

  /**
   * @param passwordFile {@code --journal-password-file}, or null
   * @param writerName how this node is named to another that finds the shared journal's writer lock
   *     taken
   */
  public static JournalSetup open(String value, Path passwordFile, String writerName) {
    JournalLocation location;
    try {
      location = JournalLocation.parse(value, passwordFile);
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      throw new BadInput(m.startsWith("--journal") ? m : "--journal: " + m);
    }
    for (String w : location.warnings()) {
      System.err.println("parreg: warning: " + w);
    }
    return new JournalSetup(location, writerName);
  }

  /**
   * "parreg participant P, port N on HOST": how a node names itself in a shared journal's writer
   * lock.
   */
  public static String writerName(Deployment d) {
    String host = d.host();
    if (host == null) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        host = "this machine";
      }
    }
    return "parreg participant " + d.participant() + ", port " + d.port() + " on " + host;
  }

  public JournalLocation location() {
    return location;
  }

  /**
   * Only the database keys of this location; the static persistence settings come from
   * application.conf.
   */
  public Config config() {
    return location.databaseConfig();
  }

  /**
   * What this start finds in the journal ({@link JournalRuns#admit}); writes nothing and creates
   * nothing. An embedded journal that does not exist yet holds nothing. In a shared database this
   * node first becomes the one writer of its persistence id ({@link JournalWriterLock}, held until
   * {@link #close}).
   *
   * @throws BadInput when another process holds the embedded journal, or another node writes this
   *     persistence id in the shared one
   * @throws IllegalStateException when the database cannot be read
   */
  public JournalRuns.Admission inspect(
      RunContract contract, int participant, PartitionInfo data, boolean runNameGiven) {
    try {
      if (location.dialect() == JournalDialect.POSTGRES) {
        try {
          writerLock =
              JournalWriterLock.acquire(
                  location, JournalRuns.persistenceId(contract.runName(), participant), writerName);
        } catch (JournalWriterLock.HeldException held) {
          throw new BadInput(held.getMessage());
        }
      }
      try {
        keeper = location.openExistingConnection();
      } catch (IllegalArgumentException noJournalYet) {
        return new JournalRuns.Fresh();
      } catch (IllegalStateException inUse) {
        throw new BadInput(inUse.getMessage());
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
  public void create(Duration compactionInterval, int compactionBytes) {
    location.directory().ifPresent(this::noteBeforeCreate);
    try {
      if (keeper == null) {
        keeper = location.openConnection();
      }
      JournalSchema.createIfNotExists(keeper, location.dialect());
      if (location.dialect() != JournalDialect.H2) {
        keeper.close();
        keeper = null;
      } else {
        // A kill (or H2 losing acknowledged commits) leaves steps in the step log that the
        // journal lacks: they go into the journal now, before recovery replays it, whatever this
        // start's mode; the log keeps them until H2's header covers them (H2Durability).
        rejournaled = StepLogDrain.drain(keeper, KryoCodec.fromRegistrationsResource(), location);
        durability.attach(keeper);
        compaction = H2Compaction.start(keeper, compactionInterval, compactionBytes);
      }
      created = true;
    } catch (IllegalStateException inUse) {
      throw new BadInput(inUse.getMessage());
    } catch (IOException | JournalReadException e) {
      throw new IllegalStateException(
          "cannot move the step log into the journal at " + location + ": " + e.getMessage(), e);
    } catch (SQLException e) {
      if (JournalErrors.isDiskFull(e)) {
        // One line, as a full disk during the run says it (H2's own message names only the file).
        throw new IllegalStateException(
            "journal disk full while creating the journal: "
                + location
                + " (no space left on device); free space and start the node again",
            e);
      }
      throw new IllegalStateException(
          "cannot prepare the journal at " + location + ": " + e.getMessage(), e);
    }
  }

  /**
   * Whether {@link #undoCreate} can remove what {@link #create} adds: only for the directory form
   * of an embedded H2 journal, whose files this process alone holds. A shared database's tables are
   * not undone, so there the journal is created only once nothing else can fail.
   */
  public boolean undoable() {
    return location.dialect() == JournalDialect.H2 && location.directory().isPresent();
  }

  private void noteBeforeCreate(Path dir) {
    Path root = null;
    for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
      root = p;
    }
    createdRoot = root;
    filesBefore = new HashSet<>();
    if (root == null) {
      try (Stream<Path> s = Files.list(dir)) {
        s.forEach(filesBefore::add);
      } catch (IOException e) {
        filesBefore = null; // cannot tell what is new: undo removes nothing
      }
    }
  }

  /**
   * Closes the journal and removes what {@link #create} added to an embedded journal's directory
   * (the directories it created, else the files that were not there): a start that fails after the
   * journal was created concurrently with the actor system leaves nothing behind. Files that
   * existed before (a journal being restarted) are kept as they were.
   */
  public void undoCreate() {
    close();
    // Only after a create that succeeded: one that failed (another process took the journal in the
    // meantime) added nothing of this process's, and the files there may be that process's.
    if (!created || !undoable() || (createdRoot == null && filesBefore == null)) {
      return;
    }
    Path dir = location.directory().orElseThrow();
    try {
      if (createdRoot != null) {
        deleteTree(createdRoot);
      } else {
        try (Stream<Path> s = Files.list(dir)) {
          for (Path f : s.filter(f -> !filesBefore.contains(f)).toList()) {
            deleteTree(f);
          }
        }
      }
    } catch (IOException e) {
      System.err.println(
          "parreg: could not remove the journal files this start created in "
              + dir
              + ": "
              + e.getMessage());
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> s = Files.walk(root)) {
      for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
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

  public String describe() {
    return location.toString();
  }

  /**
   * Which commits of the embedded H2 journal a kill can no longer take back (attached by {@link
   * #create}); the step log keeps what it does not cover.
   */
  public H2Durability durability() {
    return durability;
  }

  /** How many steps {@link #create} moved from the step log into the journal. */
  public int rejournaled() {
    return rejournaled;
  }
}
