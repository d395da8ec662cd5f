package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Precision;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.data.CsvColumns;
import parreg.device.data.CsvDialect;
import parreg.device.data.PartitionFiles;
import parreg.device.data.RowSlice;

/**
 * Binary64 data through the command line: {@code convert --precision f64} writes a binary64 {@code
 * .prb} (and keeps binary32 the default for CSV input), a binary64 file is refused where binary32
 * data are read, and {@code evaluate} and {@code predict --input} read rows at the precision of the
 * model's data.
 */
class Binary64PrbCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path csv() throws Exception {
    // 0.1 and 0.3 are not binary32 values: at binary32 the rows are other numbers
    return Files.writeString(dir.resolve("t.csv"), "x1,y\n0.1,0.3\n0.7,2.2\n1.3,3.8\n");
  }

  private static int version(Path prb) throws Exception {
    return ByteBuffer.wrap(Files.readAllBytes(prb)).order(ByteOrder.LITTLE_ENDIAN).getInt(8);
  }

  private static String digest(Path f, Precision p) throws Exception {
    return PartitionFiles.load(f, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, RowSlice.ALL, p)
        .partition()
        .digest();
  }

  @Test
  void convertWritesBinary64OnRequestAndBinary32ByDefault() throws Exception {
    Path csv = csv();
    Path f64 = dir.resolve("t64.prb");
    DataCommandsTest.Run r =
        DataCommandsTest.run(
            "convert", "--in", csv.toString(), "--out", f64.toString(), "--precision", "f64");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("binary64"), r.out());
    assertEquals(2, version(f64));
    assertTrue(r.out().contains(digest(csv, Precision.F64)), r.out());
    assertEquals(digest(csv, Precision.F64), digest(f64, Precision.F64));

    Path f32 = dir.resolve("t32.prb");
    r = DataCommandsTest.run("convert", "--in", csv.toString(), "--out", f32.toString());
    assertEquals(0, r.code(), r.err());
    assertFalse(r.out().contains("binary64"), r.out());
    assertEquals(1, version(f32));
    assertEquals(digest(csv, Precision.F32), digest(f32, Precision.F32));

    // a binary64 .prb converts to CSV at its own precision, bits kept
    Path back = dir.resolve("back.csv");
    r = DataCommandsTest.run("convert", "--in", f64.toString(), "--out", back.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(digest(csv, Precision.F64), digest(back, Precision.F64));

    // never rounded to binary32, and an unknown precision: exit 2, nothing written
    Path refused = dir.resolve("r.prb");
    r =
        DataCommandsTest.run(
            "convert", "--in", f64.toString(), "--out", refused.toString(), "--precision", "f32");
    assertEquals(2, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(f64.toString()) && r.err().contains("binary64"), r.err());
    assertFalse(Files.exists(refused));
    r =
        DataCommandsTest.run(
            "convert", "--in", csv.toString(), "--out", refused.toString(), "--precision", "f16");
    assertEquals(2, r.code(), r.out() + r.err());
    assertTrue(r.err().contains("--precision"), r.err());
    assertFalse(Files.exists(refused));
  }

  @Test
  void aNodeRefusesBinary64DataWhereBinary32AreRead() throws Exception {
    Path f64 = dir.resolve("n.prb");
    assertEquals(
        0,
        DataCommandsTest.run(
                "convert", "--in", csv().toString(), "--out", f64.toString(), "--precision", "f64")
            .code());
    for (String[] flags :
        new String[][] {{"--precision", "f32"}, {"--solver", "gd"}, {"--batch-size", "1"}}) {
      String[] args = {
        "node",
        "--participant",
        "0",
        "--participants",
        "1",
        "--port",
        "25019",
        "--seed-nodes",
        "127.0.0.1:25019",
        "--journal",
        dir.resolve("j").toString(),
        "--steps",
        "1",
        "--backend",
        "cpu",
        "--data",
        f64.toString(),
        flags[0],
        flags[1]
      };
      DataCommandsTest.Run r = DataCommandsTest.run(args);
      assertEquals(2, r.code(), String.join(" ", flags) + ": " + r.out() + r.err());
      assertTrue(r.err().contains("--data " + f64), r.err());
      assertTrue(r.err().contains("binary64"), r.err());
      assertFalse(r.err().contains("\tat "), r.err());
      assertFalse(Files.exists(dir.resolve("j")), "no journal was created");
    }
  }

  /** A checkpoint of y = w x + b, its data of precision {@code p}. */
  private Path model(String name, Precision p, double w, double b) throws Exception {
    RunContract c =
        new RunContract(
                "b64",
                RunContract.SCHEMA,
                RunContract.CHECKPOINT_CONTRACT,
                RunContract.LOSS,
                "1/4",
                new double[2],
                1,
                true,
                1,
                "test",
                0,
                ReductionOrder.VERSION)
            .withSolver(
                parreg.device.SolverSpec.exact(
                    parreg.solver.GramOrder.VERSION, parreg.solver.ExactSolver.NAME, "0"))
            .withPrecision(p);
    Path out = dir.resolve(name);
    new Checkpoint(c, 0, 1, new double[] {w, b}, Double.NaN).writeTo(out);
    return out;
  }

  private static double rmse(double w, double b, double[] x, double[] y) {
    double s = 0;
    for (int i = 0; i < x.length; i++) {
      double r = y[i] - (w * x[i] + b);
      s += r * r;
    }
    return Math.sqrt(s / x.length);
  }

  @Test
  void evaluateAndPredictReadRowsAtTheModelsPrecision() throws Exception {
    Path csv = csv();
    Path f64 = dir.resolve("e.prb");
    DataCommandsTest.run(
        "convert", "--in", csv.toString(), "--out", f64.toString(), "--precision", "f64");
    double w = 3;
    double b = 0.125;
    double[] x = {0.1, 0.7, 1.3};
    double[] y = {0.3, 2.2, 3.8};
    double[] x32 = {0.1f, 0.7f, 1.3f};
    double[] y32 = {0.3f, 2.2f, 3.8f};
    double want64 = rmse(w, b, x, y);
    double want32 = rmse(w, b, x32, y32);
    assertTrue(want64 != want32, "the test's rows tell the precisions apart");

    Path m64 = model("m64.json", Precision.F64, w, b);
    Path m32 = model("m32.json", Precision.F32, w, b);
    for (Path input : new Path[] {csv, f64}) {
      JsonNode r = evaluate(m64, input);
      assertEquals(want64, r.get("rmse").asDouble(), input.toString());
    }
    assertEquals(want32, evaluate(m32, csv).get("rmse").asDouble());
    // a binary32 model is not judged on binary64 rows rounded: exit 2 naming the file
    DataCommandsTest.Run r =
        DataCommandsTest.run(
            "evaluate", "--checkpoint", m32.toString(), "--input", f64.toString(), "--json");
    assertEquals(2, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(f64.toString()) && r.err().contains("binary64"), r.err());

    // predict --input parses each value to binary64 (the f64 model's rows, as --x)
    Path rows = Files.writeString(dir.resolve("p.csv"), "x1\n0.1\n0.7\n");
    r = DataCommandsTest.run("predict", "--checkpoint", m64.toString(), "--input", rows.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals((w * 0.1 + b) + "\n" + (w * 0.7 + b) + "\n", r.out().replace("\r", ""));
  }

  private static JsonNode evaluate(Path model, Path input) throws Exception {
    DataCommandsTest.Run r =
        DataCommandsTest.run(
            "evaluate", "--checkpoint", model.toString(), "--input", input.toString(), "--json");
    assertEquals(0, r.code(), r.err());
    return JSON.readTree(r.out());
  }
}
