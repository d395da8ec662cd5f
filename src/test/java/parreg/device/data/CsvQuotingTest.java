package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * CSV as real tools write it (RFC 4180): quoted headers (R's {@code write.csv}), quoted fields
 * holding delimiters, doubled quotes and line ends, a byte-order mark (Excel), CRLF; each read to
 * the bits of the same numbers written plainly. Broken quoting is refused naming file and line.
 */
class CsvQuotingTest {
  @TempDir Path dir;

  private Path csv(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  private static Partition read(Path f, CsvColumns c) throws Exception {
    return PartitionFiles.read(f, 0, c, RowSlice.ALL);
  }

  private static String error(Path f, CsvColumns c) {
    return assertThrows(DataFormatException.class, () -> read(f, c)).getMessage();
  }

  private Partition plain() throws Exception {
    return PartitionFiles.read(csv("plain.csv", "x1,x2,y\n1.5,2,3\n-4,5e-3,6\n"));
  }

  @Test
  void rWriteCsvQuotedHeaderAndRowNames() throws Exception {
    Partition want = plain();
    // write.csv(df): a quoted header, and the row names as a first column with an empty name
    Path r = csv("r.csv", "\"\",\"x1\",\"x2\",\"y\"\n\"1\",1.5,2,3\n\"2\",-4,0.005,6\n");
    PartitionFilesTest.assertSameBits(
        want, read(r, new CsvColumns(true, "y", List.of("x1", "x2"))));
    // write.csv(df, row.names = FALSE) of the SPEC layout: read without any column option
    Path spec = csv("spec.csv", "\"x1\",\"x2\",\"y\"\r\n1.5,2,3\r\n-4,0.005,6\r\n");
    PartitionFilesTest.assertSameBits(want, PartitionFiles.read(spec));
    // a label named by its unquoted name, as the issue's --label price
    Path price = csv("price.csv", "\"carat\",\"cut\",\"price\"\n1.5,\"Ideal\",3\n-4,\"Good\",6\n");
    Partition p = read(price, new CsvColumns(true, "price", List.of("carat")));
    assertEquals(2, p.samples());
    assertEquals(-4f, p.x(1, 0));
    assertEquals(6f, p.y(1));
  }

  @Test
  void quotedFieldsMayHoldDelimitersQuotesAndLineEnds() throws Exception {
    Partition want = plain();
    Path f =
        csv(
            "q.csv",
            "x1,note,x2,y\n"
                + "\"1.5\",\"a, b \"\"quoted\"\"\",2,\"3\"\n"
                + "-4,\"two\nlines\r\nthree\",5e-3,6\n");
    PartitionFilesTest.assertSameBits(
        want, read(f, new CsvColumns(true, "y", List.of("x1", "x2"))));
    // a row after the multi-line field is named by its own line, counted in lines of the file
    Path g = csv("g.csv", "x1,note,y\n1,\"a\nb\nc\",2\n3,z,bad\n");
    assertEquals(
        g + " line 5: y is 'bad', not a number",
        error(g, new CsvColumns(true, "y", List.of("x1"))));
  }

  @Test
  void aByteOrderMarkAndCrLfAreAccepted() throws Exception {
    Partition want = plain();
    Path bom = csv("bom.csv", "\uFEFFx1,x2,y\r\n1.5,2,3\r\n-4,5e-3,6\r\n");
    PartitionFilesTest.assertSameBits(want, PartitionFiles.read(bom));
    Path named = csv("named.csv", "\uFEFF\"y\",\"x2\",\"x1\"\r\n3,2,1.5\r\n6,5e-3,-4\r\n");
    PartitionFilesTest.assertSameBits(
        want, read(named, new CsvColumns(true, "y", List.of("x1", "x2"))));
  }

  @Test
  void brokenQuotingIsRefusedWithFileAndLine() throws Exception {
    Path open = csv("open.csv", "x1,y\n1,2\n3,\"4\n5,6\n");
    assertEquals(
        open + " line 3: a quoted field is never closed (the file ends inside its quotes)",
        error(open, CsvColumns.DEFAULT));
    Path after = csv("after.csv", "x1,y\n1,2\n\"3\"x,4\n");
    assertEquals(
        after
            + " line 3: text 'x' after a closing quote (RFC 4180: a quoted field ends at its"
            + " quote; a quote inside it is doubled)",
        error(after, CsvColumns.DEFAULT));
    // a quote inside an unquoted field is data: here it makes the value a non-number
    Path inner = csv("inner.csv", "x1,y\n1,2\n3,4\"\n");
    assertEquals(inner + " line 3: y is '4\"', not a number", error(inner, CsvColumns.DEFAULT));
  }
}
