package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code export --format csv} on the golden v1 journal (seed run: one weight, no bias). */
class ExportCsvTest {
  @TempDir Path dir;

  @Test
  void oneCoefficientPerLineThenTheIntercept() throws Exception {
    Path journal = Files.createDirectories(dir.resolve("node-1"));
    try (InputStream in =
        getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      Files.copy(in, journal.resolve("journal.mv.db"));
    }
    Path csv = dir.resolve("coefficients.csv");
    CommandLineTest.Run r =
        CommandLineTest.run(
            "export",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--format",
            "csv",
            "--out",
            csv.toString());
    assertEquals(0, r.code(), r.err());
    // 2^-150, the golden final weight; the seed model has no bias, so it predicts with intercept 0.
    assertEquals(
        List.of(
            "name,value,bits",
            "w1,7.006492321624085E-46,0x3690000000000000",
            "intercept,0.0,0x0000000000000000"),
        Files.readAllLines(csv));

    CommandLineTest.assertUserError(
        CommandLineTest.run(
            "export",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--format",
            "csv",
            "--out",
            csv.toString()),
        "--out " + csv + " already exists; it is never overwritten");
    Path other = dir.resolve("m.txt");
    CommandLineTest.assertUserError(
        CommandLineTest.run(
            "export",
            "--journal",
            journal.toString(),
            "--participant",
            "1",
            "--format",
            "xml",
            "--out",
            other.toString()),
        "--format xml: expected json or csv");
    assertFalse(Files.exists(other));
  }
}
