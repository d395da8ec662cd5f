package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;
import parreg.device.Precision;
import parreg.device.RunContract;
import parreg.device.SolverSpec;

/**
 * Binary64 data end to end: decimal text correctly rounded to binary64, a binary64 partition with a
 * digest of its own, and a contract that names the precision through its numerical policy while
 * every binary32 contract keeps its bytes.
 */
class Binary64DataTest {
  @TempDir Path dir;

  static void checkDouble(String text) {
    long expected = Double.doubleToRawLongBits(Double.parseDouble(text));
    long actual = Double.doubleToRawLongBits(Decimals.toDouble(text, 0, text.length()));
    assertEquals(expected, actual, () -> "'" + text + "'");
  }

  @Test
  void decimalTextRoundsCorrectlyToBinary64() {
    for (String s :
        new String[] {
          "0",
          "-0",
          "+0.0",
          "1",
          "0.1",
          "-2.5e-3",
          "123456789012345",
          "1234567890123456789",
          "9007199254740993",
          "1e22",
          "1e23",
          "4.9e-324",
          "2.4703282292062328e-324",
          "1.7976931348623157e308",
          "0.30000000000000004",
          "151.0",
          ".5",
          "5.",
          "2.2250738585072011e-308",
          "7e-10",
          "1E+5"
        }) {
      checkDouble(s);
    }
    SplittableRandom r = new SplittableRandom(7);
    for (int k = 0; k < 200_000; k++) {
      String s =
          switch (k % 4) {
            case 0 -> Double.toString(Double.longBitsToDouble(r.nextLong()) % 1e30);
            case 1 -> Long.toString(r.nextLong() >> r.nextInt(64)) + "." + r.nextInt(1_000_000);
            case 2 -> r.nextInt(1000) + "e" + (r.nextInt(60) - 30);
            default -> String.format("%.17g", r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20));
          };
      if (!s.contains("NaN") && !s.contains("Infinity")) {
        checkDouble(s);
      }
    }
    for (String bad : new String[] {"", "-", "1e", "0x10", "1d", "NaN", "Infinity", "1 2", "e5"}) {
      assertTrue(Double.isNaN(Decimals.toDouble(bad, 0, bad.length())), bad);
    }
    assertEquals(Double.POSITIVE_INFINITY, Decimals.toDouble("1e400", 0, 5));
    // the binary32 parser is what it was
    assertEquals(Float.parseFloat("0.1"), Decimals.toFloat("0.1", 0, 3));
  }

  @Test
  void csvReadInBinary64HoldsEachTextsNearestDouble() throws Exception {
    Path csv = dir.resolve("d.csv");
    Files.writeString(
        csv,
        "\"a\",\"b\",\"price\"\n0.1,1e-5,326\n0.30000000000000004,12345678.9,327.5\n"
            + "2.5,-3,1e300\n");
    CsvColumns cols = new CsvColumns(true, "price", null);
    Partition p =
        PartitionFiles.load(csv, 0, cols, CsvDialect.DEFAULT, RowSlice.ALL, Precision.F64)
            .partition();
    assertEquals(Precision.F64, p.precision());
    assertEquals(0.1, p.x64(0, 0));
    assertEquals(0.30000000000000004, p.x64(1, 0));
    assertEquals(12345678.9, p.x64(1, 1));
    assertEquals(1e300, p.y64(2)); // beyond binary32's range, a binary64 value
    assertThrows(IllegalStateException.class, p::featureMajor);
    Path small = dir.resolve("small.csv");
    Files.writeString(small, "x1,y\n12345678.9,1\n");
    Partition f32 = PartitionFiles.read(small);
    // the text rounds to binary32 once (never through binary64)
    assertEquals(Float.parseFloat("12345678.9"), f32.x(0, 0));
    // a slice reads its rows in binary64 too
    Partition slice =
        PartitionFiles.load(csv, 0, cols, CsvDialect.DEFAULT, new RowSlice(1, 2), Precision.F64)
            .partition();
    assertEquals(2.5, slice.x64(slice.samples() - 1, 0));
    // a value beyond the binary64 range is named as such
    Path big = dir.resolve("big.csv");
    Files.writeString(big, "x1,y\n1e400,1\n");
    DataFormatException e =
        assertThrows(
            DataFormatException.class,
            () ->
                PartitionFiles.load(
                    big, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, RowSlice.ALL, Precision.F64));
    assertTrue(
        e.getMessage().contains("line 2") && e.getMessage().contains("binary64"), e.getMessage());
  }

  @Test
  void aBinary32PrbReadInBinary64IsWidenedExactly() throws Exception {
    Partition p = Partition.ofRows(new float[][] {{0.1f, 2f}, {3f, -0.7f}}, new float[] {1f, 0.3f});
    Path prb = dir.resolve("p.prb");
    PartitionFiles.write(p, prb);
    Partition w =
        PartitionFiles.load(
                prb, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, RowSlice.ALL, Precision.F64)
            .partition();
    assertEquals(Precision.F64, w.precision());
    assertEquals((double) 0.1f, w.x64(0, 0));
    assertEquals((double) 0.3f, w.y64(1));
    assertEquals(p.widened().digest(), w.digest());
  }

  /** The binary64 digest's definition, one row at a time. */
  static String onePass64(Partition p) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    md.update("parreg-partition-f64/v1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    md.update(b.putInt(p.features()).putInt(p.samples()).array());
    for (int i = 0; i < p.samples(); i++) {
      for (int j = 0; j <= p.features(); j++) {
        double v = j < p.features() ? p.x64(i, j) : p.y64(i);
        md.update(
            java.nio.ByteBuffer.allocate(8)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .putLong(Double.doubleToRawLongBits(v))
                .array());
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  @Test
  void aBinary64PartitionHasItsOwnDigestAndBinary32OnesKeepTheirs() throws Exception {
    SplittableRandom r = new SplittableRandom(3);
    for (int[] s : new int[][] {{1, 1}, {5, 3}, {70001, 2}}) {
      double[] x = new double[s[0] * s[1]];
      double[] y = new double[s[0]];
      for (int k = 0; k < x.length; k++) {
        x[k] = r.nextGaussian();
      }
      for (int k = 0; k < y.length; k++) {
        y[k] = r.nextGaussian();
      }
      Partition p = Partition.ofBinary64(s[0], s[1], x, y);
      assertEquals(onePass64(p), p.digest());
    }
    // the same values in binary32 and binary64 are two partitions
    Partition f = Partition.ofRows(new float[][] {{1f}, {2f}}, new float[] {0f, 1f});
    assertNotEquals(f.digest(), f.widened().digest());
    assertEquals(f.widened().digest(), onePass64(f.widened()));
  }

  @Test
  void theContractNamesBinary64DataThroughItsSchemaOnly() {
    SolverSpec exact = SolverSpec.exact("gram-tile256-dd/v1", "dd-pivoted-cholesky/v1", "0");
    RunContract base =
        new RunContract(
            "r",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/4",
            new double[3],
            2,
            true,
            1,
            "files",
            0,
            parreg.device.ReductionOrder.VERSION);
    RunContract f32 = base.withSolver(exact);
    RunContract f32Again = f32.withPrecision(Precision.F32);
    assertEquals(f32.digest(), f32Again.digest());
    assertEquals(f32.fields(), f32Again.fields());
    assertEquals(Precision.F32, f32.precision());
    RunContract f64 = f32.withPrecision(Precision.F64);
    assertEquals(Precision.F64, f64.precision());
    assertEquals(f32.fields().keySet(), f64.fields().keySet());
    assertNotEquals(f32.digest(), f64.digest());
    assertTrue(f32.firstDifference(f64).orElseThrow().startsWith("schema:"));
    assertEquals(f64, RunContract.fromFields(f64.fields()));
    assertEquals(64, parreg.device.ExactStep.dataBits(f64));
    assertEquals(32, parreg.device.ExactStep.dataBits(f32));
    // gradient descent reads binary32 data
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> base.withPrecision(Precision.F64));
    assertTrue(e.getMessage().contains("exact solver"), e.getMessage());
    assertEquals(RunContract.SCHEMA, RunContract.seed(2, 0).schema());
  }
}
