package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Your own data" commands run as written, one after the other in a fresh directory
 * (they name only files the ones before them write): each exits 0, and {@code fit} says where it
 * wrote the model as the README shows. A README command that names a file nothing produces fails
 * here.
 */
@Tag("multiprocess")
class ReadmeCommandsTest {
  @TempDir Path dir;

  /** The {@code bin/parreg} lines of the first bash block after {@code heading}. */
  static List<List<String>> commands(String readme, String heading) {
    int at = readme.indexOf(heading);
    assertTrue(at >= 0, "README has " + heading);
    int open = readme.indexOf("```bash\n", at);
    int close = readme.indexOf("```", open + 8);
    List<List<String>> out = new ArrayList<>();
    for (String line : readme.substring(open + 8, close).split("\n")) {
      String cmd = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
      cmd = cmd.strip();
      if (cmd.startsWith("bin/parreg ")) {
        List<String> args = new ArrayList<>(Arrays.asList(cmd.split("\\s+")));
        args.remove(0);
        out.add(args);
      }
    }
    return out;
  }

  @Test
  void yourOwnDataRunsAsWritten() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    List<List<String>> commands = commands(readme, "## Your own data");
    assertTrue(commands.size() >= 5, commands.toString());
    for (List<String> args : commands) {
      Process p =
          new ProcessBuilder(NodeProcess.command(args))
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .start();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Thread pump =
          new Thread(
              () -> {
                try {
                  p.getInputStream().transferTo(out);
                } catch (java.io.IOException e) {
                  // the process ended: what it printed is in out
                }
              });
      pump.start();
      assertTrue(p.waitFor(180, TimeUnit.SECONDS), "bin/parreg " + args + " finished");
      pump.join();
      String printed = out.toString(StandardCharsets.UTF_8);
      assertEquals(0, p.exitValue(), "bin/parreg " + String.join(" ", args) + ":\n" + printed);
      if (args.get(0).equals("fit")) {
        assertTrue(printed.contains("model written to fit-run/model.json"), printed);
      }
    }
  }
}
