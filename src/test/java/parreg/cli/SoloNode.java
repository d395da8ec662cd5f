package parreg.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The command line of a one-participant node on fresh loopback ports, for tests. */
final class SoloNode {
  private SoloNode() {}

  /** {@code parreg node} as participant 0 of 1, its own seed, then {@code extra}. */
  static List<String> args(String data, String journal, String steps, String... extra)
      throws IOException {
    int port = NodeProcess.freePort();
    List<String> a =
        new ArrayList<>(
            List.of(
                "node",
                "--participant",
                "0",
                "--participants",
                "1",
                "--port",
                "" + port,
                "--admin-port",
                "" + NodeProcess.freePort(),
                "--seed-nodes",
                "127.0.0.1:" + port,
                "--data",
                data,
                "--solver",
                "gd",
                "--journal",
                journal,
                "--steps",
                steps));
    a.addAll(List.of(extra));
    if (!a.contains("--learning-rate") && !a.contains("--standardize") && !a.contains("--tol")) {
      // fixed-rate descent: a run of exactly --steps steps (the standardized descent, gd's default
      // on file data, stops early once it converges; a test asks for it by name)
      a.addAll(List.of("--learning-rate", "1/4"));
    }
    return List.copyOf(a);
  }
}
