package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.data.PartitionFiles;

/**
 * CSV input through the real command line, as every command reads it: every line end, a byte-order
 * mark in {@code predict --input} too, {@code --delimiter} on every command, {@code --na drop} with
 * its count printed, and a line over the limit ending in exit 2 with file and line.
 */
class CsvInputCommandsTest {
  @TempDir Path dir;

  private Path file(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  /** A model y = 1.5 x1 + 0.5 x2 + 1 (checkpoint file). */
  private Path model() throws Exception {
    RunContract c =
        new RunContract(
            "csv",
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
    Path m = dir.resolve("m.json");
    new Checkpoint(c, 0, 1, new double[] {1.5, 0.5, 1}, Double.NaN).writeTo(m);
    return m;
  }

  private static String lines(String out) {
    return out.replace(System.lineSeparator(), "\n");
  }

  @Test
  void convertOfMixedLineEndsWritesEveryRow() throws Exception {
    // the file: 4 rows, lines ending in LF and lone CR in turn
    Path mixed = file("mixed.csv", "x1,y\n1,2\r3,4\n5,6\r7,8\n");
    Path out = dir.resolve("mixed.prb");
    DataCommandsTest.Run r =
        DataCommandsTest.run("convert", "--in", mixed.toString(), "--out", out.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains(": 4 rows, d=1"), r.out());
    assertEquals(4, PartitionFiles.read(out).samples());
    Path cr = file("cr.csv", "x1,y\r1,2\r3,4\r5,6\r7,8\r");
    DataCommandsTest.Run c =
        DataCommandsTest.run(
            "convert", "--in", cr.toString(), "--out", dir.resolve("cr.prb").toString());
    assertEquals(0, c.code(), c.err());
    assertTrue(c.out().contains("sha256 " + PartitionFiles.read(out).digest()), c.out());
  }

  @Test
  void predictInputAcceptsAByteOrderMarkCrLfAndQuotes() throws Exception {
    Path m = model();
    String want = "3.5\n1.5\n4.0\n";
    for (String text :
        new String[] {
          "x1,x2\n1,2\n0,1\n2,0\n",
          "\uFEFFx1,x2\r\n1,2\r\n0,1\r\n2,0\r\n",
          "\uFEFF\"x1\",\"x2\"\r1,\"2\"\r0,1\r\r2,0",
          "1,2\n0,1\n2,0\n"
        }) {
      Path in = file("in" + text.hashCode() + ".csv", text);
      DataCommandsTest.Run p =
          DataCommandsTest.run("predict", "--checkpoint", m.toString(), "--input", in.toString());
      assertEquals(0, p.code(), p.err());
      assertEquals(want, lines(p.out()), text);
    }
    Path named =
        file("named.csv", "\uFEFF\"b\";\"a\";\"note\"\r\n2;1;\"x;y\"\r\n1;0;\r\n0;2;z\r\n");
    DataCommandsTest.Run p =
        DataCommandsTest.run(
            "predict",
            "--checkpoint",
            m.toString(),
            "--input",
            named.toString(),
            "--features",
            "a,b",
            "--delimiter",
            ";");
    assertEquals(0, p.code(), p.err());
    assertEquals(want, lines(p.out()));
  }

  @Test
  void everyCommandTakesTheDelimiter() throws Exception {
    Path m = model();
    Path comma = file("comma.csv", "x1,x2,y\n1,2,5\n0,1,3\n2,0,4\n");
    Path tab = file("tab.csv", "x1\tx2\ty\n1\t2\t5\n0\t1\t3\n2\t0\t4\n");
    String want =
        DataCommandsTest.run(
                "evaluate", "--checkpoint", m.toString(), "--input", comma.toString(), "--json")
            .out();
    DataCommandsTest.Run e =
        DataCommandsTest.run(
            "evaluate",
            "--checkpoint",
            m.toString(),
            "--input",
            tab.toString(),
            "--json",
            "--delimiter",
            "tab");
    assertEquals(0, e.code(), e.err());
    assertEquals(want.replace(comma.toString(), tab.toString()), e.out());
    DataCommandsTest.Run v =
        DataCommandsTest.run(
            "convert",
            "--in",
            tab.toString(),
            "--out",
            dir.resolve("t.prb").toString(),
            "--delimiter",
            "\\t");
    assertEquals(0, v.code(), v.err());
    assertTrue(v.out().contains("sha256 " + PartitionFiles.read(comma).digest()), v.out());
    DataCommandsTest.Run p =
        DataCommandsTest.run(
            "predict",
            "--checkpoint",
            m.toString(),
            "--input",
            tab.toString(),
            "--no-header",
            "--features",
            "0,1",
            "--delimiter",
            "tab");
    assertEquals(2, p.code()); // the header line is data here: "x1" is not a number
    assertTrue(p.err().contains(tab + " line 1: value 1 'x1' is not a number"), p.err());
    // a node reads its data with it: d=2 is what the weights are checked against
    DataCommandsTest.Run n =
        DataCommandsTest.run(
            node("--data", tab.toString(), "--delimiter", "tab", "--initial-weights", "1"));
    assertEquals(2, n.code(), n.err());
    assertTrue(n.err().contains("--initial-weights: expected 2 values (d=2), got 1"), n.err());
    for (String bad : new String[] {";;", "", "."}) {
      DataCommandsTest.Run b =
          DataCommandsTest.run(
              "convert",
              "--in",
              tab.toString(),
              "--out",
              dir.resolve("b.prb").toString(),
              "--delimiter",
              bad);
      assertEquals(2, b.code(), bad);
      assertTrue(b.err().contains("--delimiter"), b.err());
      assertFalse(b.err().contains("\tat "), b.err());
    }
    DataCommandsTest.Run seed = DataCommandsTest.run(node("--data", "seed", "--delimiter", ";"));
    assertEquals(2, seed.code());
    assertTrue(seed.err().contains("apply to --data FILE, not to --data seed"), seed.err());
  }

  @Test
  void droppedRowsAreCountedWhereTheCommandSummarises() throws Exception {
    Path m = model();
    Path gaps = file("gaps.csv", "x1,x2,y\n1,2,5\nNA,1,3\n0,1,3\n2,,4\n2,0,4\n");
    Path clean = file("clean.csv", "x1,x2,y\n1,2,5\n0,1,3\n2,0,4\n");
    DataCommandsTest.Run refused =
        DataCommandsTest.run("evaluate", "--checkpoint", m.toString(), "--input", gaps.toString());
    assertEquals(2, refused.code());
    assertTrue(
        refused.err().contains(gaps + " line 3: x1 is 'NA', a missing value"), refused.err());
    DataCommandsTest.Run e =
        DataCommandsTest.run(
            "evaluate", "--checkpoint", m.toString(), "--input", gaps.toString(), "--na", "drop");
    assertEquals(0, e.code(), e.err());
    assertTrue(
        e.out().contains("n     3\n      2 rows with a missing value dropped (--na drop)\n"),
        lines(e.out()));
    DataCommandsTest.Run j =
        DataCommandsTest.run(
            "evaluate",
            "--checkpoint",
            m.toString(),
            "--input",
            gaps.toString(),
            "--na",
            "drop",
            "--json");
    assertTrue(j.out().contains("\"n\":3,\"droppedRows\":2,"), j.out());
    DataCommandsTest.Run c =
        DataCommandsTest.run(
            "convert",
            "--in",
            gaps.toString(),
            "--out",
            dir.resolve("g.prb").toString(),
            "--na",
            "drop");
    assertEquals(0, c.code(), c.err());
    assertTrue(
        c.out()
            .contains(
                ": 3 rows, d=2, sha256 "
                    + PartitionFiles.read(clean).digest()
                    + "; 2 rows with a missing value dropped (--na drop)"),
        c.out());
    DataCommandsTest.Run n =
        DataCommandsTest.run(
            node("--data", gaps.toString(), "--na", "drop", "--initial-weights", "1"));
    assertEquals(2, n.code(), n.err());
    assertTrue(
        n.err()
            .contains(
                "parreg: --data " + gaps + ": 2 rows with a missing value dropped (--na drop)"),
        n.err());
    DataCommandsTest.Run bad =
        DataCommandsTest.run(
            "convert",
            "--in",
            gaps.toString(),
            "--out",
            dir.resolve("h.prb").toString(),
            "--na",
            "skip");
    assertEquals(2, bad.code());
    assertTrue(bad.err().contains("--na must be refuse or drop, not 'skip'"), bad.err());
  }

  @Test
  void aLineOverTheLimitIsExitTwoWithFileAndLine() throws Exception {
    // 17 M characters on line 3: over the 16 Mi limit, read without holding more than it
    Path big = dir.resolve("big.csv");
    try (BufferedWriter w = Files.newBufferedWriter(big)) {
      w.write("x1,y\n1,2\n3,");
      char[] digits = new char[1 << 16];
      java.util.Arrays.fill(digits, '7');
      for (int k = 0; k < 17_000_000 / digits.length + 1; k++) {
        w.write(digits);
      }
      w.write("\n5,6\n");
    }
    Path out = dir.resolve("big.prb");
    DataCommandsTest.Run r =
        DataCommandsTest.run("convert", "--in", big.toString(), "--out", out.toString());
    assertEquals(2, r.code(), r.err());
    assertEquals(
        "parreg: "
            + big
            + " line 3: the line is longer than the limit of 16777216 characters"
            + " (an unclosed quote, or not a CSV file?)",
        r.err().strip());
    assertFalse(Files.exists(out));
  }

  private String[] node(String... extra) {
    String[] base = {
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
      "10",
      "--backend",
      "cpu"
    };
    String[] all = new String[base.length + extra.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(extra, 0, all, base.length, extra.length);
    return all;
  }
}
