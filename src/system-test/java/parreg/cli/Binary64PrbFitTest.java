package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Bits;
import parreg.device.Partition;
import parreg.device.Precision;
import parreg.device.RunContract;
import parreg.device.data.Binary64PrbTest;
import parreg.device.data.CsvColumns;
import parreg.device.data.CsvDialect;
import parreg.device.data.PartitionFiles;
import parreg.device.data.RowSlice;

/**
 * {@code parreg fit} on a binary64 {@code .prb}: two participants over {@code --split} read their
 * halves at binary64 and write the model of the CSV's halves read at binary64, to the bit; fit
 * reports the step the journal holds and the precision, and the summary names it.
 */
@Tag("multiprocess")
class Binary64PrbFitTest {
  @TempDir Path dir;

  @Test
  void aFitOnABinary64PrbIsTheFitOfItsDecimalSource() throws Exception {
    Path csv = Path.of("src/test/resources/realdata/longley.csv");
    String label = "Employed";
    Path prb = dir.resolve("longley.prb");
    DataCommandsTest.Run c =
        DataCommandsTest.run(
            "convert",
            "--in",
            csv.toString(),
            "--out",
            prb.toString(),
            "--label",
            label,
            "--precision",
            "f64");
    assertEquals(0, c.code(), c.err());
    CsvColumns columns = new CsvColumns(true, label, null);
    Partition[] halves = new Partition[2];
    for (int k = 0; k < 2; k++) {
      halves[k] =
          PartitionFiles.load(
                  csv, 0, columns, CsvDialect.DEFAULT, new RowSlice(k, 2), Precision.F64)
              .partition();
    }
    String expected = Bits.hexList(Binary64PrbTest.solve(halves));

    Path work = dir.resolve("fit");
    DataCommandsTest.Run fit =
        DataCommandsTest.run(
            "fit",
            "--data",
            prb.toString(),
            "--participants",
            "2",
            "--backend",
            "cpu",
            "--dir",
            work.toString());
    assertEquals(0, fit.code(), fit.out() + fit.err());
    assertTrue(
        fit.out().contains("every participant done at step 1")
            && fit.out().contains("solver exact, data binary64"),
        fit.out());
    assertTrue(fit.out().contains("data binary64"), fit.out());
    Checkpoint cp = Checkpoint.fromFile(work.resolve("model.json"));
    assertEquals(RunContract.SCHEMA_F64, cp.contract().schema());
    assertEquals(expected, Bits.hexList(cp.parameters()));
    assertEquals("f64", cp.summary().get("precision"));

    DataCommandsTest.Run s =
        DataCommandsTest.run(
            "summary", "--checkpoint", work.resolve("model.json").toString(), "--json");
    assertEquals(0, s.code(), s.err());
    assertTrue(s.out().contains("\"precision\" : \"f64\""), s.out());
    assertTrue(Files.exists(work.resolve("model.json")));
  }
}
