package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * Parquet input as parquet-java's writer writes it: int32, int64, float and double columns chosen
 * by name give the same binary32 rows and digest as the same numbers in CSV, over several row
 * groups, every codec the reader has, a directory of part files, {@code --split} and {@code --na
 * drop}; bad input names the file, and the row and column where there is one.
 */
class ParquetPartitionFormatTest {
  @TempDir Path dir;

  private static final String SCHEMA =
      "message m { required int32 a; optional int64 b; required binary name (STRING);"
          + " optional float c; required double d; optional double y; }";

  private static final int N = 3000;

  /** Row r's cells (a, b, name, c, d, y); nulls in b and y where {@code nulls}. */
  private static Object[] row(int r, boolean nulls) {
    Random rnd = new Random(r * 7919L + 1);
    Object b = nulls && r % 97 == 5 ? null : (long) rnd.nextInt(1 << 20) - (1L << 19);
    Object y = nulls && r % 131 == 7 ? null : rnd.nextGaussian() * 100;
    return new Object[] {
      rnd.nextInt(2000) - 1000,
      b,
      "id" + r,
      (float) (rnd.nextGaussian() * 3),
      rnd.nextDouble() * 1e-3,
      y
    };
  }

  private Path parquet(String name, boolean nulls, CompressionCodecName codec, int from, int to)
      throws Exception {
    Path f = dir.resolve(name);
    ParquetWriting.write(f, SCHEMA, to - from, (r, c) -> row(from + r, nulls)[c], codec, 16_384);
    return f;
  }

  /** The same numbers as CSV: ints as integers, float and double by their shortest text. */
  private Path csv(String name, boolean nulls, int from, int to) throws Exception {
    List<String> lines = new ArrayList<>();
    lines.add("a,b,name,c,d,y");
    for (int r = from; r < to; r++) {
      Object[] v = row(r, nulls);
      StringBuilder sb = new StringBuilder();
      for (int c = 0; c < v.length; c++) {
        sb.append(c == 0 ? "" : ",").append(v[c] == null ? "" : v[c].toString());
      }
      lines.add(sb.toString());
    }
    return Files.write(dir.resolve(name), lines);
  }

  private static final CsvColumns COLUMNS = new CsvColumns(true, "y", List.of("d", "a", "c", "b"));

  private static void assertSameRows(Partition expected, Partition actual) {
    assertEquals(expected.samples(), actual.samples());
    assertEquals(expected.features(), actual.features());
    assertArrayEquals(expected.featureMajor(), actual.featureMajor());
    assertArrayEquals(expected.targets(), actual.targets());
    assertEquals(expected.digest(), actual.digest());
  }

  @Test
  void everyCodecGivesTheRowsAndDigestOfTheSameNumbersInCsv() throws Exception {
    Partition fromCsv = PartitionFiles.read(csv("t.csv", false, 0, N), 4, COLUMNS, RowSlice.ALL);
    for (CompressionCodecName codec :
        List.of(
            CompressionCodecName.SNAPPY,
            CompressionCodecName.UNCOMPRESSED,
            CompressionCodecName.GZIP,
            CompressionCodecName.ZSTD,
            CompressionCodecName.LZ4_RAW)) {
      Path f = parquet("t-" + codec + ".parquet", false, codec, 0, N);
      ParquetTable t = ParquetTable.open(f, 0, COLUMNS, true);
      assertTrue(t.groups.size() >= 3, codec + ": " + t.groups.size() + " row groups");
      assertSameRows(fromCsv, PartitionFiles.read(f, 4, COLUMNS, RowSlice.ALL));
    }
  }

  @Test
  void aDirectoryOfPartFilesIsOneTableInNameOrder() throws Exception {
    Path parts = Files.createDirectory(dir.resolve("parts"));
    parquet("parts/part-00001.snappy.parquet", false, CompressionCodecName.SNAPPY, 1000, N);
    parquet("parts/part-00000.snappy.parquet", false, CompressionCodecName.SNAPPY, 0, 1000);
    Files.writeString(parts.resolve("_SUCCESS"), "");
    Partition fromCsv = PartitionFiles.read(csv("t.csv", false, 0, N), 4, COLUMNS, RowSlice.ALL);
    assertSameRows(fromCsv, PartitionFiles.read(parts, 4, COLUMNS, RowSlice.ALL));
  }

  @Test
  void splitSlicesAreTheCsvSlicesWithAndWithoutDroppedNulls() throws Exception {
    for (boolean nulls : new boolean[] {false, true}) {
      Path c = csv("s" + nulls + ".csv", nulls, 0, N);
      Path p = parquet("s" + nulls + ".parquet", nulls, CompressionCodecName.SNAPPY, 0, N);
      CsvDialect drop = CsvDialect.of(',', CsvDialect.Missing.DROP);
      for (int part = 0; part < 3; part++) {
        RowSlice slice = new RowSlice(part, 3);
        PartitionFiles.Loaded fromCsv = PartitionFiles.load(c, 4, COLUMNS, drop, slice);
        PartitionFiles.Loaded fromParquet = PartitionFiles.load(p, 4, COLUMNS, drop, slice);
        assertSameRows(fromCsv.partition(), fromParquet.partition());
        assertEquals(fromCsv.droppedRows(), fromParquet.droppedRows());
      }
    }
  }

  @Test
  void streamingGivesTheRowsOfTheLoad() throws Exception {
    Path p = parquet("st.parquet", true, CompressionCodecName.ZSTD, 0, N);
    CsvDialect drop = CsvDialect.of(',', CsvDialect.Missing.DROP);
    Partition loaded = PartitionFiles.load(p, 4, COLUMNS, drop, RowSlice.ALL).partition();
    int n = loaded.samples();
    float[] x = new float[n * 4];
    float[] y = new float[n];
    PartitionFiles.Streamed s =
        PartitionFiles.stream(
            p,
            4,
            COLUMNS,
            drop,
            (i, row, target, where) -> {
              for (int j = 0; j < 4; j++) {
                x[j * n + (int) i] = row[j];
              }
              y[(int) i] = target;
            });
    assertEquals(n, s.rows());
    assertEquals(N - n, s.droppedRows());
    assertSameRows(loaded, new Partition(n, 4, x, y));
  }

  @Test
  void aNullIsRefusedNamingFileRowAndColumn() throws Exception {
    Path p = parquet("n.parquet", true, CompressionCodecName.SNAPPY, 0, N);
    DataFormatException e =
        assertThrows(
            DataFormatException.class, () -> PartitionFiles.read(p, 4, COLUMNS, RowSlice.ALL));
    assertEquals(
        p
            + " row 6 (row group 0), column 'b': a missing value (null);"
            + " --na drop leaves out the rows that have one",
        e.getMessage());
  }

  @Test
  void badInputNamesTheFileAndTheColumn() throws Exception {
    Path p = parquet("b.parquet", false, CompressionCodecName.SNAPPY, 0, 100);
    String missing =
        assertThrows(
                DataFormatException.class,
                () -> PartitionFiles.read(p, 0, new CsvColumns(true, "price", null), RowSlice.ALL))
            .getMessage();
    assertEquals(p + ": no column named 'price' (columns: a,b,name,c,d,y)", missing);
    String text =
        assertThrows(
                DataFormatException.class,
                () ->
                    PartitionFiles.read(
                        p, 0, new CsvColumns(true, "y", List.of("a", "name")), RowSlice.ALL))
            .getMessage();
    assertTrue(
        text.startsWith(p + ": column 'name' is BINARY (STRING); only int32, int64, float"), text);
    Path notParquet = Files.writeString(dir.resolve("c.parquet"), "x1,y\n1,2\n");
    String bad =
        assertThrows(DataFormatException.class, () -> PartitionFiles.read(notParquet)).getMessage();
    assertTrue(bad.startsWith(notParquet + ": not a readable Parquet file"), bad);
    Path empty = Files.createDirectory(dir.resolve("empty"));
    String none =
        assertThrows(DataFormatException.class, () -> PartitionFiles.read(empty)).getMessage();
    assertEquals(
        empty + ": a directory read as Parquet part files, but it holds no *.parquet file", none);
  }

  @Test
  void nonFiniteValuesAreRefusedWhatever() throws Exception {
    Path p = dir.resolve("nan.parquet");
    ParquetWriting.write(
        p,
        "message m { required double x1; required double y; }",
        10,
        (r, c) -> r == 4 && c == 0 ? Double.NaN : r == 6 && c == 1 ? 1e39 : (double) r,
        CompressionCodecName.SNAPPY,
        1 << 20);
    String nan = assertThrows(DataFormatException.class, () -> PartitionFiles.read(p)).getMessage();
    assertTrue(nan.contains(p + " row 5 (row group 0), column 'x1' is NaN, not a finite"), nan);
    String big =
        assertThrows(
                DataFormatException.class,
                () -> PartitionFiles.read(p, 0, CsvColumns.DEFAULT, new RowSlice(1, 2)))
            .getMessage();
    assertTrue(big.contains("column 'y' is 1.0E39, outside the binary32 range"), big);
  }
}
