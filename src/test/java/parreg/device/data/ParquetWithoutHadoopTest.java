package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * The Parquet reader runs without Hadoop, as the distribution ships it: a child JVM whose class
 * path lacks the Hadoop jars (the tests' writer needs them) reads a SNAPPY file, dropping its
 * nulls, to the rows and digest this JVM reads.
 */
class ParquetWithoutHadoopTest {
  @TempDir Path dir;

  @Test
  void aSnappyFileWithNullsReadsWithoutHadoopOnTheClassPath() throws Exception {
    Path f = dir.resolve("t.parquet");
    ParquetWriting.write(
        f,
        "message m { optional double x1; required int64 x2; optional float y; }",
        5000,
        (r, c) -> c == 0 && r % 100 == 3 ? null : (Object) (r * 0.25 + c),
        CompressionCodecName.SNAPPY,
        32_768);
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> !e.contains("hadoop-client"))
            .collect(Collectors.joining(File.pathSeparator));
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                Child.class.getName(),
                f.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    Partition here = Child.read(f).partition();
    assertEquals(here.samples() + " " + here.digest(), lastLine(out));
    assertEquals(4950, here.samples());
  }

  private static String lastLine(String out) {
    List<String> lines = out.lines().toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }

  /** The child: prints the rows read and their digest. */
  public static final class Child {
    static PartitionFiles.Loaded read(Path f) throws Exception {
      return PartitionFiles.load(
          f, 0, CsvColumns.DEFAULT, CsvDialect.of(',', CsvDialect.Missing.DROP), RowSlice.ALL);
    }

    public static void main(String[] args) throws Exception {
      try {
        Class.forName("org.apache.hadoop.conf.Configuration");
        System.out.println("Hadoop is on the class path");
        System.exit(3);
      } catch (ClassNotFoundException expected) {
        // as shipped
      }
      Partition p = read(Path.of(args[0])).partition();
      System.out.println(p.samples() + " " + p.digest());
    }
  }
}
