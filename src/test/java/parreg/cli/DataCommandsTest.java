package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.data.PartitionFiles;

/** {@code parreg generate} and {@code parreg convert} through the real command line. */
class DataCommandsTest {
  @TempDir Path dir;

  record Run(int code, String out, String err) {}

  static synchronized Run run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      int code = Main.execute(args);
      return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void generateThenConvertBothWays() throws Exception {
    Path data = dir.resolve("data");
    Run g =
        run(
            "generate",
            "--rows",
            "1000",
            "--features",
            "3",
            "--partitions",
            "3",
            "--noise",
            "0.05",
            "--seed",
            "9",
            "--out",
            data.toString(),
            "--bias");
    assertEquals(0, g.code(), g.err());
    assertTrue(g.out().contains("true model: w = ["), g.out());
    assertTrue(g.out().contains("participant 2: part-2.csv  333 rows"), g.out());
    assertTrue(Files.exists(data.resolve("truth.json")));

    Path bin = dir.resolve("p0.prb");
    Run c1 = run("convert", "--in", data.resolve("part-0.csv").toString(), "--out", bin.toString());
    assertEquals(0, c1.code(), c1.err());
    Path back = dir.resolve("p0.csv");
    Run c2 = run("convert", "--in", bin.toString(), "--out", back.toString());
    assertEquals(0, c2.code(), c2.err());
    String digest = PartitionFiles.read(data.resolve("part-0.csv")).digest();
    assertTrue(c1.out().contains("sha256 " + digest), c1.out());
    assertTrue(c2.out().contains("sha256 " + digest), c2.out());
    assertEquals(Files.readString(data.resolve("part-0.csv")), Files.readString(back));

    Run again = run("convert", "--in", bin.toString(), "--out", back.toString());
    assertEquals(2, again.code());
    assertEquals("parreg: " + back + " exists; refusing to overwrite", again.err().strip());

    Run regen = run("generate", "--rows", "10", "--features", "1", "--out", data.toString());
    assertEquals(2, regen.code());
    assertTrue(
        regen.err().strip().endsWith("exists; refusing to overwrite (choose another --out)"),
        regen.err());
  }

  @Test
  void badInputIsExitTwoWithFileAndLine() throws Exception {
    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "x1,x2,y\n1,2,3\n4,5\n");
    Run r = run("convert", "--in", bad.toString(), "--out", dir.resolve("bad.prb").toString());
    assertEquals(2, r.code());
    assertEquals(
        "parreg: " + bad + " line 3: expected 3 values (x1..x2,y), found 2", r.err().strip());
    assertTrue(!Files.exists(dir.resolve("bad.prb")));

    Run f =
        run(
            "generate",
            "--rows",
            "10",
            "--features",
            "2",
            "--out",
            dir.toString(),
            "--format",
            "parquet");
    assertEquals(2, f.code());
    assertEquals("parreg: --format must be csv or bin, not 'parquet'", f.err().strip());

    Run z =
        run(
            "generate",
            "--rows",
            "1",
            "--features",
            "2",
            "--partitions",
            "2",
            "--out",
            dir.toString());
    assertEquals(2, z.code());
    assertEquals(1, z.err().strip().lines().count(), z.err());
  }
}
