package parreg.training.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.SeedData;
import parreg.persistence.Chained;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.KryoCodec;
import parreg.persistence.StepLogScan;
import parreg.protocol.JournalEvent;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;
import parreg.settings.NodeSettings;
import parreg.training.TrainingActorTest;
import parreg.training.TrainingStateTest;

/**
 * The write-behind bookkeeping on a fake clock and a recording journal: group commit, one write in
 * flight, the lag bound in steps and in time, a restarted journal child, a flush.
 */
public class WriteBehindTest {
  static final long MS = 1_000_000L;

  /** Records what the bookkeeping asks of the journal child and the group timer. */
  static final class Recorder implements WriteBehind.Journal {
    final List<JournalEvent[]> writes = new ArrayList<>();
    final List<parreg.persistence.Chained[]> sealed = new ArrayList<>();
    final List<Duration> timers = new ArrayList<>();
    int cancels;

    @Override
    public void write(JournalEvent[] events, parreg.persistence.Chained[] sealed) {
      writes.add(events);
      this.sealed.add(sealed);
    }

    @Override
    public void groupDueIn(Duration delay) {
      timers.add(delay);
    }

    @Override
    public void cancelGroupDue() {
      cancels++;
    }

    final List<java.io.IOException> stepLogFailures = new ArrayList<>();

    @Override
    public void stepLogFailed(java.io.IOException e) {
      stepLogFailures.add(e);
    }
  }

  long now;
  final Recorder journal = new Recorder();

  /**
   * Participant 0 of the seed run with this partition, target 100; a journal group of {@code
   * groupSteps} or 100 ms; a lag of at most {@code maxLagSteps} steps or 1 s.
   */
  public static NodeSettings settings(Partition partition, int maxLagSteps, int groupSteps) {
    return new NodeSettings(
        0,
        TrainingActorTest.SEED,
        parreg.device.PartitionSource.of(partition),
        100,
        "cpu",
        "0",
        null,
        false,
        20,
        Duration.ZERO,
        1024,
        Duration.ofMillis(100),
        Duration.ofSeconds(1),
        maxLagSteps,
        Duration.ofSeconds(1),
        groupSteps,
        Duration.ofMillis(100),
        "test",
        Duration.ZERO,
        null);
  }

  WriteBehind writeBehind(int maxLagSteps, int groupSteps) {
    return new WriteBehind(
        settings(SeedData.partition(0), maxLagSteps, groupSteps), 0, 0, journal, () -> now);
  }

  static StepCommitted step(long k) {
    return new StepCommitted(
        k, new LocalSums[0], new double[] {k}, Double.NaN); // not replayed here
  }

  @Test
  void runStartedIsWrittenAtOnceAndIsNoStep() {
    WriteBehind w = writeBehind(8, 4);
    w.commit(new RunStarted(TrainingActorTest.SEED, TrainingActorTest.ROSTER));
    assertEquals(1, journal.writes.size(), "the opening event is not grouped");
    assertEquals(0, w.pendingSteps());
    assertFalse(w.lagsTooFar());
    assertFalse(w.allDurable());
    w.written(0, 1);
    assertTrue(w.allDurable());
    assertEquals(1, w.journalPosition());
  }

  @Test
  void stepsAreGroupedAndOneWriteIsInFlight() {
    WriteBehind w = writeBehind(8, 4);
    w.commit(step(1));
    assertEquals(List.of(Duration.ofMillis(100)), journal.timers, "the group's timer starts");
    w.commit(step(2));
    w.commit(step(3));
    assertEquals(0, journal.writes.size(), "a group of 4 is not full at 3");
    w.commit(step(4));
    assertEquals(1, journal.writes.size());
    assertEquals(4, journal.writes.get(0).length);
    w.commit(step(5));
    w.write();
    assertEquals(1, journal.writes.size(), "one write in flight at a time");

    now = 30 * MS;
    w.written(4, 4);
    assertEquals(4, w.durable());
    assertEquals(1, w.pendingSteps());
    w.writeNext(false);
    assertEquals(1, journal.writes.size(), "step 5 waits for its group");
    assertEquals(Duration.ofMillis(70), journal.timers.get(journal.timers.size() - 1));
    w.write(); // the timer fired
    assertEquals(2, journal.writes.size());
    assertEquals(5, ((StepCommitted) journal.writes.get(1)[0]).step());
    assertEquals(2, w.journalWrites());
  }

  @Test
  void theLagIsBoundedInStepsAndInTime() {
    WriteBehind w = writeBehind(3, 8);
    w.commit(step(1));
    w.commit(step(2));
    assertFalse(w.lagsTooFar(), "2 steps of 3");
    w.commit(step(3));
    assertTrue(w.lagsTooFar(), "3 steps of 3");

    WriteBehind t = writeBehind(3, 8);
    t.commit(step(1));
    now = 999 * MS;
    assertFalse(t.lagsTooFar());
    now = 1000 * MS;
    assertTrue(t.lagsTooFar(), "the oldest has waited max-lag-ms");
  }

  @Test
  void syncCommitLetsNoStepWait() {
    WriteBehind w = writeBehind(0, 8);
    w.commit(step(1));
    assertEquals(1, journal.writes.size(), "a group of 1 is written at once");
    assertTrue(w.lagsTooFar(), "the next step waits until step 1 is durable");
    w.written(1, 1);
    assertFalse(w.lagsTooFar());
  }

  @Test
  void aRestartedJournalGetsWhatItLacksAgain() {
    WriteBehind w = writeBehind(8, 2);
    w.commit(step(1));
    w.commit(step(2)); // written: steps 1-2
    w.commit(step(3));
    TrainingState one =
        TrainingState.empty()
            .apply(new RunStarted(TrainingActorTest.SEED, TrainingActorTest.ROSTER))
            .apply(TrainingStateTest.step(1, new double[] {3.0}));
    w.restarted(one, 2); // the write of 1-2 failed after step 1 was durable
    assertEquals(1, w.durable());
    assertEquals(2, journal.writes.size());
    JournalEvent[] again = journal.writes.get(1);
    assertEquals(2, again.length);
    assertEquals(2, ((StepCommitted) again[0]).step());
    assertEquals(3, ((StepCommitted) again[1]).step());
  }

  @Test
  void aFlushIsAnsweredOnceEverythingIsDurable() {
    WriteBehind w = writeBehind(8, 4);
    w.commit(step(1));
    List<Long> answers = new ArrayList<>();
    w.flush(answers::add);
    assertTrue(w.flushing());
    assertEquals(1, journal.writes.size(), "a flush writes at once");
    assertEquals(List.of(), answers);
    w.written(1, 1);
    w.writeNext(false);
    assertEquals(List.of(1L), answers);
  }

  /** A guarding step log (the default mode on H2) in {@code dir}, segments of {@code bytes}. */
  WriteBehind guarded(Path dir, long bytes) throws java.io.IOException {
    NodeSettings s = settings(SeedData.partition(0), 8, 2);
    StepLogWriter log =
        StepLogWriter.open(
            new NodeSettings.StepLogSettings(
                dir, bytes, false, 1, new parreg.persistence.H2Durability(), false),
            s.persistenceId(),
            KryoCodec.fromRegistrationsResource(),
            JournalEnvelope.GENESIS,
            0);
    return new WriteBehind(s, 0, 0, journal, () -> now, log);
  }

  @Test
  void aGuardingStepLogHoldsEachWriteBeforeTheJournalIsHandedIt(@TempDir Path dir)
      throws Exception {
    WriteBehind w = guarded(dir, 64 * 1024);
    w.commit(new RunStarted(TrainingActorTest.SEED, TrainingActorTest.ROSTER));
    assertFalse(w.lagsTooFar(), "the first step need not wait for the journal to hold RunStarted");
    w.commit(step(1));
    w.commit(step(2));
    assertEquals(1, journal.writes.size(), "one write in flight: RunStarted");
    assertEquals(List.of(), StepLogScan.read(dir).records(), "no step before RunStarted is held");
    w.written(0, 1);
    w.writeNext(false);
    assertEquals(2, journal.writes.size(), "steps 1-2, a full group");
    assertEquals(0, w.durable(), "durable once the journal holds it, not the log");
    StepLogScan.Contents log = StepLogScan.read(dir);
    assertEquals(
        List.of(2L, 3L),
        log.records().stream().map(StepLogScan.Record::sequenceNr).toList(),
        "both steps are in the log");
    Chained[] handed = journal.sealed.get(1);
    assertEquals(2, handed.length, "the journal is handed the log's bytes");
    assertEquals(handed[0].hash(), handed[1].link(), "one chain");
    assertEquals(journal.sealed.get(0)[0].hash(), handed[0].link(), "from RunStarted on");
    w.written(2, 3);
    assertEquals(2, w.durable());
  }

  /**
   * H2 can lose acknowledged commits on a kill back to the chunk its store header names
   * (parreg.persistence.H2Durability): the log keeps a write's records, however many writes follow
   * it, until the header covers that write.
   */
  @Test
  void theLogKeepsAWriteUntilH2sHeaderCoversIt(@TempDir Path dir) throws Exception {
    long[] version = {10};
    long[] header = {-1};
    NodeSettings s = settings(SeedData.partition(0), 8, 2);
    StepLogWriter log =
        StepLogWriter.open(
            new NodeSettings.StepLogSettings(
                dir,
                256, // a segment or two a write
                false,
                1,
                new parreg.persistence.H2Durability(() -> version[0], () -> header[0]),
                false),
            s.persistenceId(),
            KryoCodec.fromRegistrationsResource(),
            JournalEnvelope.GENESIS,
            1);
    for (long k = 1; k <= 8; k += 2) {
      log.sealAll(List.of(step(k), step(k + 1)));
      log.journaled(k + 2); // the write of steps k, k + 1 (sequence numbers k + 1, k + 2)
      version[0] += 3; // the journal's commit and two of the compaction
    }
    assertEquals(
        java.util.stream.LongStream.rangeClosed(2, 9).boxed().toList(),
        StepLogScan.read(dir).records().stream().map(StepLogScan.Record::sequenceNr).toList(),
        "a growing file's header covers nothing: every write stays, 4 writes after the first");
    header[0] = 16; // covers the writes acknowledged at versions 10, 13 and 16 (#2-#7), not 19
    log.sealAll(List.of(step(9)));
    log.journaled(10);
    long first = StepLogScan.read(dir).records().get(0).sequenceNr();
    assertTrue(first > 5 && first <= 8, "released up to the covered writes only: from #" + first);
    header[0] = Long.MAX_VALUE;
    log.sealAll(List.of(step(10)));
    log.journaled(11);
    assertEquals(
        List.of(11L),
        StepLogScan.read(dir).records().stream().map(StepLogScan.Record::sequenceNr).toList(),
        "all covered: only the last write, which keep-writes = 1 keeps");
    log.close();
  }

  /**
   * The opening write failed and goes again after the journal child recovered: RunStarted still
   * goes alone, and the steps committed meanwhile reach the log only once the journal holds it.
   */
  @Test
  void aGuardedRunStartedGoesAloneAgainAfterAFailedWrite(@TempDir Path dir) throws Exception {
    WriteBehind w = guarded(dir, 64 * 1024);
    w.commit(new RunStarted(TrainingActorTest.SEED, TrainingActorTest.ROSTER));
    w.commit(step(1));
    w.commit(step(2));
    w.commit(step(3));
    w.restarted(TrainingState.empty(), 0); // the journal holds nothing
    assertEquals(2, journal.writes.size());
    assertEquals(1, journal.writes.get(1).length, "RunStarted alone, again");
    assertTrue(journal.writes.get(1)[0] instanceof RunStarted);
    assertEquals(
        journal.sealed.get(0)[0].hash(), journal.sealed.get(1)[0].hash(), "the same sealed bytes");
    assertEquals(List.of(), StepLogScan.read(dir).records());
    w.written(0, 1);
    w.writeNext(false);
    assertEquals(3, journal.writes.size());
    assertEquals(3, journal.writes.get(2).length, "steps 1-3");
    assertEquals(journal.sealed.get(1)[0].hash(), journal.sealed.get(2)[0].link(), "one chain");
    assertEquals(
        List.of(2L, 3L, 4L),
        StepLogScan.read(dir).records().stream().map(StepLogScan.Record::sequenceNr).toList());
    w.written(3, 4);
    assertEquals(3, w.durable());
    assertTrue(w.allDurable());
  }

  @Test
  void aStepLogThatCannotBeAppendedToEndsTheJournalAtItsDurableStep(@TempDir Path dir)
      throws Exception {
    Path logDir = dir.resolve("log");
    WriteBehind w = guarded(logDir, 1); // a segment per record: each append creates a file
    w.commit(new RunStarted(TrainingActorTest.SEED, TrainingActorTest.ROSTER));
    w.written(0, 1);
    w.commit(step(1));
    w.commit(step(2));
    w.written(2, 3);
    try (var files = java.nio.file.Files.list(logDir)) {
      for (Path f : files.toList()) {
        java.nio.file.Files.delete(f);
      }
    }
    java.nio.file.Files.delete(logDir); // the next segment cannot be created
    w.commit(step(3));
    w.commit(step(4));
    assertEquals(1, journal.stepLogFailures.size(), "the owner is told");
    assertEquals(2, journal.writes.size(), "nothing more is handed to the journal");
    assertEquals(2, w.durable(), "the journal ends at its durable step");
    assertEquals(2, w.pendingSteps());
    assertEquals(-1, w.stepLogBytes(), "the log is closed");
    w.flush(d -> {});
    assertEquals(2, journal.writes.size(), "not even by a flush");
  }

  @Test
  void aFullDiskNamesTheFirstStepNotWritten() {
    WriteBehind w = writeBehind(8, 4);
    w.written(41, 42);
    assertEquals(
        "journal disk full at step 42: /j (no space left on device); the journal ends at step 41:"
            + " free space and restart the node to resume",
        w.diskFull("/j"));
  }
}
