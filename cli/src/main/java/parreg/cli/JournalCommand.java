package parreg.cli;

import com.typesafe.config.ConfigFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalReadException;
import parreg.persistence.JournalRows;
import parreg.persistence.JournalRuns;
import parreg.persistence.KryoCodec;
import parreg.persistence.RunEvents;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg journal verify}: checks a journal's checksums, chain and replay (issue 13 item 5).
 */
@Command(
    name = "journal",
    mixinStandardHelpOptions = true,
    description = "Inspect a node's journal.",
    subcommands = {JournalCommand.Verify.class})
public final class JournalCommand implements Runnable {
  @Override
  public void run() {
    throw new UserError("journal: a subcommand is required (verify)");
  }

  @Command(
      name = "verify",
      mixinStandardHelpOptions = true,
      description =
          "Check every event and snapshot of a journal: checksum, link to the event before it, replay."
              + " Exit 0 with a one-line summary when good, 2 naming the first bad sequence number.")
  static final class Verify implements Callable<Integer> {
    @Option(names = "--journal", required = true, description = "journal directory or JDBC URL")
    String journal;

    @Option(names = "--journal-password-file", description = JournalOption.PASSWORD_FILE_HELP)
    java.nio.file.Path journalPasswordFile;

    @Option(
        names = "--participant",
        description = "only this participant's run (default: every run in the journal)")
    Integer participant;

    @Option(names = "--run-name", description = "only this run")
    String runName;

    @Override
    public Integer call() {
      JournalLocation location = JournalOption.parse(journal, journalPasswordFile);
      String shown = location.display();
      KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
      Connection opened;
      try {
        parreg.persistence.JournalReading reading =
            parreg.persistence.JournalReading.open(location);
        Checkpoint.noteSnapshot(reading, shown);
        location = reading.location();
        opened = reading.connection();
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new UserError(e.getMessage());
      } catch (SQLException e) {
        throw JournalOption.readFailure("cannot open journal " + shown, e);
      }
      try (Connection c = opened) {
        JournalRows.readConsistently(c); // a live PostgreSQL journal: one view of it
        RunEvents events = RunEvents.of(c, codec, location);
        List<String> lines = new ArrayList<>();
        for (String pid : persistenceIds(c, codec, location, events.rows())) {
          lines.add(JournalVerifier.verify(events, pid).line());
        }
        System.out.println("journal " + shown + " good: " + String.join("; ", lines));
        return 0;
      } catch (JournalReadException e) {
        throw new UserError("journal " + shown + " is damaged: " + e.getMessage());
      } catch (SQLException e) {
        throw JournalOption.readFailure("cannot read journal " + shown, e);
      }
    }

    private List<String> persistenceIds(
        Connection c, KryoCodec codec, JournalLocation location, JournalRows rows)
        throws SQLException {
      if (participant != null) {
        return List.of(Checkpoint.persistenceId(c, codec, location, participant, runName));
      }
      List<String> pids = new ArrayList<>();
      if (rows.hasJournalTable()) {
        for (String pid : rows.persistenceIds()) {
          if (JournalRuns.isRunId(pid)
              && (runName == null || JournalRuns.runNameOf(pid).equals(runName))) {
            pids.add(pid);
          }
        }
      }
      if (pids.isEmpty()) {
        throw new UserError(
            "journal "
                + location.display()
                + " holds no run"
                + (runName == null ? "" : " named " + runName));
      }
      return pids;
    }
  }
}
