package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Bits;
import parreg.device.data.ParquetWriting;

/**
 * Parquet through the real command line: {@code fit} on a Parquet file (written by parquet-java's
 * writer: int and float columns, nulls dropped with {@code --na drop}, several row groups) and on
 * the same numbers in CSV writes the same coefficient bits; {@code convert} writes the same {@code
 * .prb} bytes; {@code predict --input} and {@code evaluate} print the same; bad input is exit 2
 * naming file and column, nothing written.
 */
@Tag("multiprocess")
class ParquetCommandsTest {
  @TempDir Path dir;

  private static final int N = 4000;

  /** Row r: carat (float), depth (int32), table (double), price (double), or null for a null. */
  private static Object[] row(int r) {
    Random rnd = new Random(r + 17L);
    float carat = (float) (0.2 + rnd.nextDouble() * 2);
    int depth = 55 + rnd.nextInt(10);
    double table = 50 + rnd.nextGaussian() * 3;
    Double price = r % 211 == 9 ? null : 3000 * carat - 20 * depth + 5 * table + rnd.nextGaussian();
    return new Object[] {carat, depth, table, price};
  }

  private Path parquet() throws Exception {
    Path f = dir.resolve("diamonds.parquet");
    ParquetWriting.write(
        f,
        "message m { required float carat; required int32 depth; required double table;"
            + " optional double price; }",
        N,
        (r, c) -> row(r)[c],
        CompressionCodecName.SNAPPY,
        32_768);
    return f;
  }

  private Path csv() throws Exception {
    List<String> lines = new ArrayList<>();
    lines.add("\"carat\",\"depth\",\"table\",\"price\"");
    for (int r = 0; r < N; r++) {
      Object[] v = row(r);
      // the float column as the decimal of its binary64 widening: the same number at either
      // precision (its float text would be another number when read as binary64)
      lines.add(
          ((Float) v[0]).doubleValue()
              + ","
              + v[1]
              + ","
              + v[2]
              + ","
              + (v[3] == null ? "NA" : v[3]));
    }
    return Files.write(dir.resolve("diamonds.csv"), lines);
  }

  private static DataCommandsTest.Run ok(String... args) {
    DataCommandsTest.Run r = DataCommandsTest.run(args);
    assertEquals(0, r.code(), String.join(" ", args) + "\n" + r.out() + r.err());
    return r;
  }

  /** Features as binary64, so that the CSV text ({@code Double.toString}) is the same number. */
  @Test
  void fitConvertPredictAndEvaluateGiveTheBitsOfTheSameNumbersInCsv() throws Exception {
    Path pq = parquet();
    Path csv = csv();
    List<String> models = new ArrayList<>();
    for (Path data : List.of(pq, csv)) {
      Path work = dir.resolve("fit-" + data.getFileName());
      ok(
          "fit",
          "--data",
          data.toString(),
          "--label",
          "price",
          "--na",
          "drop",
          "--participants",
          "1",
          "--backend",
          "cpu",
          "--dir",
          work.toString());
      Checkpoint cp = Checkpoint.fromFile(work.resolve("model.json"));
      // the node's own model.json, written when its step was durable, is the exported one
      assertArrayEquals(
          Files.readAllBytes(work.resolve("model.json")),
          Files.readAllBytes(work.resolve("node-0/model.json")));
      models.add(Bits.hexList(cp.parameters()));
      assertEquals(N - 19L, ((Number) cp.summary().get("observations")).longValue());
    }
    assertEquals(models.get(0), models.get(1));

    Path model = dir.resolve("fit-diamonds.parquet/model.json");
    ok(
        "convert",
        "--in",
        pq.toString(),
        "--out",
        dir.resolve("p.prb").toString(),
        "--label",
        "price",
        "--na",
        "drop");
    ok(
        "convert",
        "--in",
        csv.toString(),
        "--out",
        dir.resolve("c.prb").toString(),
        "--label",
        "price",
        "--na",
        "drop");
    assertArrayEquals(
        Files.readAllBytes(dir.resolve("c.prb")), Files.readAllBytes(dir.resolve("p.prb")));

    Path features = dir.resolve("x.parquet");
    ParquetWriting.write(
        features,
        "message m { required double carat; required int32 depth; required double table; }",
        50,
        (r, c) -> c == 0 ? (Object) (double) (float) row(r)[0] : row(r)[c],
        CompressionCodecName.GZIP,
        1 << 20);
    Path featuresCsv = dir.resolve("x.csv");
    List<String> lines = new ArrayList<>(List.of("carat,depth,table"));
    for (int r = 0; r < 50; r++) {
      Object[] v = row(r);
      lines.add((double) (float) v[0] + "," + v[1] + "," + v[2]);
    }
    Files.write(featuresCsv, lines);
    String fromParquet =
        ok("predict", "--checkpoint", model.toString(), "--input", features.toString()).out();
    String fromCsv =
        ok(
                "predict",
                "--checkpoint",
                model.toString(),
                "--input",
                featuresCsv.toString(),
                "--features",
                "carat,depth,table")
            .out();
    assertEquals(50, fromParquet.lines().count());
    assertEquals(fromCsv, fromParquet);

    String evalParquet =
        ok(
                "evaluate",
                "--checkpoint",
                model.toString(),
                "--input",
                pq.toString(),
                "--label",
                "price",
                "--na",
                "drop",
                "--json")
            .out();
    String evalCsv =
        ok(
                "evaluate",
                "--checkpoint",
                model.toString(),
                "--input",
                csv.toString(),
                "--label",
                "price",
                "--na",
                "drop",
                "--json")
            .out();
    assertEquals(
        evalCsv.replace(csv.toString(), "DATA"), evalParquet.replace(pq.toString(), "DATA"));
  }

  @Test
  void badParquetInputIsExitTwoNamingFileAndColumn() throws Exception {
    Path pq = parquet();
    Path out = dir.resolve("o.prb");
    DataCommandsTest.Run nulls =
        DataCommandsTest.run(
            "convert", "--in", pq.toString(), "--out", out.toString(), "--label", "price");
    assertEquals(2, nulls.code());
    assertTrue(
        nulls.err().contains(pq + " row 10 (row group 0), column 'price': a missing value (null)"),
        nulls.err());
    DataCommandsTest.Run missing =
        DataCommandsTest.run(
            "convert", "--in", pq.toString(), "--out", out.toString(), "--label", "cut");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains(pq + ": no column named 'cut'"), missing.err());
    Path text = Files.writeString(dir.resolve("t.parquet"), "carat,price\n1,2\n");
    DataCommandsTest.Run notParquet =
        DataCommandsTest.run("convert", "--in", text.toString(), "--out", out.toString());
    assertEquals(2, notParquet.code());
    assertTrue(notParquet.err().contains(text + ": not a readable Parquet file"), notParquet.err());
    assertFalse(notParquet.err().contains("\tat "), notParquet.err());
    assertFalse(Files.exists(out));
  }
}
