package parreg.settings;

import com.typesafe.config.Config;
import java.nio.file.Path;
import java.time.Duration;
import parreg.device.PartitionSource;
import parreg.device.RunContract;

/**
 * Everything one node is started with: deployment inputs from the command line plus the {@code
 * parreg} settings namespace of the configuration (read once at start-up).
 *
 * @param participant this node's participant id
 * @param contract the run contract it was started with
 * @param partition its data
 * @param targetSteps train until this step is committed
 * @param backend auto, cpu or cuda
 * @param device card UUID or ordinal
 * @param evidence file to create when the run completes, or null
 * @param exitWhenDone stop once every participant has committed the target
 * @param snapshotEvery snapshot after this many events
 * @param stepInterval minimum time between steps (0: as fast as possible)
 * @param peerWindow contributions of this many recent steps kept in memory for peers catching up
 * @param retryInterval how often a missing contribution is asked for again
 * @param waitingAfter how long a step may wait for contributions before the node reports waiting
 * @param maxLagSteps at most this many committed steps may be waiting for the journal when a step
 *     starts (0 or 1: each step is durable before the next starts)
 * @param maxLag a step starts only while the oldest step waiting for the journal was committed less
 *     than this long ago
 * @param groupSteps a journal write starts once this many committed steps wait for it (1 when every
 *     step must be durable before the next)
 * @param groupDelay ... or once the oldest of them has waited this long
 * @param journalDescription where the journal lives, for status
 * @param progressInterval how often the node logs its progress line (zero: never)
 * @param stepLog an embedded H2 journal's step log ({@code parreg.training.journal.StepLogWriter}):
 *     under {@code --sync-commit} where a step is acknowledged while the journal is written behind
 *     with the default lag, by default a guard written before each journal write; null for
 *     PostgreSQL (or when {@code parreg.journal.step-log.in-default-mode} is off and the mode is
 *     the default)
 */
public record NodeSettings(
    int participant,
    RunContract contract,
    PartitionSource partition,
    long targetSteps,
    String backend,
    String device,
    Path evidence,
    boolean exitWhenDone,
    int snapshotEvery,
    Duration stepInterval,
    int peerWindow,
    Duration retryInterval,
    Duration waitingAfter,
    int maxLagSteps,
    Duration maxLag,
    int groupSteps,
    Duration groupDelay,
    String journalDescription,
    Duration progressInterval,
    StepLogSettings stepLog) {

  /**
   * The step log of an embedded H2 journal ({@code parreg.journal.step-log}).
   *
   * @param directory where it lives ({@link parreg.persistence.JournalLocation#stepLogDirectory})
   * @param segmentBytes a segment rolls at this size
   * @param fsync force each append to the device (survives power loss; costs a device flush per
   *     step)
   * @param keepWrites a segment is deleted once the journal has acknowledged this many writes after
   *     the one that holds its last record
   * @param durability which H2 commits a kill can no longer take back: a segment is deleted only
   *     once the writes holding its records are covered
   * @param acknowledges a step is durable once it is in the log ({@code --sync-commit}); else once
   *     the journal holds it, the log guarding the journal's writes
   */
  public record StepLogSettings(
      Path directory,
      long segmentBytes,
      boolean fsync,
      int keepWrites,
      parreg.persistence.H2Durability durability,
      boolean acknowledges) {}

  public NodeSettings {
    // A restarted node's peers serve the steps it lacks from memory while they are in the window;
    // a lag that could exceed the window would send them to their journals for steps not yet there.
    if (maxLagSteps < 0 || maxLagSteps >= peerWindow) {
      throw new IllegalArgumentException(
          "parreg.journal.max-lag-steps = "
              + maxLagSteps
              + " must be at least 0 and below parreg.peer.window-steps = "
              + peerWindow);
    }
    if (groupSteps < 1) {
      throw new IllegalArgumentException(
          "parreg.journal.group-steps = " + groupSteps + " must be at least 1");
    }
    // A group larger than the lag allows would never fill: training stops at the lag bound first.
    groupSteps = Math.min(groupSteps, Math.max(1, maxLagSteps));
    if (progressInterval.isNegative()) {
      throw new IllegalArgumentException(
          "parreg.progress-interval = " + progressInterval + " must not be negative (0 = off)");
    }
  }

  /**
   * Reads the {@code parreg} namespace for the tunables; the rest comes from the caller. {@code
   * stepLogDirectory}: where an embedded H2 journal keeps its step log (null for PostgreSQL).
   */
  public static NodeSettings of(
      Config config,
      int participant,
      RunContract contract,
      PartitionSource partition,
      long targetSteps,
      String backend,
      String device,
      Path evidence,
      boolean exitWhenDone,
      Duration stepInterval,
      boolean syncCommit,
      String journalDescription,
      Path stepLogDirectory,
      parreg.persistence.H2Durability durability) {
    Config c = config.getConfig("parreg");
    // --sync-commit on H2 acknowledges each step in the step log and writes the journal behind, as
    // by default; on PostgreSQL each step is its own write (lag 0). By default on H2 the log guards
    // each journal write (StepLogWriter).
    StepLogSettings stepLog =
        stepLogDirectory != null && (syncCommit || c.getBoolean("journal.step-log.in-default-mode"))
            ? new StepLogSettings(
                stepLogDirectory,
                c.getBytes("journal.step-log.segment-bytes"),
                c.getBoolean("journal.step-log.fsync"),
                c.getInt("journal.step-log.keep-writes"),
                durability,
                syncCommit)
            : null;
    return new NodeSettings(
        participant,
        contract,
        partition,
        targetSteps,
        backend,
        device,
        evidence,
        exitWhenDone,
        c.getInt("snapshot-every"),
        stepInterval != null ? stepInterval : c.getDuration("step-interval"),
        c.getInt("peer.window-steps"),
        c.getDuration("peer.retry-interval"),
        c.getDuration("peer.waiting-after"),
        syncCommit && stepLog == null ? 0 : c.getInt("journal.max-lag-steps"),
        Duration.ofMillis(c.getLong("journal.max-lag-ms")),
        c.getInt("journal.group-steps"),
        Duration.ofMillis(c.getLong("journal.group-ms")),
        journalDescription,
        c.getDuration("progress-interval"),
        stepLog);
  }

  /** The journal's persistence id: unique per run name and participant, stable across restarts. */
  public String persistenceId() {
    return persistenceId(contract, participant);
  }

  public static String persistenceId(RunContract contract, int participant) {
    return parreg.persistence.JournalRuns.persistenceId(contract.runName(), participant);
  }
}
