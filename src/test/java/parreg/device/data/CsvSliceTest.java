package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * {@code --split} of files whose line count is not their row count (blank lines at the end, a
 * quoted field over several lines, a file without a header): each slice is cut from the rows the
 * reader counts, and a bad value is refused only by the participant whose slice holds it.
 */
class CsvSliceTest {
  @TempDir Path dir;

  private Path csv(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text);
  }

  private static Partition slice(Path f, CsvColumns c, int p, int parts) throws Exception {
    return PartitionFiles.read(f, 0, c, new RowSlice(p, parts));
  }

  @Test
  void aBadValueIsTheBusinessOfItsSliceOnly() throws Exception {
    // 4 rows and 4 blank lines: the lines promise 8 rows, the reader counts 4
    Path f = csv("bad.csv", "x1,y\n1,2\n3,4\n5,x\n7,8\n\n\n\n\n");
    Partition first = slice(f, CsvColumns.DEFAULT, 0, 2);
    assertEquals(2, first.samples());
    assertEquals(3f, first.x(1, 0));
    assertEquals(
        f + " line 4: y is 'x', not a number",
        assertThrows(DataFormatException.class, () -> slice(f, CsvColumns.DEFAULT, 1, 2))
            .getMessage());
  }

  @Test
  void slicesOfMultiLineAndHeaderlessFilesAreCutFromTheirRows() throws Exception {
    Path quoted =
        csv("q.csv", "y,note,x1\n1,\"a\nb\",10\n2,\"c\n\nd\",20\n3,e,30\n4,\"\",40\n5,f,50\n");
    Path plain = csv("p.csv", "x1,y\n10,1\n20,2\n30,3\n40,4\n50,5\n");
    Path raw = csv("raw.csv", "10,1\r20,2\r30,3\r40,4\r50,5\r\r");
    Partition want = PartitionFiles.read(plain);
    CsvColumns named = new CsvColumns(true, "y", List.of("x1"));
    CsvColumns none = new CsvColumns(false, null, null);
    for (int parts = 1; parts <= 5; parts++) {
      for (int p = 0; p < parts; p++) {
        RowSlice s = new RowSlice(p, parts);
        Partition expect = SplitReadTest.rows(want, (int) s.from(5), (int) s.to(5));
        PartitionFilesTest.assertSameBits(expect, slice(quoted, named, p, parts));
        PartitionFilesTest.assertSameBits(expect, slice(raw, none, p, parts));
      }
    }
    assertEquals(
        raw
            + ": 5 data rows cannot be split among 6 participants (--split needs at least one row"
            + " each)",
        assertThrows(DataFormatException.class, () -> slice(raw, none, 0, 6)).getMessage());
  }
}
