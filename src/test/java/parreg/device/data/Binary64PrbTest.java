package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.CpuBackend;
import parreg.device.ExactStep;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.Precision;
import parreg.device.ReductionOrder;
import parreg.device.RunContract;
import parreg.device.SolverSpec;
import parreg.solver.ExactSolver;
import parreg.solver.GramOrder;

/**
 * The binary64 {@code .prb} layout (version 2): decimal text read in binary64, written to a {@code
 * .prb} and read back, is the same partition (bits, digest, sidecar, exact solution), whole, in
 * slices, streamed and on any thread count; a binary64 file is never read as binary32; damaged
 * files are refused naming the file.
 */
public class Binary64PrbTest {
  @TempDir Path dir;

  /** A CSV of values binary32 cannot hold (random binary64 values in shortest form). */
  private Path csv(String name, int n, int d, long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    StringBuilder sb = new StringBuilder(CsvPartitionFormat.header(d)).append('\n');
    for (int i = 0; i < n; i++) {
      double s = 0;
      for (int j = 0; j < d; j++) {
        double v = r.nextGaussian() * Math.pow(10, r.nextInt(-3, 4));
        s += (j + 1) * v;
        sb.append(v).append(',');
      }
      sb.append(s + r.nextGaussian() * 1e-3).append('\n');
    }
    Path f = dir.resolve(name);
    Files.writeString(f, sb);
    return f;
  }

  private static PartitionFiles.Loaded load(Path f, RowSlice slice, Precision p) throws Exception {
    return PartitionFiles.load(f, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, slice, p);
  }

  /** The exact solver's parameters over these partitions (one per participant), binary64 data. */
  public static double[] solve(Partition... parts) {
    LocalSums[] sums = new LocalSums[parts.length];
    for (int k = 0; k < parts.length; k++) {
      sums[k] = CpuBackend.statistics(parts[k], 1);
    }
    int d = parts[0].features();
    RunContract contract =
        new RunContract(
                "parreg-run",
                RunContract.SCHEMA,
                RunContract.CHECKPOINT_CONTRACT,
                RunContract.LOSS,
                "1/4",
                new double[d + 1],
                d,
                true,
                parts.length,
                "files",
                0,
                ReductionOrder.VERSION)
            .withSolver(SolverSpec.exact(GramOrder.VERSION, ExactSolver.NAME, "0"))
            .withPrecision(Precision.F64);
    return ExactStep.apply(contract, sums).parameters();
  }

  @Test
  void csvToBinary64PrbKeepsBitsDigestAndExactSolution() throws Exception {
    Path csv = csv("d.csv", 2_000, 3, 1);
    Partition fromText = load(csv, RowSlice.ALL, Precision.F64).partition();
    Path prb = dir.resolve("d.prb");
    PartitionFiles.write(fromText, prb);

    assertEquals(Precision.F64, PartitionFiles.precisionOf(prb));
    assertEquals(null, PartitionFiles.precisionOf(csv));
    ByteBuffer h = ByteBuffer.wrap(Files.readAllBytes(prb)).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(BinaryPartitionFormat.VERSION_F64, h.getInt(8));
    assertEquals(8L * 4 * 2_000, h.getLong(32));

    // the sidecar holds the binary64 digest, which a load takes from it
    String sidecar = Files.readString(DigestCache.sidecar(prb));
    assertTrue(sidecar.contains("digest=" + fromText.digest()), sidecar);
    Partition read = PartitionFiles.read(prb);
    assertEquals(Precision.F64, read.precision());
    assertArrayEquals(fromText.featureMajor64(), read.featureMajor64());
    assertArrayEquals(fromText.targets64(), read.targets64());
    assertEquals(fromText.digest(), read.digest());
    // the digest of the values read, by its definition, is the sidecar's
    assertEquals(fromText.digest(), Binary64DataTest.onePass64(read));
    // opened as a node opens it (shape and sidecar first, rows on a background thread)
    parreg.device.PartitionSource open = PartitionFiles.open(prb);
    assertEquals(fromText.digest(), open.info(0).digest());
    assertArrayEquals(fromText.featureMajor64(), open.rows().join().featureMajor64());
    // read at F64 explicitly: the same
    assertEquals(fromText.digest(), load(prb, RowSlice.ALL, Precision.F64).partition().digest());

    // the exact solution of the file's rows is the CSV's to the bit
    assertArrayEquals(solve(fromText), solve(read));

    // a CSV written from it reads back to the same bits
    Path back = dir.resolve("back.csv");
    PartitionFiles.write(read, back);
    assertEquals(fromText.digest(), load(back, RowSlice.ALL, Precision.F64).partition().digest());
  }

  @Test
  void slicesOfABinary64PrbAreTheCsvSlices() throws Exception {
    Path csv = csv("s.csv", 1_001, 2, 2);
    Path prb = dir.resolve("s.prb");
    PartitionFiles.write(load(csv, RowSlice.ALL, Precision.F64).partition(), prb);
    List<Partition> parts = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      RowSlice s = new RowSlice(k, 3);
      Partition fromPrb = load(prb, s, Precision.F64).partition();
      Partition fromCsv = load(csv, s, Precision.F64).partition();
      assertEquals(Precision.F64, fromPrb.precision());
      assertEquals(fromCsv.digest(), fromPrb.digest(), "slice " + k);
      parts.add(fromPrb);
    }
    assertEquals(1_001, parts.stream().mapToInt(Partition::samples).sum());
    Partition[] csvParts = new Partition[3];
    for (int k = 0; k < 3; k++) {
      csvParts[k] = load(csv, new RowSlice(k, 3), Precision.F64).partition();
    }
    assertArrayEquals(solve(csvParts), solve(parts.toArray(Partition[]::new)));
  }

  @Test
  void aLargeBinary64PrbReadsTheSameOnAnyThreadCountAndStreams() throws Exception {
    int n = 300_001;
    int d = 7; // 8 * 8 * n bytes: 19 MB, more than one read chunk of 16 blocks
    SplittableRandom r = new SplittableRandom(5);
    double[] x = new double[n * d];
    double[] y = new double[n];
    for (int k = 0; k < x.length; k++) {
      x[k] = r.nextGaussian();
    }
    for (int k = 0; k < n; k++) {
      y[k] = r.nextGaussian();
    }
    Partition p = Partition.ofBinary64(n, d, x, y);
    Path prb = dir.resolve("big.prb");
    BinaryPartitionFormat.write(p, prb);
    for (int threads : new int[] {1, 3}) {
      Partition q = BinaryPartitionFormat.read(prb, d, threads).partition();
      assertArrayEquals(x, q.featureMajor64());
      assertArrayEquals(y, q.targets64());
    }
    long[] seen = {0};
    double[] sum = {0};
    long rows =
        PartitionFiles.stream64(
                prb,
                d,
                CsvColumns.DEFAULT,
                CsvDialect.DEFAULT,
                (i, xs, ys, where) -> {
                  assertEquals(x[(int) i], xs[0]);
                  assertEquals(x[(d - 1) * n + (int) i], xs[d - 1]);
                  assertEquals(y[(int) i], ys);
                  seen[0]++;
                })
            .rows();
    assertEquals(n, rows);
    assertEquals(n, seen[0]);
    // the binary32 stream refuses it, naming the file
    DataFormatException e =
        assertThrows(
            DataFormatException.class,
            () ->
                PartitionFiles.stream(
                    prb, 0, CsvColumns.DEFAULT, CsvDialect.DEFAULT, (i, xs, ys, w) -> {}));
    assertTrue(e.getMessage().contains(prb.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("binary64"), e.getMessage());
  }

  @Test
  void aBinary64PrbIsNeverReadAsBinary32() throws Exception {
    Path prb = dir.resolve("n.prb");
    PartitionFiles.write(
        Partition.ofBinary64(2, 1, new double[] {0.1, 0.2}, new double[] {1, 2}), prb);
    DataFormatException e =
        assertThrows(DataFormatException.class, () -> load(prb, RowSlice.ALL, Precision.F32));
    assertTrue(e.getMessage().contains(prb.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("binary64"), e.getMessage());
    // a binary32 file streamed in binary64 is widened
    Path f32 = dir.resolve("w.prb");
    PartitionFiles.write(Partition.ofRows(new float[][] {{0.1f}}, new float[] {0.3f}), f32);
    assertEquals(Precision.F32, PartitionFiles.precisionOf(f32));
    double[] got = new double[2];
    PartitionFiles.stream64(
        f32,
        1,
        CsvColumns.DEFAULT,
        CsvDialect.DEFAULT,
        (i, xs, ys, w) -> {
          got[0] = xs[0];
          got[1] = ys;
        });
    assertArrayEquals(new double[] {0.1f, 0.3f}, got);
  }

  @Test
  void damagedBinary64FilesAreRefusedNamingTheFile() throws Exception {
    Path good = dir.resolve("g.prb");
    PartitionFiles.write(
        Partition.ofBinary64(3, 2, new double[] {1, 2, 3, 4, 5, 6}, new double[] {7, 8, 9}), good);
    byte[] bytes = Files.readAllBytes(good);

    Path truncated = dir.resolve("t.prb");
    Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length - 9));
    assertRefused(truncated, "truncated");

    // a version this build does not know, with a valid header checksum
    Path v3 = dir.resolve("v3.prb");
    Files.write(v3, withHeaderInt(bytes, 8, 3));
    assertRefused(v3, "unsupported version 3");

    // a version 1 (binary32) header over a binary64 payload: the sizes disagree
    Path v1 = dir.resolve("v1.prb");
    Files.write(v1, withHeaderInt(bytes, 8, 1));
    assertRefused(v1, "payload size");

    // a flipped payload byte
    Path flipped = dir.resolve("f.prb");
    byte[] f = bytes.clone();
    f[BinaryPartitionFormat.HEADER_BYTES + 5] ^= 1;
    Files.write(flipped, f);
    assertRefused(flipped, "checksum");

    // a NaN value
    Path nan = dir.resolve("nan.prb");
    PartitionFiles.write(
        Partition.ofBinary64(2, 1, new double[] {1, Double.NaN}, new double[] {0, 0}), nan);
    assertRefused(nan, "x1 of row 2 is NaN");
  }

  private static byte[] withHeaderInt(byte[] bytes, int at, int value) {
    byte[] b = bytes.clone();
    ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(at, value);
    CRC32C c = new CRC32C();
    c.update(b, 0, 60);
    h.putInt(60, (int) c.getValue());
    return b;
  }

  private void assertRefused(Path file, String what) {
    for (RowSlice s : new RowSlice[] {RowSlice.ALL, new RowSlice(1, 2)}) {
      DataFormatException e =
          assertThrows(DataFormatException.class, () -> load(file, s, Precision.F64));
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
      assertTrue(e.getMessage().contains(what), e.getMessage());
    }
  }
}
