package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;

/** {@code parreg evaluate} through the real command line: hand-computed and known-truth cases. */
class EvaluateCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  /** A checkpoint of a model with d features and a bias, parameters {@code w} (bias last). */
  private Path model(String name, double... w) throws Exception {
    int d = w.length - 1;
    RunContract c =
        new RunContract(
            "evaluate-test",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/4",
            new double[w.length],
            d,
            true,
            1,
            "test",
            0,
            ReductionOrder.VERSION);
    Path out = dir.resolve(name);
    new Checkpoint(c, 0, 10, w, Double.NaN).writeTo(out);
    return out;
  }

  private static JsonNode json(DataCommandsTest.Run r) throws Exception {
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }

  @Test
  void smallCaseMatchesTheHandComputedMetrics() throws Exception {
    // y = 2x + 1 predicts 1, 3, 5, 7; the targets 0, 2, 4, 10 give errors -1, -1, -1, 3:
    // SSE = 12, RMSE = sqrt(3), MAE = 6/4, mean y = 4, SST = 16 + 4 + 0 + 36 = 56, R² = 1 - 12/56.
    Path m = model("m.json", 2, 1);
    Path csv = dir.resolve("t.csv");
    Files.writeString(csv, "x1,y\n0,0\n1,2\n2,4\n3,10\n");
    JsonNode r =
        json(
            DataCommandsTest.run(
                "evaluate", "--checkpoint", m.toString(), "--input", csv.toString(), "--json"));
    assertEquals(4, r.get("n").asLong());
    assertEquals(Math.sqrt(3.0), r.get("rmse").asDouble());
    assertEquals(1.5, r.get("mae").asDouble());
    assertEquals(1.0 - 12.0 / 56.0, r.get("r2").asDouble());
    assertEquals(10, r.get("committedStep").asLong());

    DataCommandsTest.Run text =
        DataCommandsTest.run("evaluate", "--checkpoint", m.toString(), "--input", csv.toString());
    assertEquals(0, text.code(), text.err());
    assertTrue(
        text.out()
            .contains(
                "n     4\nRMSE  " + Math.sqrt(3.0) + "\nMAE   1.5\nR2    " + (1.0 - 12.0 / 56.0)),
        text.out());
  }

  @Test
  void aDivergedModelIsNamedAsSuch() throws Exception {
    // The last finite step of a diverged run: weights of 1e36 on data whose y spreads by 1.
    Path m = model("diverged.json", -3.5e36, 1.2e35);
    Path csv = dir.resolve("d.csv");
    Files.writeString(csv, "x1,y\n0,0\n1,2\n2,4\n3,5\n");
    DataCommandsTest.Run r =
        DataCommandsTest.run("evaluate", "--checkpoint", m.toString(), "--input", csv.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.err().contains("this model looks diverged"), r.err());
    assertTrue(r.err().contains("--learning-rate"), r.err());
    // A poor but honest fit is not called diverged.
    DataCommandsTest.Run poor =
        DataCommandsTest.run(
            "evaluate",
            "--checkpoint",
            model("poor.json", -1, 0).toString(),
            "--input",
            csv.toString());
    assertEquals(0, poor.code(), poor.err());
    assertTrue(poor.err().isEmpty(), poor.err());
  }

  @Test
  void generatedDataWithKnownTruthGivesTheNoiseLevel() throws Exception {
    // With the true model, the errors are the generator's noise: N(0, sigma²). So RMSE ≈ sigma,
    // MAE ≈ sigma·sqrt(2/π), and R² ≈ 1 - sigma² / (|w|² + sigma²) (x is standard normal).
    double sigma = 0.5;
    Path data = dir.resolve("data");
    DataCommandsTest.Run g =
        DataCommandsTest.run(
            "generate",
            "--rows",
            "100000",
            "--features",
            "3",
            "--partitions",
            "1",
            "--noise",
            Double.toString(sigma),
            "--seed",
            "11",
            "--out",
            data.toString(),
            "--bias",
            "--format",
            "bin");
    assertEquals(0, g.code(), g.err());
    JsonNode truth = JSON.readTree(data.resolve("truth.json").toFile());
    double[] w = new double[4];
    double norm2 = 0;
    for (int j = 0; j < 3; j++) {
      w[j] = truth.get("weights").get(j).asDouble();
      norm2 += w[j] * w[j];
    }
    w[3] = truth.get("bias").asDouble();
    Path m = model("truth.json", w);
    Path prb = data.resolve("part-0.prb");
    JsonNode r =
        json(
            DataCommandsTest.run(
                "evaluate", "--checkpoint", m.toString(), "--input", prb.toString(), "--json"));
    assertEquals(100000, r.get("n").asLong());
    assertEquals(sigma, r.get("rmse").asDouble(), 0.005);
    assertEquals(sigma * Math.sqrt(2 / Math.PI), r.get("mae").asDouble(), 0.005);
    assertEquals(1 - sigma * sigma / (norm2 + sigma * sigma), r.get("r2").asDouble(), 0.005);

    // The same rows as CSV give the same bits: both are read as training reads them.
    Path csv = dir.resolve("part-0.csv");
    assertEquals(
        0, DataCommandsTest.run("convert", "--in", prb.toString(), "--out", csv.toString()).code());
    JsonNode c =
        json(
            DataCommandsTest.run(
                "evaluate", "--checkpoint", m.toString(), "--input", csv.toString(), "--json"));
    for (String k : new String[] {"n", "rmse", "mae", "r2"}) {
      assertEquals(r.get(k).asText(), c.get(k).asText(), k);
    }
  }

  @Test
  void badInputNamesFileAndLine() throws Exception {
    Path m = model("m.json", 2, 1);
    Path wrongD = dir.resolve("wrong-d.csv");
    Files.writeString(wrongD, "x1,x2,y\n1,2,3\n");
    DataCommandsTest.Run r =
        DataCommandsTest.run(
            "evaluate", "--checkpoint", m.toString(), "--input", wrongD.toString());
    assertEquals(2, r.code());
    assertEquals(
        "parreg: --input " + wrongD + " line 1: expected d=1 features (x1,y), the header has d=2",
        r.err().strip());

    Path ragged = dir.resolve("ragged.csv");
    Files.writeString(ragged, "x1,y\n1,2\n3\n");
    r =
        DataCommandsTest.run(
            "evaluate", "--checkpoint", m.toString(), "--input", ragged.toString());
    assertEquals(2, r.code());
    assertEquals(
        "parreg: --input " + ragged + " line 3: expected 2 values (x1,y), found 1",
        r.err().strip());
    assertEquals("", r.out());

    r =
        DataCommandsTest.run(
            "evaluate",
            "--checkpoint",
            m.toString(),
            "--input",
            dir.resolve("none.csv").toString());
    assertEquals(2, r.code());
    assertEquals("parreg: --input " + dir.resolve("none.csv") + ": no such file", r.err().strip());
  }
}
