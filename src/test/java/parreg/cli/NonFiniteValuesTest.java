package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.RunContract;

/**
 * Non-finite numbers (issue 13 item 4, first half): refused as node inputs before anything is
 * written, and a model or a prediction that is not finite makes {@code predict} exit 2 with the
 * reason instead of printing NaN or Infinity with exit 0.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NonFiniteValuesTest {
  @TempDir Path dir;

  String[] fileNode(String option, String value) throws Exception {
    Path data = Files.writeString(dir.resolve("a.csv"), "x1,y\n1,2\n2,4\n");
    return new String[] {
      "node",
      "--participant",
      "0",
      "--participants",
      "1",
      "--port",
      "25201",
      "--seed-nodes",
      "127.0.0.1:25201",
      "--data",
      data.toString(),
      "--solver",
      "gd",
      "--journal",
      dir.resolve("j").toString(),
      "--steps",
      "3",
      "--backend",
      "cpu",
      option,
      value
    };
  }

  @Test
  void nonFiniteInitialWeightsAreRefusedBeforeAJournalExists() throws Exception {
    for (String w : List.of("NaN", "Infinity", "-Infinity", "1e400")) {
      CommandLineTest.Run r = CommandLineTest.run(fileNode("--initial-weights", w));
      CommandLineTest.assertUserError(r, "--initial-weights: value 1 '" + w + "' is not a finite");
      assertFalse(Files.exists(dir.resolve("j")), "no journal for " + w);
    }
  }

  @Test
  void nonFiniteLearningRatesAreRefusedBeforeAJournalExists() throws Exception {
    for (String rate : List.of("NaN", "Infinity", "1e400", "1/0")) {
      CommandLineTest.Run r = CommandLineTest.run(fileNode("--learning-rate", rate));
      CommandLineTest.assertUserError(r, "--learning-rate: learning rate '" + rate + "'");
      assertFalse(Files.exists(dir.resolve("j")), "no journal for " + rate);
    }
  }

  Path checkpoint(String name, double w) throws Exception {
    Path out = dir.resolve(name);
    new Checkpoint(RunContract.seed(2, 0), 1, 7, new double[] {w}, Double.NaN).writeTo(out);
    return out;
  }

  @Test
  void aNonFiniteModelDoesNotPredict() throws Exception {
    CommandLineTest.Run r =
        CommandLineTest.run(
            "predict", "--checkpoint", checkpoint("nan.json", Double.NaN).toString(), "--x", "2");
    CommandLineTest.assertUserError(r, "the model at step 7 has a non-finite parameter w1 = NaN");
    r =
        CommandLineTest.run(
            "predict",
            "--checkpoint",
            checkpoint("inf.json", Double.NEGATIVE_INFINITY).toString(),
            "--x",
            "2");
    CommandLineTest.assertUserError(r, "non-finite parameter w1 = -Infinity");
  }

  @Test
  void aPredictionBeyondTheBinary64RangeIsRefused() throws Exception {
    Path big = checkpoint("big.json", 1e300);
    CommandLineTest.assertUserError(
        CommandLineTest.run("predict", "--checkpoint", big.toString(), "--x", "1e10"),
        "--x 1e10: the prediction is Infinity");
    // Many rows: the rows before the bad one are printed, then exit 2 names the line.
    Path rows = Files.writeString(dir.resolve("rows.csv"), "x1\n2\n1e10\n3\n");
    NodeProcess.Result p =
        NodeProcess.run(
            List.of("predict", "--checkpoint", big.toString(), "--input", rows.toString()),
            Duration.ofSeconds(60));
    assertEquals(2, p.exitCode(), p.output());
    assertTrue(p.output().startsWith("2.0E300\n"), p.output());
    assertTrue(p.output().contains(rows + " line 3: the prediction is Infinity"), p.output());
    assertFalse(p.output().contains("3.0E300"), p.output());
  }
}
