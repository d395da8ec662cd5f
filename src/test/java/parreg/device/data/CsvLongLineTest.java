package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A line or field over the line limit ({@link CsvDialect#LINE_LIMIT}, lowered here to 1 MiB) is
 * refused naming file and line, whatever makes it long: one huge field, many small ones, a huge
 * header, a quote never closed. A line of 2 GB ends the same way, after reading at most the limit.
 */
class CsvLongLineTest {
  @TempDir Path dir;

  static final int LIMIT = 1 << 20;
  static final CsvDialect SMALL = CsvDialect.DEFAULT.withLineLimit(LIMIT);

  /**
   * A file of a few MB: {@code before}, {@code times} repetitions of {@code unit}, {@code after}.
   */
  private Path file(String name, String before, String unit, int times, String after)
      throws Exception {
    Path f = dir.resolve(name);
    try (BufferedWriter w = Files.newBufferedWriter(f)) {
      w.write(before);
      for (int k = 0; k < times; k++) {
        w.write(unit);
      }
      w.write(after);
    }
    return f;
  }

  private static String error(Path f) {
    String read =
        assertThrows(
                DataFormatException.class,
                () -> PartitionFiles.load(f, 0, CsvColumns.DEFAULT, SMALL, RowSlice.ALL))
            .getMessage();
    String sliced =
        assertThrows(
                DataFormatException.class,
                () -> PartitionFiles.load(f, 0, CsvColumns.DEFAULT, SMALL, new RowSlice(0, 2)))
            .getMessage();
    String streamed =
        assertThrows(
                DataFormatException.class,
                () -> PartitionFiles.stream(f, 0, CsvColumns.DEFAULT, SMALL, (i, x, y, w) -> {}))
            .getMessage();
    assertEquals(read, sliced);
    assertEquals(read, streamed);
    return read;
  }

  private static String tooLong(Path f, int line) {
    return f
        + " line "
        + line
        + ": the line is longer than the limit of "
        + LIMIT
        + " characters (an unclosed quote, or not a CSV file?)";
  }

  @Test
  void oneHugeField() throws Exception {
    Path f = file("field.csv", "x1,y\n1,2\n3,4\n5,", "1234567890", 300_000, "\n7,8\n");
    assertEquals(tooLong(f, 4), error(f));
  }

  @Test
  void manySmallFields() throws Exception {
    Path f = file("fields.csv", "x1,y\n1,2\n", "1,", 1_500_000, "2\n7,8\n");
    assertEquals(tooLong(f, 3), error(f));
  }

  @Test
  void aHugeHeader() throws Exception {
    Path f = file("header.csv", "", "x1,", 1_000_000, "y\n1,2\n");
    assertEquals(tooLong(f, 1), error(f));
  }

  @Test
  void aQuoteNeverClosed() throws Exception {
    Path f = file("quote.csv", "x1,y\n1,2\n\"3,4\n", "5,6\n", 800_000, "");
    assertEquals(tooLong(f, 3), error(f));
  }

  @Test
  void aLineJustUnderTheLimitIsRead() throws Exception {
    // one value of LIMIT - 10 characters: a long decimal that rounds to 1.0
    Path f = file("under.csv", "x1,y\n1.", "0", LIMIT - 10, ",2\n");
    assertEquals(
        1f, PartitionFiles.load(f, 0, CsvColumns.DEFAULT, SMALL, RowSlice.ALL).partition().x(0, 0));
  }
}
