package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * {@code --split}: a participant's slice of a shared file has the bits and digest of a pre-split
 * file of its rows.
 */
class SplitReadTest {
  @TempDir Path dir;

  /** Rows [from, to) of p as a partition of their own (what a pre-split file holds). */
  static Partition rows(Partition p, int from, int to) {
    int n = p.samples();
    int d = p.features();
    int m = to - from;
    float[] x = new float[m * d];
    float[] y = new float[m];
    for (int j = 0; j < d; j++) {
      System.arraycopy(p.featureMajor(), j * n + from, x, j * m, m);
    }
    System.arraycopy(p.targets(), from, y, 0, m);
    return new Partition(m, d, x, y);
  }

  @Test
  void rangeRuleCoversEveryRowOnce() {
    for (long n : new long[] {3, 7, 10, 1001, 5_000_000_000L}) {
      for (int parts = 1; parts <= 3 && parts <= n; parts++) {
        long next = 0;
        for (int p = 0; p < parts; p++) {
          RowSlice s = new RowSlice(p, parts);
          assertEquals(next, s.from(n));
          assertEquals(p * n / parts, s.from(n));
          assertEquals((p + 1) * n / parts, s.to(n));
          next = s.to(n);
        }
        assertEquals(n, next);
      }
    }
  }

  @Test
  void csvSliceEqualsPreSplitFile() throws Exception {
    Partition whole = PartitionFilesTest.random(1003, 3, 11);
    Path shared = dir.resolve("all.csv");
    PartitionFiles.write(whole, shared);
    checkSlices(whole, shared, "csv");
  }

  @Test
  void binarySliceAcrossBlocksEqualsPreSplitFile() throws Exception {
    // 90,001 rows of d=3: 1.44 MB of payload, 2 blocks; every column's share straddles a block edge
    // somewhere.
    Partition whole = PartitionFilesTest.random(90_001, 3, 12);
    Path shared = dir.resolve("all.prb");
    PartitionFiles.write(whole, shared);
    checkSlices(whole, shared, "prb");
  }

  private void checkSlices(Partition whole, Path shared, String ext) throws Exception {
    int n = whole.samples();
    for (int parts : new int[] {1, 2, 3, 7}) {
      for (int p = 0; p < parts; p++) {
        RowSlice s = new RowSlice(p, parts);
        Partition slice = PartitionFiles.read(shared, 0, CsvColumns.DEFAULT, s);
        Path pre = dir.resolve("pre-" + parts + "-" + p + "." + ext);
        PartitionFiles.write(rows(whole, (int) s.from(n), (int) s.to(n)), pre);
        PartitionFilesTest.assertSameBits(PartitionFiles.read(pre), slice); // bits and digest
      }
    }
  }

  @Test
  void tooFewRowsForTheParticipantsIsRefused() throws Exception {
    Path csv = dir.resolve("two.csv");
    Files.writeString(csv, "x1,y\n1,2\n3,4\n");
    DataFormatException e =
        assertThrows(
            DataFormatException.class,
            () -> PartitionFiles.read(csv, 0, CsvColumns.DEFAULT, new RowSlice(0, 3)));
    assertEquals(
        csv
            + ": 2 data rows cannot be split among 3 participants (--split needs at least one row each)",
        e.getMessage());
    Path prb = dir.resolve("two.prb");
    PartitionFiles.write(PartitionFiles.read(csv), prb);
    e =
        assertThrows(
            DataFormatException.class,
            () -> PartitionFiles.read(prb, 0, CsvColumns.DEFAULT, new RowSlice(2, 3)));
    assertEquals(
        prb
            + ": 2 data rows cannot be split among 3 participants (--split needs at least one row each)",
        e.getMessage());
    assertEquals(1, PartitionFiles.read(csv, 0, CsvColumns.DEFAULT, new RowSlice(1, 2)).samples());
  }

  @Test
  void badValueInTheSliceIsNamedByItsLineInTheSharedFile() throws Exception {
    Path csv = dir.resolve("bad.csv");
    Files.writeString(csv, "x1,y\n1,2\n3,4\n5,x\n7,8\n");
    // participant 0 of 2 reads lines 2-3 and never parses line 4
    assertEquals(2, PartitionFiles.read(csv, 0, CsvColumns.DEFAULT, new RowSlice(0, 2)).samples());
    DataFormatException e =
        assertThrows(
            DataFormatException.class,
            () -> PartitionFiles.read(csv, 0, CsvColumns.DEFAULT, new RowSlice(1, 2)));
    assertEquals(csv + " line 4: y is 'x', not a number", e.getMessage());
  }

  @Test
  void binarySliceChecksItsBlocksAndValues() throws Exception {
    Partition whole = PartitionFilesTest.random(10, 1, 3);
    whole.featureMajor()[7] =
        Float.NaN; // written with a valid checksum: only the value check sees it
    Path prb = dir.resolve("v.prb");
    PartitionFiles.write(whole, prb);
    assertEquals(5, PartitionFiles.read(prb, 0, CsvColumns.DEFAULT, new RowSlice(0, 2)).samples());
    DataFormatException nan =
        assertThrows(
            DataFormatException.class,
            () -> PartitionFiles.read(prb, 0, CsvColumns.DEFAULT, new RowSlice(1, 2)));
    assertEquals(prb + " byte 92: x1 of row 8 is NaN, not a finite number", nan.getMessage());
    byte[] b = Files.readAllBytes(prb);
    b[BinaryPartitionFormat.HEADER_BYTES + 4 * 12] ^=
        1; // y of row 3: the block no longer matches its checksum
    Path bad = dir.resolve("crc.prb");
    Files.write(bad, b);
    DataFormatException crc =
        assertThrows(
            DataFormatException.class,
            () -> PartitionFiles.read(bad, 0, CsvColumns.DEFAULT, new RowSlice(1, 2)));
    assertEquals(
        bad + " byte 64: payload checksum mismatch in block 0 (bytes 64..143)", crc.getMessage());
  }
}
