package parreg.persistence;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;

/**
 * The one place that knows which runs a journal holds and what a node's start means for it (SPEC
 * section 7): how persistence ids are formed ({@code parreg|RUN|pP}), which run a reader ({@code
 * predict}, {@code export}) means, and the rule "one node journal, one run".
 *
 * <p>The rule, checked by {@link #admit} before a node writes anything:
 *
 * <ul>
 *   <li>The journal already holds this run for this participant: a restart. The contract must be
 *       the one recorded in the run's opening event, and this participant's data the one in its
 *       roster; otherwise the start is refused, naming the first differing field.
 *   <li>An embedded (node) journal holding another run, or a run of another participant: refused,
 *       naming the first field in which the start differs from that run, unless the run name was
 *       given explicitly (a new run in the same journal is then intended).
 *   <li>A shared database holds many runs; only the same run name matters there: another
 *       participant's opening event of the same run must carry the same contract.
 *   <li>Otherwise: a fresh run.
 * </ul>
 *
 * <p>Reads with plain JDBC through {@link JournalRows}; writes nothing. Does not own the
 * connection.
 */
public final class JournalRuns {

  private static final String PREFIX = "parreg|";
  private static final String PARTICIPANT_MARK = "|p";

  /**
   * The event that opens every run's journal (the training actor's {@code RunStarted}) exposes what
   * the run was started with, so that this layer can read it without knowing the actors.
   */
  public interface Opening {
    RunContract contract();

    PartitionInfo[] roster();
  }

  /**
   * One run of one participant found in a journal.
   *
   * @param contract what its opening event records, or null when its first event is not an opening
   *     (a journal this version does not understand)
   */
  public record Run(
      String persistenceId,
      String runName,
      int participant,
      long highestSequenceNr,
      RunContract contract,
      PartitionInfo[] roster) {}

  /** What a node's start finds in its journal. */
  public sealed interface Admission permits Fresh, Restart, Refused {}

  /** Nothing of this run for this participant yet: the node starts the run. */
  public record Fresh() implements Admission {}

  /** The journal holds this run for this participant up to {@code highestSequenceNr}. */
  public record Restart(long highestSequenceNr) implements Admission {}

  /**
   * The start must not proceed.
   *
   * @param field the first differing contract field, or {@code participant} or {@code data}
   * @param message one line naming the journal, the run and the difference
   * @param anotherRun whether the journal holds another run of this participant, which a start
   *     under a new, explicitly given run name would leave alone
   */
  public record Refused(String field, String message, boolean anotherRun) implements Admission {}

  private final Connection connection;
  private final RunEvents events;
  private final JournalRows rows;
  private final boolean shared;
  private final String journal;

  /**
   * @param shared whether the database is shared by many nodes and runs (PostgreSQL) rather than
   *     one node's own journal (embedded H2)
   * @param journal how to name the journal in messages
   */
  public JournalRuns(Connection connection, KryoCodec codec, boolean shared, String journal) {
    this(connection, codec, shared, journal, null);
  }

  /**
   * @param stepLog the journal's step log directory ({@link JournalLocation#stepLogDirectory}), or
   *     null
   */
  public JournalRuns(
      Connection connection, KryoCodec codec, boolean shared, String journal, Path stepLog) {
    this.connection = Objects.requireNonNull(connection, "connection");
    this.events = new RunEvents(connection, codec, stepLog);
    this.rows = events.rows();
    this.shared = shared;
    this.journal = Objects.requireNonNull(journal, "journal");
  }

  /** For a location: shared exactly when it is PostgreSQL. */
  public static JournalRuns of(Connection connection, KryoCodec codec, JournalLocation location) {
    return new JournalRuns(
        connection,
        codec,
        location.dialect() == JournalDialect.POSTGRES,
        "journal " + location.display(),
        location.stepLogDirectory().orElse(null));
  }

  /**
   * The persistence id of a run's participant: unique per run name and participant, stable across
   * restarts.
   */
  public static String persistenceId(String runName, int participant) {
    return PREFIX + runName + PARTICIPANT_MARK + participant;
  }

  /**
   * Decides whether a node may start {@code contract} as {@code participant} with {@code data} on
   * this journal (see the class comment). Reads only.
   *
   * @param runNameGiven whether the run name was named explicitly rather than defaulted
   * @throws JournalReadException when an opening event does not decode, or this participant's run
   *     fails its checksums or chain (naming the first bad sequence number)
   */
  public Admission admit(
      RunContract contract, int participant, PartitionInfo data, boolean runNameGiven)
      throws SQLException {
    if (!rows.hasJournalTable()) {
      return new Fresh();
    }
    String runName = contract.runName();
    Optional<Run> own = run(persistenceId(runName, participant));
    if (own.isPresent()) {
      // Recovery replays from the latest snapshot: what lies before it is checked here, cheaply
      // (checksums and links), so damage anywhere in the run (its step log included) stops the
      // start.
      events.checkChain(own.get().persistenceId(), own.get().highestSequenceNr());
      return restart(own.get(), contract, participant, data);
    }
    if (shared) {
      for (Run r : sameRunOtherParticipants(runName, contract.participants(), participant)) {
        Optional<String> diff =
            r.contract() == null ? Optional.empty() : difference(r.contract(), contract, false);
        if (diff.isPresent()) {
          return new Refused(
              fieldOf(diff.get()),
              journal
                  + " holds run '"
                  + runName
                  + "' started by participant "
                  + r.participant()
                  + " with another contract: "
                  + diff.get(),
              false);
        }
      }
      return new Fresh();
    }
    List<Run> others = runs();
    boolean nameTaken = others.stream().anyMatch(r -> r.runName().equals(runName));
    if (others.isEmpty() || (runNameGiven && !nameTaken)) {
      return new Fresh();
    }
    // A node journal belongs to one run and one participant: anything else there means a reused
    // directory or flags that changed the default run name, unless a new run was named on purpose.
    Run ref =
        others.stream()
            .filter(r -> r.runName().equals(runName))
            .findFirst()
            .or(() -> others.stream().filter(r -> r.participant() == participant).findFirst())
            .orElse(others.get(0));
    if (ref.participant() != participant) {
      return new Refused(
          "participant",
          journal
              + " holds run '"
              + ref.runName()
              + "' of participant "
              + ref.participant()
              + ": participant "
              + ref.participant()
              + " there, "
              + participant
              + " given (each node has a journal of its own)",
          false);
    }
    Optional<String> diff =
        ref.contract() == null ? Optional.empty() : difference(ref.contract(), contract, true);
    String d =
        diff.orElse("runName: '" + ref.runName() + "' in the journal, '" + runName + "' given");
    return new Refused(
        fieldOf(d),
        journal
            + " holds another run of participant "
            + participant
            + ", '"
            + ref.runName()
            + "', which differs in "
            + d,
        true);
  }

  /**
   * The persistence id of {@code participant}'s run in this journal, for readers: the one run
   * there, or the one named {@code runName} (null: not named).
   *
   * @throws IllegalArgumentException naming the problem when there is none, or several and no name
   */
  public String persistenceIdOf(int participant, String runName) throws SQLException {
    if (runName != null) {
      String pid = persistenceId(runName, participant);
      if (rows.highestSequenceNr(pid) == 0) {
        throw new IllegalArgumentException(
            journal + " holds no run named " + runName + " for participant " + participant);
      }
      return pid;
    }
    List<String> found = new ArrayList<>();
    for (String pid : rows.persistenceIds()) {
      Optional<Map.Entry<String, Integer>> parsed = parse(pid);
      if (parsed.isPresent() && parsed.get().getValue() == participant) {
        found.add(pid);
      }
    }
    if (found.isEmpty()) {
      throw new IllegalArgumentException(journal + " holds no run for participant " + participant);
    }
    if (found.size() > 1) {
      throw new IllegalArgumentException(
          journal
              + " holds several runs for participant "
              + participant
              + " "
              + found
              + "; choose one with --run-name");
    }
    return found.get(0);
  }

  /** Every parreg run in the journal, by persistence id (for a node's own, embedded journal). */
  public List<Run> runs() throws SQLException {
    List<Run> out = new ArrayList<>();
    for (String pid : rows.persistenceIds()) {
      if (parse(pid).isPresent()) {
        run(pid).ifPresent(out::add);
      }
    }
    return out;
  }

  private Admission restart(Run r, RunContract contract, int participant, PartitionInfo data) {
    if (r.contract() == null) {
      // Not an opening this version reads: recovery checks the journal and says what is wrong.
      return new Restart(r.highestSequenceNr());
    }
    Optional<String> diff = difference(r.contract(), contract, false);
    if (diff.isPresent()) {
      return new Refused(
          fieldOf(diff.get()),
          journal
              + " holds run '"
              + contract.runName()
              + "' of participant "
              + participant
              + " with another contract: "
              + diff.get(),
          false);
    }
    PartitionInfo recorded =
        r.roster() != null && participant < r.roster().length ? r.roster()[participant] : null;
    if (recorded != null && data != null && !recorded.equals(data)) {
      return new Refused(
          "data",
          journal
              + " holds run '"
              + contract.runName()
              + "' of participant "
              + participant
              + " with other data: recorded "
              + recorded.describe()
              + ", given "
              + data.describe(),
          false);
    }
    return new Restart(r.highestSequenceNr());
  }

  private List<Run> sameRunOtherParticipants(String runName, int participants, int participant)
      throws SQLException {
    List<Run> out = new ArrayList<>();
    for (int p = 0; p < participants; p++) {
      if (p != participant) {
        run(persistenceId(runName, p)).ifPresent(out::add);
      }
    }
    return out;
  }

  private Optional<Run> run(String pid) throws SQLException {
    Optional<Map.Entry<String, Integer>> parsed = parse(pid);
    Optional<JournalRows.EventRow> first = rows.firstEvent(pid);
    if (parsed.isEmpty() || first.isEmpty()) {
      return Optional.empty();
    }
    long highest = events.highestSequenceNr(pid);
    RunContract contract = null;
    PartitionInfo[] roster = null;
    if (first.get().event() instanceof Opening o) {
      contract = o.contract();
      roster = o.roster();
    }
    return Optional.of(
        new Run(pid, parsed.get().getKey(), parsed.get().getValue(), highest, contract, roster));
  }

  /** Whether {@code pid} is a parreg run's persistence id ({@code parreg|RUN|pP}). */
  public static boolean isRunId(String pid) {
    return parse(pid).isPresent();
  }

  /** The run name of a parreg persistence id ({@link #isRunId}). */
  public static String runNameOf(String pid) {
    return parse(pid).orElseThrow().getKey();
  }

  /** (run name, participant) of a parreg persistence id, or empty for any other id. */
  private static Optional<Map.Entry<String, Integer>> parse(String pid) {
    int mark = pid.lastIndexOf(PARTICIPANT_MARK);
    if (!pid.startsWith(PREFIX) || mark < PREFIX.length()) {
      return Optional.empty();
    }
    String digits = pid.substring(mark + PARTICIPANT_MARK.length());
    if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(Character::isDigit)) {
      return Optional.empty();
    }
    return Optional.of(Map.entry(pid.substring(PREFIX.length(), mark), Integer.parseInt(digits)));
  }

  /**
   * The first field in which {@code given} differs from {@code recorded}, as "FIELD: 'X' in the
   * journal, 'Y' given"; the run name is skipped when {@code ignoreRunName} (comparing with another
   * run, whose name differs by definition).
   */
  static Optional<String> difference(
      RunContract recorded, RunContract given, boolean ignoreRunName) {
    if (recorded.features() != given.features()) {
      // Named first: the initial weights (one a feature) differ then too, which says less.
      return Optional.of(
          "features: "
              + recorded.features()
              + " in the journal, "
              + given.features()
              + " given (data with another number of feature columns)");
    }
    Map<String, String> a = recorded.fields();
    Map<String, String> b = given.fields();
    java.util.Set<String> keys = new java.util.LinkedHashSet<>(a.keySet());
    keys.addAll(b.keySet()); // a field left out when empty (initialization) may be in one only
    for (String k : keys) {
      if (ignoreRunName && k.equals("runName")) {
        continue;
      }
      String x = a.getOrDefault(k, "");
      String y = b.getOrDefault(k, "");
      if (!x.equals(y)) {
        return Optional.of(k + ": '" + x + "' in the journal, '" + y + "' given");
      }
    }
    return Optional.empty();
  }

  private static String fieldOf(String difference) {
    return difference.substring(0, difference.indexOf(':'));
  }
}
