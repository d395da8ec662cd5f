package parreg.bench;

import com.typesafe.config.ConfigFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import parreg.persistence.Chained;
import parreg.persistence.JournalEnvelope;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalRows;
import parreg.persistence.JournalRuns;
import parreg.persistence.KryoCodec;
import parreg.persistence.KryoSerializer;
import parreg.persistence.RunEvents;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;

/**
 * Writes a long journal fast, for the readers' benchmarks: the run of a short real journal
 * (participant 0's {@code RunStarted} and its first step's contributions) continued to {@code
 * STEPS} steps with the same contributions, each step's parameters and loss recomputed ({@link
 * TrainingState#next}), so that the result replays and verifies like a node's journal. Events are
 * sealed and linked as a node seals them, a snapshot every {@code --snapshot-every} events, the
 * last two kept (a node's retention). A real run writes about 5,000 steps a second; this writes a
 * journal of 10 M steps in minutes.
 *
 * <p>Usage: {@code LongJournal SOURCE_JOURNAL OUT_DIR STEPS [--snapshot-every N]}.
 */
public final class LongJournal {
  private LongJournal() {}

  public static void main(String[] args) throws Exception {
    JournalLocation source = JournalLocation.parse(args[0]);
    JournalLocation out = JournalLocation.parse(args[1]);
    long steps = Long.parseLong(args[2]);
    int snapshotEvery = args.length > 4 ? Integer.parseInt(args[4]) : 1000;
    KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
    RunStarted started;
    StepCommitted first;
    String pid;
    try (Connection c = source.openExistingConnection()) {
      pid = JournalRuns.of(c, codec, source).persistenceIdOf(0, null);
      List<JournalRows.EventRow> events = RunEvents.of(c, codec, source).eventsAfter(pid, 0);
      started = (RunStarted) events.get(0).event();
      first = (StepCommitted) events.get(1).event();
    }
    long t0 = System.nanoTime();
    out.createSchema();
    String insert =
        "INSERT INTO \"event_journal\" (\"persistence_id\", \"sequence_number\", \"writer\","
            + " \"write_timestamp\", \"adapter_manifest\", \"event_payload\", \"event_ser_id\","
            + " \"event_ser_manifest\") VALUES (?, ?, 'bench', ?, '', ?, ?, '')";
    ArrayDeque<Object[]> snapshots = new ArrayDeque<>(); // (seq, payload), the last two
    try (Connection c = out.openConnection();
        PreparedStatement s = c.prepareStatement(insert)) {
      c.setAutoCommit(false);
      TrainingState state = TrainingState.empty().apply(started);
      long link = JournalEnvelope.GENESIS;
      long now = System.currentTimeMillis();
      for (long seq = 1; seq <= steps + 1; seq++) {
        Object event;
        if (seq == 1) {
          event = started;
        } else {
          state = state.next(seq - 1, first.contributions());
          event =
              new StepCommitted(seq - 1, first.contributions(), state.parameters(), state.loss());
        }
        Chained sealed = JournalEnvelope.seal(codec, event, link);
        link = sealed.hash();
        s.setString(1, pid);
        s.setLong(2, seq);
        s.setLong(3, now);
        s.setBytes(4, sealed.payload());
        s.setInt(5, KryoSerializer.IDENTIFIER);
        s.addBatch();
        if (seq % snapshotEvery == 0) {
          snapshots.addLast(new Object[] {seq, JournalEnvelope.seal(codec, state, link).payload()});
          if (snapshots.size() > 2) {
            snapshots.removeFirst();
          }
        }
        if (seq % 10_000 == 0) {
          s.executeBatch();
          c.commit();
        }
        if (seq % 1_000_000 == 0) {
          System.out.printf(
              Locale.ROOT, "%,d events, %.0f s%n", seq, (System.nanoTime() - t0) / 1e9);
        }
      }
      s.executeBatch();
      try (PreparedStatement snap =
          c.prepareStatement(
              "INSERT INTO \"snapshot\" (\"persistence_id\", \"sequence_number\", \"created\","
                  + " \"snapshot_ser_id\", \"snapshot_ser_manifest\", \"snapshot_payload\")"
                  + " VALUES (?, ?, ?, ?, '', ?)")) {
        for (Object[] sn : snapshots) {
          snap.setString(1, pid);
          snap.setLong(2, (Long) sn[0]);
          snap.setLong(3, now);
          snap.setInt(4, KryoSerializer.IDENTIFIER);
          snap.setBytes(5, (byte[]) sn[1]);
          snap.executeUpdate();
        }
      }
      c.commit();
    }
    System.out.printf(
        Locale.ROOT,
        "%s: %,d steps of %s written in %.0f s%n",
        out.display(),
        steps,
        pid,
        (System.nanoTime() - t0) / 1e9);
  }
}
