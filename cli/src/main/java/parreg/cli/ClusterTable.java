package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.Display;
import org.jline.utils.Signals;

/**
 * {@code parreg status --cluster}: one row per participant, from one node's {@code /cluster/status}
 * (which asks every member's admin actor over the cluster transport); {@code --watch} redraws it in
 * place through JLine's {@link Display} until Ctrl-C.
 */
final class ClusterTable {
  static final String[] HEADER = {
    "PARTICIPANT",
    "STATE",
    "STEP",
    "DURABLE",
    "STEPS/S",
    "ETA",
    "LOSS",
    "BACKEND",
    "DEVICE",
    "ADDRESS"
  };

  /** Fetches one answer: the document, or an IOException saying why not. */
  interface Source {
    StatusCommand.Answer get() throws IOException;
  }

  private ClusterTable() {}

  /** The answer as a cluster status document ({@code node}, {@code participants}), or null. */
  static JsonNode parse(StatusCommand.Answer a) {
    try {
      JsonNode n = new ObjectMapper().readTree(a.body());
      if (a.code() == 200
          && n != null
          && n.path("node").isTextual()
          && n.path("participants").isArray()) {
        return n;
      }
    } catch (IOException e) {
      // not JSON: not a parreg node
    }
    return null;
  }

  /** The table: a header, one row per participant, then one per node that did not answer. */
  static List<String> rows(JsonNode cluster) {
    List<String[]> cells = new ArrayList<>();
    cells.add(HEADER);
    for (JsonNode s : cluster.path("participants")) {
      JsonNode dev = s.path("device");
      cells.add(
          new String[] {
            s.path("participant").asText(),
            s.path("state").asText(),
            s.path("committedStep").asText() + "/" + s.path("targetSteps").asText(),
            s.path("durableStep").asText(),
            s.path("stepsPerSecond").isNumber()
                ? String.format(Locale.ROOT, "%.1f", s.path("stepsPerSecond").asDouble())
                : "?",
            s.path("etaSeconds").isNumber()
                ? parreg.training.ProgressMeter.duration(s.path("etaSeconds").asDouble())
                : "?",
            s.path("loss").isNumber()
                ? String.format(Locale.ROOT, "%.4e", s.path("loss").asDouble())
                : "-",
            s.path("backend").asText("?"),
            dev.path("name").asText("?"),
            s.path("address").asText("?")
          });
    }
    for (JsonNode u : cluster.path("unanswered")) {
      cells.add(
          new String[] {
            "?",
            "no answer (" + u.path("error").asText() + ")",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            u.path("address").asText()
          });
    }
    int[] width = new int[HEADER.length];
    for (String[] row : cells) {
      for (int i = 0; i < row.length; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    List<String> out = new ArrayList<>();
    for (String[] row : cells) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        b.append(i == row.length - 1 ? row[i] : String.format("%-" + width[i] + "s  ", row[i]));
      }
      out.add(b.toString().stripTrailing());
    }
    return out;
  }

  /**
   * Redraws the table every {@code seconds} until Ctrl-C (exit 0); where the output is not a
   * terminal, prints one table after the other instead. A failed fetch (the node restarting, say)
   * shows its reason in place of the table and the next refresh tries again.
   */
  static int watch(Source source, String node, double seconds) throws IOException {
    AtomicBoolean stop = new AtomicBoolean();
    Thread main = Thread.currentThread();
    try (Terminal terminal = TerminalBuilder.builder().system(true).dumb(true).build()) {
      Runnable end =
          () -> {
            stop.set(true);
            main.interrupt();
          };
      terminal.handle(Terminal.Signal.INT, s -> end.run());
      Display display = new Display(terminal, false);
      resize(display, terminal);
      terminal.handle(Terminal.Signal.WINCH, s -> resize(display, terminal));
      // Not a terminal (a pipe, a file): one table after the other, since nothing can be redrawn.
      boolean inPlace = !terminal.getType().startsWith(Terminal.TYPE_DUMB);
      if (!inPlace) {
        Signals.register("INT", end); // a dumb terminal does not take the process's signals itself
      }
      while (!stop.get()) {
        List<String> lines = new ArrayList<>();
        lines.add(
            "parreg cluster via "
                + node
                + " at "
                + LocalTime.now().truncatedTo(ChronoUnit.SECONDS)
                + ", every "
                + seconds
                + " s (Ctrl-C ends)");
        lines.addAll(fetchRows(source));
        if (inPlace) {
          display.update(lines.stream().map(AttributedString::new).toList(), -1);
        } else {
          lines.forEach(terminal.writer()::println);
          terminal.writer().println();
        }
        terminal.flush();
        try {
          Thread.sleep((long) (seconds * 1000));
        } catch (InterruptedException e) {
          break;
        }
      }
      // leave the last table on the screen, the cursor below it
      terminal.writer().println();
      terminal.flush();
    }
    Thread.interrupted(); // clear a Ctrl-C that came while the table was drawn
    return 0;
  }

  /**
   * The terminal's size; a pseudo-terminal that reports none (0 x 0) gets 50 rows of 200 columns.
   */
  private static void resize(Display display, Terminal terminal) {
    int rows = terminal.getHeight();
    int columns = terminal.getWidth();
    display.resize(rows > 0 ? rows : 50, columns > 0 ? columns : 200);
  }

  private static List<String> fetchRows(Source source) {
    try {
      StatusCommand.Answer a = source.get();
      JsonNode cluster = parse(a);
      if (cluster == null) {
        return List.of("no cluster status (HTTP " + a.code() + ")");
      }
      return rows(cluster);
    } catch (IOException e) {
      return List.of("no answer: " + FileErrors.reason(e));
    }
  }
}
