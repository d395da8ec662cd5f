package parreg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Dependencies point one way: {@code solver} knows nothing of parreg's other packages or of Pekko;
 * {@code device} knows nothing of Pekko or of the other layers; {@code persistence} knows nothing
 * of {@code actors} or {@code cli}; {@code actors} knows nothing of {@code cli}. Checked on the
 * sources, imports and fully qualified names alike.
 */
class LayeringTest {

  static List<String> violations(String folder, String... forbidden) throws IOException {
    List<String> out = new ArrayList<>();
    Path root = Path.of(folder);
    assertTrue(Files.isDirectory(root), folder + " exists");
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i);
          if (line.strip().startsWith("//") || line.strip().startsWith("*")) {
            continue;
          }
          for (String pkg : forbidden) {
            if (Pattern.compile("\\b" + Pattern.quote(pkg) + "\\.").matcher(line).find()) {
              out.add(f + ":" + (i + 1) + ": " + line.strip());
            }
          }
        }
      }
    }
    return out;
  }

  @Test
  void solverKnowsNothingOfParregOrPekko() throws IOException {
    assertEquals(
        List.of(),
        violations(
            "solver/src/main/java",
            "org.apache.pekko",
            "com.typesafe",
            "scala",
            "com.esotericsoftware",
            "org.ejml",
            "org.apache.commons.math3"));
    assertEquals(List.of(), otherParreg("solver/src/main/java", "solver"));
  }

  /** Lines naming a parreg package other than {@code own} (code: not comments, not strings). */
  static List<String> otherParreg(String folder, String own) throws IOException {
    Pattern other = Pattern.compile("\\bparreg\\.(?!" + own + "\\b)[a-z]");
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of(folder))) {
      for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
        List<String> lines = Files.readAllLines(f);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          String code = line.replaceAll("\"([^\"\\\\]|\\\\.)*\"", "\"\"");
          if (!line.startsWith("//") && !line.startsWith("*") && other.matcher(code).find()) {
            out.add(f + ":" + (i + 1) + ": " + line);
          }
        }
      }
    }
    return out;
  }

  @Test
  void deviceKnowsNothingOfPekkoOrTheOtherLayers() throws IOException {
    assertEquals(
        List.of(),
        violations(
            "device/src/main/java",
            "org.apache.pekko",
            "com.typesafe",
            "scala",
            "parreg.persistence",
            "parreg.actors",
            "parreg.cli"));
  }

  @Test
  void persistenceKnowsNothingOfActorsOrCli() throws IOException {
    assertEquals(List.of(), violations("persistence/src/main/java", "parreg.actors", "parreg.cli"));
  }

  @Test
  void actorsKnowNothingOfCli() throws IOException {
    assertEquals(List.of(), violations("actors/src/main/java", "parreg.cli"));
  }

  @Test
  void theCheckFindsAViolation() throws IOException {
    // The scanner itself must be able to fail: the CLI does import the actors.
    assertTrue(!violations("cli/src/main/java", "parreg.actors").isEmpty());
    assertTrue(!otherParreg("cli/src/main/java", "cli").isEmpty());
  }
}
