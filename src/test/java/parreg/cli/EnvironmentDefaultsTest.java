package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code PARREG_<OPTION>} variables fill a node's options; a flag on the command line wins. */
class EnvironmentDefaultsTest {
  @TempDir Path dir;

  String run(Map<String, String> env, String... args) {
    CommandLine cl = Main.commandLine();
    cl.getSubcommands().get("node").setDefaultValueProvider(new EnvironmentDefaults(env));
    StringWriter err = new StringWriter();
    cl.setErr(new PrintWriter(err, true));
    int code = cl.execute(args);
    assertEquals(2, code, err.toString());
    return err.toString();
  }

  @Test
  void theEnvironmentSetsEveryOptionIncludingRequiredOnes() {
    Map<String, String> env =
        Map.of(
            "PARREG_PARTICIPANT",
            "0",
            "PARREG_PORT",
            "25001",
            "PARREG_SEED_NODES",
            "127.0.0.1:25001,127.0.0.2:25002",
            "PARREG_JOURNAL",
            dir.resolve("j").toString(),
            "PARREG_STEPS",
            "10",
            "PARREG_BIND_HOST",
            "0.0.0.0");
    String err = run(env, "node");
    assertTrue(
        err.contains("would listen on 0.0.0.0"),
        "the node got its options from the environment: " + err);
    assertFalse(Files.exists(dir.resolve("j")));
  }

  @Test
  void aFlagWinsOverTheEnvironment() {
    Map<String, String> env = Map.of("PARREG_BIND_HOST", "0.0.0.0", "PARREG_BACKEND", "cpu");
    String err =
        run(
            env,
            "node",
            "--participant",
            "0",
            "--port",
            "25001",
            "--seed-nodes",
            "127.0.0.1:25001",
            "--journal",
            dir.resolve("j").toString(),
            "--steps",
            "10",
            "--bind-host",
            "127.0.0.1",
            "--backend",
            "tpu");
    assertTrue(
        err.contains("unknown backend 'tpu'"),
        "--backend beat PARREG_BACKEND and --bind-host was not refused: " + err);
  }

  @Test
  void variableNamesAreTheLongOptionInUpperSnakeCase() {
    CommandLine.Model.OptionSpec o =
        Main.commandLine()
            .getSubcommands()
            .get("node")
            .getCommandSpec()
            .findOption("--tls-password-file");
    assertEquals("PARREG_TLS_PASSWORD_FILE", EnvironmentDefaults.variable(o));
  }
}
