package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * Every line-ending variant (LF, CR LF, CR alone, and mixes of them) reads every row, to the bits
 * of the LF file, whole, streamed and sliced; the line numbers of messages count each line end
 * once, whatever its kind.
 */
class CsvLineEndsTest {
  @TempDir Path dir;

  static final int ROWS = 23;

  /** The rows of the reference partition, one line each, without their line ends. */
  static List<String> lines() {
    Partition p = PartitionFilesTest.random(ROWS, 2, 77);
    List<String> lines = new ArrayList<>();
    lines.add("x1,x2,y");
    for (int i = 0; i < ROWS; i++) {
      lines.add(p.x(i, 0) + "," + p.x(i, 1) + "," + p.y(i));
    }
    return lines;
  }

  /** The lines joined by the line ends {@code ends} gives, in turn. */
  static String join(List<String> lines, String... ends) {
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < lines.size(); k++) {
      sb.append(lines.get(k)).append(ends[k % ends.length]);
    }
    return sb.toString();
  }

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
  }

  @Test
  void everyVariantReadsEveryRow() throws Exception {
    Partition want = PartitionFiles.read(write("lf.csv", join(lines(), "\n")));
    assertEquals(ROWS, want.samples());
    String[][] variants = {
      {"\r\n"}, {"\r"}, {"\n", "\r"}, {"\r", "\n"}, {"\n", "\r\n", "\r"}, {"\r\n", "\r", "\r", "\n"}
    };
    for (String[] ends : variants) {
      String name = String.join("", ends).replace("\r", "CR").replace("\n", "LF") + ".csv";
      Path f = write(name, join(lines(), ends));
      PartitionFilesTest.assertSameBits(want, PartitionFiles.read(f));
      PartitionFilesTest.assertSameBits(want, PartitionFilesTest.streamed(f));
      for (int parts : new int[] {2, 3}) {
        for (int p = 0; p < parts; p++) {
          RowSlice s = new RowSlice(p, parts);
          PartitionFilesTest.assertSameBits(
              SplitReadTest.rows(want, (int) s.from(ROWS), (int) s.to(ROWS)),
              PartitionFiles.read(f, 0, CsvColumns.DEFAULT, s));
        }
      }
    }
  }

  @Test
  void theFileWithoutAFinalLineEndAndTheOneWithTrailingBlankLinesReadTheSameRows()
      throws Exception {
    Partition want = PartitionFiles.read(write("lf.csv", join(lines(), "\n")));
    String text = join(lines(), "\r");
    PartitionFilesTest.assertSameBits(
        want, PartitionFiles.read(write("open.csv", text.substring(0, text.length() - 1))));
    Path blank = write("blank.csv", text + "\r\n\r \t\n");
    PartitionFilesTest.assertSameBits(want, PartitionFiles.read(blank));
    PartitionFilesTest.assertSameBits(
        SplitReadTest.rows(want, ROWS / 2, ROWS),
        PartitionFiles.read(blank, 0, CsvColumns.DEFAULT, new RowSlice(1, 2)));
  }

  @Test
  void messagesCountEachLineEndOnce() throws Exception {
    // line 1 header (CR), line 2 (LF), line 3 (CR LF), line 4 (CR), line 5 bad
    Path f = write("bad.csv", "x1,y\r1,2\n3,4\r\n5,6\r7,oops\n");
    assertEquals(
        f + " line 5: y is 'oops', not a number",
        assertThrows(DataFormatException.class, () -> PartitionFiles.read(f)).getMessage());
    Path g = write("ragged.csv", "x1,y\r\r\n1,2\r3\n");
    assertEquals(
        g + " line 2: blank line inside the data (only trailing blank lines are allowed)",
        assertThrows(DataFormatException.class, () -> PartitionFiles.read(g)).getMessage());
  }

  @Test
  void theLineCountThatSizesTheArraysIsExactForEveryVariantAndAcrossBuffers() throws Exception {
    // rows long enough that some CR LF pair straddles the 64 KiB read buffer's edge
    StringBuilder row = new StringBuilder("0.");
    while (row.length() < 997) {
      row.append("1");
    }
    List<String> lines = new ArrayList<>();
    lines.add("x1,y");
    for (int i = 0; i < 300; i++) {
      lines.add(row + "," + i);
    }
    for (String[] ends : new String[][] {{"\n"}, {"\r\n"}, {"\r"}, {"\r\n", "\n", "\r"}}) {
      Path f = write("long" + ends.length + ends[0].length() + ".csv", join(lines, ends));
      assertEquals(300, CsvPartitionLoader.lineBound(f, true));
      assertEquals(300, PartitionFiles.read(f).samples());
    }
    // a CR as the buffer's last byte (offset 65535), its LF the next buffer's first
    String first = "0." + "1".repeat(65535 - 6 - 4) + ",0";
    Path edge = write("edge.csv", "x1,y\r\n" + first + "\r\n1,2\r\n");
    assertEquals('\r', Files.readAllBytes(edge)[65535]);
    assertEquals(2, CsvPartitionLoader.lineBound(edge, true));
  }
}
