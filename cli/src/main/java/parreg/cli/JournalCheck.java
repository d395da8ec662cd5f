package parreg.cli;

import com.typesafe.config.ConfigFactory;
import java.sql.Connection;
import java.util.List;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalRows;
import parreg.persistence.KryoCodec;
import parreg.persistence.RunEvents;
import parreg.protocol.StepCommitted;

/**
 * Reads a node's journal back (its rows, then its step log's records) and checks that it holds
 * RunStarted and every step exactly once.
 */
final class JournalCheck {
  private JournalCheck() {}

  static String describe(String journal, int participant, long steps) {
    JournalLocation location = JournalLocation.parse(journal);
    try (Connection c = location.openExistingConnection()) {
      KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
      String pid = Checkpoint.persistenceId(c, codec, location, participant, null);
      List<JournalRows.EventRow> events = RunEvents.of(c, codec, location).eventsAfter(pid, 0);
      long expectStep = 1;
      for (JournalRows.EventRow e : events) {
        if (e.event() instanceof StepCommitted s) {
          if (s.step() != expectStep) {
            return "step " + s.step() + " found where step " + expectStep + " was expected";
          }
          expectStep++;
        }
      }
      if (expectStep - 1 != steps || events.size() != steps + 1) {
        return events.size()
            + " events, steps 1.."
            + (expectStep - 1)
            + ", expected RunStarted + "
            + steps
            + " steps";
      }
      return "ok, "
          + events.size()
          + " rows: RunStarted + steps 1.."
          + steps
          + ", each exactly once";
    } catch (Exception e) {
      return "cannot read: " + e.getMessage();
    }
  }
}
