package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.data.PartitionFiles;

/**
 * {@code --label}, {@code --features}, {@code --no-header}, {@code --split} and {@code
 * --validation} through the real command line: the same columns give the same numbers in every
 * command, and every bad choice is one line, exit 2, nothing written.
 */
class DataInputOptionsTest {
  @TempDir Path dir;

  private Path file(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  private String[] node(String... extra) {
    String[] base = {
      "node",
      "--participant",
      "1",
      "--participants",
      "3",
      "--port",
      "25011",
      "--seed-nodes",
      "127.0.0.1:25011",
      "--journal",
      dir.resolve("j").toString(),
      "--steps",
      "10",
      "--backend",
      "cpu"
    };
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }

  private void refused(DataCommandsTest.Run r, String message) {
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains(message), "message names the problem: " + r.err());
    assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
    assertFalse(Files.exists(dir.resolve("j")), "no journal was created");
  }

  @Test
  void everyCommandReadsTheChosenColumns() throws Exception {
    Path spec = file("spec.csv", "x1,x2,y\n1,2,5\n0,1,3\n2,0,4\n");
    Path named = file("named.csv", "y_true,id,b,a\n5,r1,2,1\n3,r2,1,0\n4,r3,0,2\n");
    Path raw = file("raw.csv", "2,1,5\n1,0,3\n0,2,4\n");
    String[] namedCols = {"--label", "y_true", "--features", "a,b"};
    String[] rawCols = {"--no-header", "--label", "2", "--features", "1,0"};

    RunContract c =
        new RunContract(
            "cols",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/4",
            new double[3],
            2,
            true,
            1,
            "test",
            0,
            ReductionOrder.VERSION);
    Path model = dir.resolve("m.json");
    new Checkpoint(c, 0, 1, new double[] {1.5, 0.5, 1}, Double.NaN).writeTo(model);
    String want =
        DataCommandsTest.run(
                "evaluate", "--checkpoint", model.toString(), "--input", spec.toString(), "--json")
            .out();
    for (String[] cols : new String[][] {namedCols, rawCols}) {
      Path in = cols == namedCols ? named : raw;
      DataCommandsTest.Run e =
          DataCommandsTest.run(
              concat(
                  new String[] {
                    "evaluate", "--checkpoint", model.toString(), "--input", in.toString(), "--json"
                  },
                  cols));
      assertEquals(0, e.code(), e.err());
      assertEquals(want.replace(spec.toString(), in.toString()), e.out());

      DataCommandsTest.Run p =
          DataCommandsTest.run(
              concat(
                  new String[] {
                    "predict", "--checkpoint", model.toString(), "--input", in.toString()
                  },
                  cols));
      assertEquals(0, p.code(), p.err());
      assertEquals("3.5\n1.5\n4.0\n", p.out().replace(System.lineSeparator(), "\n"));

      Path out = dir.resolve("conv-" + (cols == namedCols ? "n" : "r") + ".prb");
      DataCommandsTest.Run v =
          DataCommandsTest.run(
              concat(
                  new String[] {"convert", "--in", in.toString(), "--out", out.toString()}, cols));
      assertEquals(0, v.code(), v.err());
      assertTrue(v.out().contains("sha256 " + PartitionFiles.read(spec).digest()), v.out());
    }
  }

  @Test
  void badColumnChoicesAreRefusedWithNothingWritten() throws Exception {
    Path named = file("named.csv", "price,size,rooms\n1,2,3\n4,5,6\n7,8,9\n");
    refused(
        DataCommandsTest.run(node("--data", named.toString(), "--label", "cost")),
        named
            + " line 1: --label: no column named 'cost' in the header (columns: price,size,rooms)");
    refused(
        DataCommandsTest.run(
            node("--data", named.toString(), "--label", "price", "--features", "size,size")),
        "--features: column 'size' is given twice");
    refused(
        DataCommandsTest.run(
            node("--data", named.toString(), "--label", "price", "--features", "size,price")),
        "--label 'price' is also among --features");
    refused(
        DataCommandsTest.run(node("--data", named.toString(), "--no-header", "--label", "price")),
        "--label 'price': with --no-header, columns are given by 0-based position");
    refused(
        DataCommandsTest.run(node("--data", named.toString())),
        named + " line 1: header must be x1,...,xd,y; found 'price,size,rooms'");
    refused(
        DataCommandsTest.run(node("--data", "seed", "--split")),
        "apply to --data FILE, not to --data seed");
    Path two = file("two.csv", "x1,y\n1,2\n3,4\n");
    refused(
        DataCommandsTest.run(node("--data", two.toString(), "--split")),
        two
            + ": 2 data rows cannot be split among 3 participants (--split needs at least one row each)");
  }

  @Test
  void badValidationFilesAreRefusedWithNothingWritten() throws Exception {
    Path data = file("d.csv", "x1,x2,y\n1,2,3\n4,5,6\n7,8,9\n");
    Path narrow = file("v.csv", "x1,y\n1,2\n");
    refused(
        DataCommandsTest.run(node("--data", data.toString(), "--validation", narrow.toString())),
        "--validation " + narrow + " line 1: expected d=2 features (x1,x2,y), the header has d=1");
    Path nan = file("nan.csv", "x1,x2,y\n1,2,3\n1,nan,3\n");
    refused(
        DataCommandsTest.run(node("--data", data.toString(), "--validation", nan.toString())),
        "--validation " + nan + " line 3: x2 is 'nan', not a finite number");
    refused(
        DataCommandsTest.run(
            node("--data", data.toString(), "--validation", dir.resolve("none.csv").toString())),
        "--validation " + dir.resolve("none.csv") + ": no such file");
    refused(
        DataCommandsTest.run(
            node(
                "--data",
                data.toString(),
                "--validation",
                data.toString(),
                "--validation-every",
                "0")),
        "--validation-every must be at least 1");
  }

  @Test
  void statusTextShowsTheHoldOutFiguresWhenThereAreAny() throws Exception {
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    String with =
        StatusCommand.summary(
            json.readTree("{\"validationRmse\":0.25,\"validationR2\":0.9,\"validationStep\":300}"));
    assertTrue(with.contains("validation RMSE 0.25  R2 0.9  at step 300\n"), with);
    String undefined =
        StatusCommand.summary(
            json.readTree("{\"validationRmse\":0.0,\"validationR2\":null,\"validationStep\":5}"));
    assertTrue(undefined.contains("validation RMSE 0.0  R2 undefined  at step 5\n"), undefined);
    String without =
        StatusCommand.summary(
            json.readTree(
                "{\"validationRmse\":null,\"validationR2\":null,\"validationStep\":null}"));
    assertFalse(without.contains("validation"), without);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = new String[a.length + b.length];
    System.arraycopy(a, 0, all, 0, a.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
