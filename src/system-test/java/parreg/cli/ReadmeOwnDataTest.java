package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Precision;
import parreg.device.data.CsvColumns;
import parreg.device.data.CsvDialect;
import parreg.device.data.ParquetWriting;
import parreg.device.data.PartitionFiles;
import parreg.device.data.RowSlice;

/**
 * README's "Your own data" runs as written: its commands, in order, in a fresh directory, each
 * exiting 0, and {@code fit} printing the summary the README shows, figure for figure. Then the
 * same numbers as tools write them (R's {@code write.csv} with its quoted header, Excel's
 * byte-order mark with CRLF line ends, a Parquet file from parquet-java's writer) are the README
 * CSV's partition: the same binary64 values, the same digest, hence the same contract and model
 * bits (what fit on each gives is {@code ParquetCommandsTest}'s and {@code CsvGoldenDigestTest}'s
 * to show; here the partition is compared in the process, without a node).
 */
@Tag("multiprocess")
class ReadmeOwnDataTest {
  @TempDir Path dir;

  /** Options whose value is a path: resolved in the test's directory, as a shell there would. */
  static final Set<String> PATH_OPTIONS =
      Set.of("--out", "--data", "--dir", "--checkpoint", "--input", "--journal");

  @Test
  void theSectionRunsAsWrittenAndFilesAsToolsWriteThemGiveTheSameModel() throws Exception {
    String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
    String section = readme.substring(readme.indexOf("## Your own data"));
    section = section.substring(0, section.indexOf("\n## ", 5));
    List<String> blocks = codeBlocks(section);
    String fitOutput = null;
    for (String line : blocks.get(0).split("\n")) {
      String command = line.replaceAll("\\s+#.*$", "").strip();
      if (command.isEmpty()) {
        continue;
      }
      List<String> args = new ArrayList<>(Arrays.asList(command.split("\\s+")));
      assertEquals("bin/parreg", args.remove(0), line);
      for (int i = 1; i < args.size(); i++) {
        if (PATH_OPTIONS.contains(args.get(i - 1))) {
          args.set(i, dir.resolve(args.get(i)).toString());
        }
      }
      DataCommandsTest.Run r = DataCommandsTest.run(args.toArray(String[]::new));
      assertEquals(0, r.code(), line + "\n" + r.out() + r.err());
      if (args.get(0).equals("fit")) {
        fitOutput = r.out();
      }
    }
    // what fit prints, as the README shows it (the lines naming this machine's paths and cores
    // aside)
    List<String> shown = summaryLines(blocks.get(1));
    assertTrue(shown.size() >= 8, "README shows fit's summary: " + shown);
    assertEquals(shown, summaryLines(fitOutput), "fit's output\n" + fitOutput);

    Path csv = dir.resolve("data/part-0.csv");
    String readmeDigest = digest(csv);
    List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
    String[] header = lines.get(0).split(",");

    // R's write.csv(df, row.names = FALSE): every name quoted
    List<String> r = new ArrayList<>(lines);
    r.set(0, "\"" + String.join("\",\"", header) + "\"");
    Path rCsv = dir.resolve("r.csv");
    Files.write(rCsv, r, StandardCharsets.UTF_8);
    assertEquals(readmeDigest, digest(rCsv), "R's write.csv");

    // Excel: a UTF-8 byte-order mark and CRLF line ends
    Path excel = dir.resolve("excel.csv");
    Files.writeString(
        excel, "\uFEFF" + String.join("\r\n", lines) + "\r\n", StandardCharsets.UTF_8);
    assertEquals(readmeDigest, digest(excel), "byte-order mark and CRLF");

    // Parquet with double columns holding the numbers of the CSV's text
    double[][] values = new double[lines.size() - 1][];
    for (int i = 1; i < lines.size(); i++) {
      values[i - 1] =
          Arrays.stream(lines.get(i).split(",")).mapToDouble(Double::parseDouble).toArray();
    }
    StringBuilder schema = new StringBuilder("message m {");
    for (String name : header) {
      schema.append(" required double ").append(name).append(';');
    }
    Path parquet = dir.resolve("t.parquet");
    ParquetWriting.write(
        parquet,
        schema.append(" }").toString(),
        values.length,
        (row, column) -> values[row][column],
        CompressionCodecName.SNAPPY,
        1 << 20);
    assertEquals(readmeDigest, digest(parquet), "Parquet");
  }

  /** The digest of the partition {@code fit} reads from {@code data} by default (binary64). */
  private static String digest(Path data) throws Exception {
    return PartitionFiles.load(
            data, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, RowSlice.ALL, Precision.F64)
        .partition()
        .digest();
  }

  private static List<String> codeBlocks(String text) {
    List<String> blocks = new ArrayList<>();
    int at = 0;
    while ((at = text.indexOf("```", at)) >= 0) {
      int start = text.indexOf('\n', at) + 1;
      int end = text.indexOf("```", start);
      blocks.add(text.substring(start, end));
      at = end + 3;
    }
    return blocks;
  }

  /** From "exact least squares" on, blank lines and spacing aside. */
  private static List<String> summaryLines(String output) {
    List<String> out = new ArrayList<>();
    boolean on = false;
    for (String line : output.split("\\R")) {
      on |= line.startsWith("exact least squares");
      if (on && !line.isBlank()) {
        out.add(line.strip().replaceAll("\\s+", " "));
      }
    }
    return out;
  }
}
