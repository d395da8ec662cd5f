package parreg.training.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import parreg.persistence.Chained;
import parreg.protocol.JournalEvent;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;
import parreg.settings.NodeSettings;

/**
 * The training actor's write-behind bookkeeping: the events committed in memory and not yet
 * durable, the one journal write in flight, the durable step, and the rule that bounds the lag.
 *
 * <p>A committed step's {@link StepCommitted} is written behind the step, many in one journal write
 * (group commit): a write starts, when none is in flight, once {@code group-steps} steps wait or
 * the oldest has waited {@code group-ms}, or at once when training cannot go on without it (lag
 * bound, target reached, flush, divergence). A write costs about as much CPU for one event as for a
 * hundred, so grouping is what makes a step cheap; and whatever waits is written in the next write.
 * The lag is bounded: a step starts only while at most {@code max-lag-steps} committed steps are
 * not yet durable and the oldest of them was committed less than {@code max-lag-ms} ago ({@link
 * #lagsTooFar}), so a slow journal slows training instead of letting the lag grow; {@code
 * max-lag-steps} 0 or 1 makes every step durable before the next starts.
 *
 * <p>With an acknowledging step log ({@link StepLogWriter}: {@code --sync-commit} on an embedded H2
 * journal) a step is durable once its record is appended there, in {@link #commit}, before the next
 * step can start; the journal is still written behind, with the same groups and lag bound, and
 * {@link #durable} is then the log's step, ahead of {@link #journaled}. With a guarding step log
 * (the default mode on H2) each write's events are appended there in {@link #write}, just before
 * the journal is handed them, and a step is durable once the journal holds it. Either way the
 * opening {@code RunStarted} is not in the log: with an acknowledging log the first step waits
 * until the journal holds it; a guarding log hands it to the journal alone and appends no step
 * before it is journaled, while training goes on.
 *
 * <p>Call order: {@link #commit} per committed event; {@link #written} when the journal child
 * acknowledges a write, then {@link #writeNext}; {@link #restarted} when the child recovered again
 * after a failure. Not thread-safe: the training actor owns it.
 */
public final class WriteBehind {

  /** What the bookkeeping asks of its owner: the journal child and the group timer. */
  public interface Journal {
    /**
     * Persist these events, in this order, in one write ({@link StepJournal.Write}); {@code
     * sealed}: their stored bytes as the step log holds them, or null where the journal seals them
     * itself.
     */
    public void write(JournalEvent[] events, Chained[] sealed);

    /** Call {@link #write()} after this delay, unless cancelled (the oldest waited group-ms). */
    void groupDueIn(Duration delay);

    void cancelGroupDue();

    /**
     * The guarding step log could not be appended to (a full disk): nothing more is written, and
     * the journal ends at {@link #durable}, as when the journal itself cannot be written.
     */
    void stepLogFailed(IOException e);

    /**
     * The training actor's journal child, its timers for the {@code groupDue} message, and what
     * ends the node when the step log fails.
     */
    static <C> Journal of(
        ActorRef<StepJournal.Command> child,
        TimerScheduler<C> timers,
        C groupDue,
        java.util.function.Consumer<IOException> stepLogFailed) {
      return new Journal() {
        @Override
        public void stepLogFailed(IOException e) {
          stepLogFailed.accept(e);
        }

        @Override
        public void write(JournalEvent[] events, Chained[] sealed) {
          child.tell(new StepJournal.Write(events, sealed));
        }

        @Override
        public void groupDueIn(Duration delay) {
          timers.startSingleTimer(groupDue, groupDue, delay);
        }

        @Override
        public void cancelGroupDue() {
          timers.cancel(groupDue);
        }
      };
    }
  }

  /**
   * An event committed in memory and not yet acknowledged by the journal; {@code sealed} as the
   * step log holds it (null without a step log).
   */
  private record Pending(JournalEvent event, Chained sealed, long committedAtNanos) {}

  private final Journal journal;
  private final LongSupplier clock;
  private final int groupSteps;
  private final Duration groupDelay;
  private final int maxLagSteps;
  private final long maxLagNanos;
  private StepLogWriter log;

  private final ArrayDeque<Pending> pending = new ArrayDeque<>();

  /** How many of {@link #pending}'s first events the write in flight holds (0: none in flight). */
  private int writing;

  private long durable;
  private long journaled;
  private long journalPosition;
  private long journalWrites;
  private long lastSnapshot;
  private boolean flushing;

  /** The guarding step log failed: the journal ends where it is. */
  private boolean stepLogFailed;

  private final List<LongConsumer> flushWaiters = new ArrayList<>();

  /**
   * Bookkeeping for a journal durable at {@code durable}, whose last event has sequence number
   * {@code journalPosition}; {@code clock} in nanoseconds ({@code System::nanoTime}).
   */
  public WriteBehind(
      NodeSettings settings,
      long durable,
      long journalPosition,
      Journal journal,
      LongSupplier clock) {
    this(settings, durable, journalPosition, journal, clock, null);
  }

  /** As above, with the step log {@code log} (null: none), acknowledging or guarding. */
  public WriteBehind(
      NodeSettings settings,
      long durable,
      long journalPosition,
      Journal journal,
      LongSupplier clock,
      StepLogWriter log) {
    this.log = log;
    this.journal = journal;
    this.clock = clock;
    this.groupSteps = settings.groupSteps();
    this.groupDelay = settings.groupDelay();
    this.maxLagSteps = settings.maxLagSteps();
    this.maxLagNanos = settings.maxLag().toNanos();
    this.durable = durable;
    this.journaled = durable;
    this.journalPosition = journalPosition;
  }

  /**
   * Queues a committed event for the journal; writes when the group is full. With a step log, a
   * step is appended there first.
   *
   * @throws UncheckedIOException when the step log could not be appended to (a full disk): the step
   *     is not durable, and nothing was queued
   */
  public void commit(JournalEvent event) {
    Chained sealed = null;
    if (log != null && log.acknowledges()) {
      try {
        sealed = log.seal(event);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (event instanceof StepCommitted s) {
        durable = s.step();
      }
    }
    pending.addLast(new Pending(event, sealed, clock.getAsLong()));
    if (pending.size() == 1 && groupSteps > 1) {
      journal.groupDueIn(groupDelay);
    }
    if (pending.size() - writing >= groupSteps || !(event instanceof StepCommitted)) {
      write();
    }
  }

  /** Hands every event not yet written to the journal, unless a write is in flight. */
  public void write() {
    if (writing > 0 || pending.isEmpty() || stepLogFailed) {
      return;
    }
    journal.cancelGroupDue();
    boolean guarding = log != null && !log.acknowledges();
    // A guarding log's steps follow a RunStarted the journal holds: a RunStarted not yet journaled
    // (the opening write, or that write again after a failure) goes alone, so that the first step
    // need not wait for it (lagsTooFar) and the log never holds a step of a run the journal lacks.
    int n = guarding && pendingSteps() < pending.size() ? 1 : pending.size();
    if (guarding && !guard(n)) {
      return;
    }
    JournalEvent[] events = new JournalEvent[n];
    // With a step log every event is sealed by now, and the journal child stores those bytes.
    Chained[] sealed = pending.peekFirst().sealed() == null ? null : new Chained[n];
    int i = 0;
    for (Pending p : pending) {
      if (i == n) {
        break;
      }
      if (sealed != null) {
        sealed[i] = p.sealed();
      }
      events[i++] = p.event();
    }
    writing = events.length;
    journalWrites++;
    journal.write(events, sealed);
  }

  /**
   * Guarding step log: seals the first {@code n} waiting events that are not sealed yet (those of a
   * write that failed and goes again are) and appends them to the log before the journal is handed
   * them. False when the log could not be appended to (a full disk): nothing is handed to the
   * journal, which then ends at {@link #durable}, and the owner is told ({@link
   * Journal#stepLogFailed}). What the log holds ends at a whole record, or at one cut short that
   * readers ignore.
   */
  private boolean guard(int n) {
    // events of a write that failed and goes again are sealed already: they lead the queue
    List<JournalEvent> fresh = new ArrayList<>(n);
    int i = 0;
    for (Pending p : pending) {
      if (i++ == n) {
        break;
      }
      if (p.sealed() == null) {
        fresh.add(p.event());
      }
    }
    Chained[] sealed;
    try {
      sealed = log.sealAll(fresh);
    } catch (IOException e) {
      close();
      log = null;
      stepLogFailed = true;
      journal.stepLogFailed(e);
      return false;
    }
    int next = 0;
    ArrayDeque<Pending> all = new ArrayDeque<>(pending.size());
    for (Pending p : pending) {
      all.addLast(
          p.sealed() != null || next == sealed.length
              ? p
              : new Pending(p.event(), sealed[next++], p.committedAtNanos()));
    }
    pending.clear();
    pending.addAll(all);
    return true;
  }

  /** The back-pressure rule: see the class comment. */
  public boolean lagsTooFar() {
    if (log != null
        && log.acknowledges()
        && !pending.isEmpty()
        && pending.peekFirst().event() instanceof RunStarted) {
      return true; // not in the step log: the first step waits until the journal holds it
    }
    int steps = pendingSteps();
    if (steps == 0) {
      return false;
    }
    if (steps >= Math.max(1, maxLagSteps)) {
      return true;
    }
    return clock.getAsLong() - pending.peekFirst().committedAtNanos() >= maxLagNanos;
  }

  /** Committed steps not yet durable (the opening RunStarted is no step). */
  public int pendingSteps() {
    int n = pending.size();
    return n > 0 && pending.peekFirst().event() instanceof RunStarted ? n - 1 : n;
  }

  /** Whether everything committed is durable. */
  public boolean allDurable() {
    return pending.isEmpty();
  }

  /**
   * The write in flight is durable; {@code durableStep} is the journal's last step now.
   *
   * @throws UncheckedIOException when a step log segment could not be deleted
   */
  public void written(long durableStep, long sequenceNr) {
    for (int i = 0; i < writing; i++) {
      pending.removeFirst();
    }
    writing = 0;
    journaled = durableStep;
    durable = Math.max(durable, durableStep);
    journalPosition = sequenceNr;
    if (log != null) {
      try {
        log.journaled(sequenceNr);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * After an acknowledged write: what was committed during it is written now when {@code drain}
   * (training has stopped), a flush waits, the group is full or it has waited long enough, else
   * when it has.
   */
  public void writeNext(boolean drain) {
    if (drain || flushing) {
      write();
      answerFlushes();
    } else if (!pending.isEmpty()) {
      // (if training must wait for the journal, the training actor writes at once: lagsTooFar)
      long waited = clock.getAsLong() - pending.peekFirst().committedAtNanos();
      if (pending.size() >= groupSteps || waited >= groupDelay.toNanos()) {
        write();
      } else {
        journal.groupDueIn(groupDelay.minusNanos(waited));
      }
    }
  }

  /**
   * The journal child was restarted after a failed write and replayed what is durable ({@code
   * recovered}): drop what it already holds, write the rest again. (A write whose acknowledgement
   * was lost may be durable.)
   */
  public void restarted(TrainingState recovered, long sequenceNr) {
    long back = recovered.committed();
    pending.removeIf(
        p -> p.event() instanceof StepCommitted s ? s.step() <= back : recovered.started());
    writing = 0;
    journaled = back;
    durable = log == null || !log.acknowledges() ? back : Math.max(durable, back);
    journalPosition = sequenceNr;
    write();
  }

  /**
   * A graceful stop: write everything committed and call {@code whenDurable} with the durable step
   * once nothing waits for the journal. Training starts no more steps ({@link #flushing}).
   */
  public void flush(LongConsumer whenDurable) {
    flushing = true;
    flushWaiters.add(whenDurable);
    write();
    answerFlushes();
  }

  private void answerFlushes() {
    if (pending.isEmpty()) {
      flushWaiters.forEach(w -> w.accept(durable));
      flushWaiters.clear();
    }
  }

  public boolean flushing() {
    return flushing;
  }

  public void snapshotted(long sequenceNr) {
    lastSnapshot = sequenceNr;
  }

  /** The last step that is durable: in the step log where there is one, else in the journal. */
  public long durable() {
    return durable;
  }

  /** The journal's last step (behind {@link #durable} while a step log holds steps). */
  long journaled() {
    return journaled;
  }

  /** The bytes of the step log, or -1 without one. */
  public long stepLogBytes() {
    return log == null ? -1 : log.bytes();
  }

  /** Closes the step log, if any (what it holds stays for the next start). */
  public void close() {
    if (log != null) {
      try {
        log.close();
      } catch (IOException ignored) {
        // the node is stopping; the next start reads what the log holds
      }
    }
  }

  /** The sequence number of the journal's last event. */
  public long journalPosition() {
    return journalPosition;
  }

  public long journalWrites() {
    return journalWrites;
  }

  public long lastSnapshot() {
    return lastSnapshot;
  }

  /**
   * The one line of a journal write that failed for want of space: the first step it could not
   * write.
   */
  public String diskFull(String journalDescription) {
    return "journal disk full at step "
        + (durable + 1)
        + ": "
        + journalDescription
        + " (no space left on device); the journal ends at step "
        + durable
        + ": free space and restart the node to resume";
  }
}
