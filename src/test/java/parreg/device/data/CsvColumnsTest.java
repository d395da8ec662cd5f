package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/** CSV files with any header or none: the columns chosen, the bits read, every bad choice named. */
class CsvColumnsTest {
  @TempDir Path dir;

  private Path csv(String name, String text) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  private static Partition read(Path f, CsvColumns c) throws Exception {
    return PartitionFiles.read(f, 0, c, RowSlice.ALL);
  }

  private String error(Path f, CsvColumns c) {
    return assertThrows(DataFormatException.class, () -> read(f, c)).getMessage();
  }

  private static String option(boolean header, String label, List<String> features) {
    return assertThrows(
            IllegalArgumentException.class, () -> new CsvColumns(header, label, features))
        .getMessage();
  }

  @Test
  void namedColumnsGiveTheBitsOfTheSpecLayout() throws Exception {
    Partition spec = read(csv("spec.csv", "x1,x2,y\n1.5,2,3\n-4,5e-3,6\n"), CsvColumns.DEFAULT);
    // label first, an id and a text column to skip, the features in another order in the file
    Path any = csv("any.csv", "price, id ,size,name,rooms\n3,17,1.5,a b,2\n6,18,-4,\"c\",5e-3\n");
    Partition named = read(any, new CsvColumns(true, "price", List.of("size", "rooms")));
    PartitionFilesTest.assertSameBits(spec, named);
    // the default features are every column but the label, in file order; here: only numbers
    Path num = csv("num.csv", "price,size,rooms\n3,1.5,2\n6,-4,5e-3\n");
    PartitionFilesTest.assertSameBits(spec, read(num, new CsvColumns(true, "price", null)));
    // without --label the label is the column y
    Path y = csv("y.csv", "size,y,rooms\n1.5,3,2\n-4,6,5e-3\n");
    PartitionFilesTest.assertSameBits(
        spec, read(y, new CsvColumns(true, null, List.of("size", "rooms"))));
  }

  @Test
  void noHeaderChoosesBy0BasedPosition() throws Exception {
    Partition spec = read(csv("spec.csv", "x1,x2,y\n1.5,2,3\n-4,5e-3,6\n"), CsvColumns.DEFAULT);
    Path raw = csv("raw.csv", "1.5,2,3\n-4,5e-3,6\n");
    PartitionFilesTest.assertSameBits(
        spec, read(raw, new CsvColumns(false, null, null))); // label: the last column
    Path first = csv("first.csv", "3,1.5,2\n6,-4,5e-3\n");
    PartitionFilesTest.assertSameBits(spec, read(first, new CsvColumns(false, "0", null)));
    PartitionFilesTest.assertSameBits(
        spec, read(first, new CsvColumns(false, "0", List.of("1", "2"))));
  }

  @Test
  void badChoicesAreNamed() throws Exception {
    Path f = csv("h.csv", "a,b,c,a\n1,2,3,4\n");
    assertEquals(
        f + " line 1: --label: no column named 'price' in the header (columns: a,b,c,a)",
        error(f, new CsvColumns(true, "price", null)));
    assertEquals(
        f + " line 1: --features: no column named 'z' in the header (columns: a,b,c,a)",
        error(f, new CsvColumns(true, "b", List.of("c", "z"))));
    assertEquals(
        f
            + " line 1: --features: column name 'a' appears twice in the header (columns 0 and 3, 0-based)",
        error(f, new CsvColumns(true, "b", List.of("a"))));
    assertEquals(
        f
            + " line 1: the header has no column 'y'; name the label column with --label (columns: a,b,c,a)",
        error(f, new CsvColumns(true, null, List.of("b"))));
    // a duplicated name that is not chosen is harmless
    assertEquals(1, read(f, new CsvColumns(true, "b", List.of("c"))).features());
    assertEquals(
        dir.resolve("n.csv") + " line 1: --label 4 is beyond the line's 4 columns (0..3)",
        error(csv("n.csv", "1,2,3,4\n"), new CsvColumns(false, "4", null)));
    assertEquals(
        dir.resolve("one.csv")
            + " line 1: no feature column: the line has only the label column column 0",
        error(csv("one.csv", "1\n2\n"), new CsvColumns(false, null, null)));

    assertEquals(
        "--features: column 'a' is given twice", option(true, "y", List.of("a", "b", "a")));
    assertEquals("--features: column '01' is given twice", option(false, null, List.of("1", "01")));
    assertEquals(
        "--label 'y' is also among --features; a column is either the label or a feature",
        option(true, "y", List.of("a", "y")));
    assertEquals(
        "--label 'price': with --no-header, columns are given by 0-based position (0, 1, ...)",
        option(false, "price", null));
    assertEquals(
        "--features '-1': with --no-header, columns are given by 0-based position (0, 1, ...)",
        option(false, null, List.of("-1")));
  }

  @Test
  void rowsAreCheckedAgainstTheChosenLayout() throws Exception {
    Path f = csv("r.csv", "price,id,size\n3,a,1\n4,b\n");
    assertEquals(
        f + " line 3: expected 3 values (the header's columns), found 2",
        error(f, new CsvColumns(true, "price", List.of("size"))));
    Path g = csv("g.csv", "price,id,size\n3,a,x\n");
    assertEquals(
        g + " line 2: size is 'x', not a number",
        error(g, new CsvColumns(true, "price", List.of("size"))));
    Path h = csv("nh.csv", "3,1\n4,NaN\n");
    assertEquals(
        h + " line 2: column 1 is 'NaN', not a finite number",
        error(h, new CsvColumns(false, "0", null)));
    Path prb = dir.resolve("p.prb");
    PartitionFiles.write(read(csv("s.csv", "x1,y\n1,2\n"), CsvColumns.DEFAULT), prb);
    assertEquals(
        prb
            + ": a binary .prb partition has its own layout (features, then y); --label y applies to CSV files only",
        error(prb, new CsvColumns(true, "y", null)));
  }
}
