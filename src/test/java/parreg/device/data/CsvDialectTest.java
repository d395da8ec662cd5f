package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * {@link CsvDialect}: other delimiters read the bits of the comma; missing values (an empty cell,
 * {@code NA}) are refused with file, line and column, or dropped and counted, before a slice is
 * cut; {@code NaN} and {@code Inf} stay refused.
 */
class CsvDialectTest {
  @TempDir Path dir;

  static final CsvDialect DROP = CsvDialect.of(',', CsvDialect.Missing.DROP);

  private Path csv(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  private static PartitionFiles.Loaded load(Path f, CsvColumns c, CsvDialect dialect, RowSlice s)
      throws Exception {
    return PartitionFiles.load(f, 0, c, dialect, s);
  }

  private static String error(Path f, CsvColumns c, CsvDialect dialect) {
    String read =
        assertThrows(DataFormatException.class, () -> load(f, c, dialect, RowSlice.ALL))
            .getMessage();
    String streamed =
        assertThrows(
                DataFormatException.class,
                () -> PartitionFiles.stream(f, 0, c, dialect, (i, x, y, w) -> {}))
            .getMessage();
    assertEquals(read, streamed, "stream vs read of " + f);
    return read;
  }

  @Test
  void otherDelimitersReadTheBitsOfTheComma() throws Exception {
    Partition want = PartitionFiles.read(csv("comma.csv", "x1,x2,y\n1.5,2,3\n-4,5e-3,6\n"));
    for (char c : new char[] {';', '\t', '|', ' '}) {
      String text = "x1,x2,y\n1.5,2,3\n-4,5e-3,6\n".replace(',', c);
      Path f = csv("d" + (int) c + ".csv", text);
      CsvDialect dialect = CsvDialect.of(c, CsvDialect.Missing.REFUSE);
      PartitionFilesTest.assertSameBits(
          want, load(f, CsvColumns.DEFAULT, dialect, RowSlice.ALL).partition());
      // a quoted field may hold the delimiter
      Path q =
          csv(
              "q" + (int) c + ".csv",
              ("y,note,x2,x1\n3,\"a,b\",2,1.5\n6,-,5e-3,-4\n").replace(',', c));
      PartitionFilesTest.assertSameBits(
          want,
          load(q, new CsvColumns(true, "y", List.of("x1", "x2")), dialect, RowSlice.ALL)
              .partition());
    }
    // read with the wrong delimiter, a one-column header says which one it holds
    Path semi = csv("semi.csv", "x1;x2;y\n1.5;2;3\n");
    assertEquals(
        semi
            + " line 1: header must be x1,...,xd,y; found 'x1;x2;y' (or choose columns by name"
            + " with --label/--features, or use --no-header); the header is one column holding"
            + " ';': is the file delimited by it (--delimiter)?",
        error(semi, CsvColumns.DEFAULT, CsvDialect.DEFAULT));
  }

  @Test
  void delimitersThatCannotWorkAreRefused() {
    for (char c : new char[] {'"', '\n', '\r', '.', '-', '+', 'e', 'E', '0', '7'}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> CsvDialect.of(c, CsvDialect.Missing.REFUSE),
              "delimiter " + (int) c);
      assertTrue(e.getMessage().startsWith("--delimiter "), e.getMessage());
    }
  }

  @Test
  void missingValuesAreRefusedWithFileLineAndColumn() throws Exception {
    Path empty = csv("empty.csv", "x1,x2,y\n1,2,3\n4,,6\n");
    assertEquals(
        empty + " line 3: x2 is '', not a number",
        error(empty, CsvColumns.DEFAULT, CsvDialect.DEFAULT));
    Path na = csv("na.csv", "price,size,id\n1,2,a\nNA,5,b\n");
    assertEquals(
        na
            + " line 3: price is 'NA', a missing value (--na drop leaves out the rows that have one)",
        error(na, new CsvColumns(true, "price", List.of("size")), CsvDialect.DEFAULT));
    // NaN and Inf are numbers that are not finite, not missing values: refused even when dropping
    Path nan = csv("nan.csv", "x1,y\n1,2\nNaN,3\n");
    assertEquals(
        nan + " line 3: x1 is 'NaN', not a finite number", error(nan, CsvColumns.DEFAULT, DROP));
    Path inf = csv("inf.csv", "x1,y\n1,2\n3,-Inf\n");
    assertEquals(
        inf + " line 3: y is '-Inf', not a finite number", error(inf, CsvColumns.DEFAULT, DROP));
  }

  @Test
  void droppedRowsAreCountedAndTheRestReadAsWithoutThem() throws Exception {
    // rows 2 and 4 miss a chosen value; the id column's empty cell (row 3) is not chosen
    Path f = csv("gaps.csv", "y,id,x1\n1,a,10\nNA,b,20\n3,,30\n4,d,\n5,e,\"\"\n6,f,60\n7,g,70\n\n");
    Path clean = csv("clean.csv", "x1,y\n10,1\n30,3\n60,6\n70,7\n");
    CsvColumns cols = new CsvColumns(true, "y", List.of("x1"));
    PartitionFiles.Loaded l = load(f, cols, DROP, RowSlice.ALL);
    assertEquals(3, l.droppedRows());
    Partition want = PartitionFiles.read(clean);
    PartitionFilesTest.assertSameBits(want, l.partition());
    long[] streamed = {0};
    PartitionFiles.Streamed s =
        PartitionFiles.stream(f, 0, cols, DROP, (i, x, y, w) -> streamed[0]++);
    assertEquals(new PartitionFiles.Streamed(4, 3), s);
    assertEquals(4, streamed[0]);
    // --split cuts the rows left: 4 rows over 2 participants, 2 each, every dropped row counted
    for (int p = 0; p < 2; p++) {
      PartitionFiles.Loaded part = load(f, cols, DROP, new RowSlice(p, 2));
      assertEquals(3, part.droppedRows());
      PartitionFilesTest.assertSameBits(
          SplitReadTest.rows(want, 2 * p, 2 * p + 2), part.partition());
    }
    assertEquals(
        dir.resolve("none.csv")
            + ": no data rows left after dropping 2 rows with a missing value (--na drop): an"
            + " empty partition",
        error(csv("none.csv", "x1,y\nNA,1\n2,\n"), CsvColumns.DEFAULT, DROP));
    // without a header the first row is dropped like any other
    PartitionFiles.Loaded nh =
        load(csv("nh.csv", "NA,1\n10,1\n"), new CsvColumns(false, null, null), DROP, RowSlice.ALL);
    assertEquals(1, nh.droppedRows());
    assertEquals(10f, nh.partition().x(0, 0));
  }

  @Test
  void aBinaryFileRefusesADelimiter() throws Exception {
    Path prb = dir.resolve("p.prb");
    PartitionFiles.write(PartitionFiles.read(csv("s.csv", "x1,y\n1,2\n")), prb);
    assertEquals(
        prb
            + ": a binary .prb partition has no delimiter; --delimiter ';' applies to CSV files only",
        error(prb, CsvColumns.DEFAULT, CsvDialect.of(';', CsvDialect.Missing.REFUSE)));
    assertEquals(0, load(prb, CsvColumns.DEFAULT, DROP, RowSlice.ALL).droppedRows());
  }
}
