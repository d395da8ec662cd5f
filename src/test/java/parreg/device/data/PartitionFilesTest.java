package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/** CSV and binary partitions: same rows, same bits and digest; every bad input with its message. */
class PartitionFilesTest {
  @TempDir Path dir;

  static Partition random(int n, int d, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    float[] x = new float[n * d];
    float[] y = new float[n];
    for (int i = 0; i < x.length; i++) {
      x[i] = value(rnd);
    }
    for (int i = 0; i < n; i++) {
      y[i] = value(rnd);
    }
    return new Partition(n, d, x, y);
  }

  static float value(SplittableRandom rnd) {
    return switch (rnd.nextInt(10)) {
      case 0 -> Float.MIN_VALUE * rnd.nextInt(1, 1 << 23);
      case 1 -> -0f;
      case 2 -> 0f;
      case 3 -> Float.MAX_VALUE * (float) rnd.nextDouble(-1, 1);
      case 4 -> Float.MIN_VALUE;
      default -> (float) rnd.nextGaussian();
    };
  }

  static void assertSameBits(Partition a, Partition b) {
    assertEquals(a.samples(), b.samples());
    assertEquals(a.features(), b.features());
    assertArrayEquals(bits(a.featureMajor()), bits(b.featureMajor()));
    assertArrayEquals(bits(a.targets()), bits(b.targets()));
    assertEquals(a.digest(), b.digest());
  }

  static int[] bits(float[] v) {
    int[] b = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = Float.floatToRawIntBits(v[i]);
    }
    return b;
  }

  Path csv(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  String error(Path f) {
    return error(f, 0);
  }

  /** The message of reading f, which streaming it must give too (same checks, same words). */
  String error(Path f, int d) {
    String read =
        assertThrows(DataFormatException.class, () -> PartitionFiles.read(f, d)).getMessage();
    String streamed =
        assertThrows(
                DataFormatException.class, () -> PartitionFiles.stream(f, d, (i, x, y, w) -> {}))
            .getMessage();
    assertEquals(read, streamed, "stream vs read of " + f);
    return read;
  }

  /** Streams a file back into a partition (feature-major), to compare with what read gives. */
  static Partition streamed(Path f) throws Exception {
    java.util.List<float[]> rows = new java.util.ArrayList<>();
    java.util.List<Float> ys = new java.util.ArrayList<>();
    long n =
        PartitionFiles.stream(
            f,
            0,
            (i, x, y, w) -> {
              assertEquals(rows.size(), i);
              rows.add(x.clone());
              ys.add(y);
            });
    assertEquals(rows.size(), n);
    int d = rows.get(0).length;
    float[] fx = new float[rows.size() * d];
    float[] fy = new float[rows.size()];
    for (int i = 0; i < rows.size(); i++) {
      for (int j = 0; j < d; j++) {
        fx[j * rows.size() + i] = rows.get(i)[j];
      }
      fy[i] = ys.get(i);
    }
    return new Partition(rows.size(), d, fx, fy);
  }

  @Test
  void streamingGivesTheRowsThatReadingGives() throws Exception {
    // 600,000 rows of d=2 (7.2 MB) span several of the binary reader's 4 MiB row chunks.
    for (int[] shape : new int[][] {{1, 1}, {37, 3}, {600_000, 2}}) {
      Partition p = random(shape[0], shape[1], shape[0] * 7L + shape[1]);
      Path b = dir.resolve("s" + shape[0] + ".prb");
      PartitionFiles.write(p, b);
      assertSameBits(p, streamed(b));
      if (shape[0] < 1000) {
        Path c = dir.resolve("s" + shape[0] + ".csv");
        PartitionFiles.write(p, c);
        assertSameBits(p, streamed(c));
      }
    }
  }

  @Test
  void csvAndBinaryGiveTheSameBitsAndDigest() throws Exception {
    for (int[] shape : new int[][] {{1, 1}, {37, 3}, {5000, 16}, {300_000, 2}}) {
      Partition p = random(shape[0], shape[1], shape[0] * 31L + shape[1]);
      Path c = dir.resolve("p" + shape[0] + ".csv");
      Path b = dir.resolve("p" + shape[0] + ".prb");
      PartitionFiles.write(p, c);
      PartitionFiles.write(p, b);
      Partition fromCsv = PartitionFiles.read(c);
      Partition fromBin = PartitionFiles.read(b);
      assertSameBits(p, fromCsv);
      assertSameBits(p, fromBin);
      // converting the CSV to binary and back changes nothing
      Path b2 = dir.resolve("q" + shape[0] + ".prb");
      PartitionFiles.write(fromCsv, b2);
      assertArrayEquals(Files.readAllBytes(b), Files.readAllBytes(b2));
    }
  }

  @Test
  void decimalTextIsCorrectlyRoundedToBinary32() throws Exception {
    Path f =
        csv(
            "r.csv",
            "\uFEFFx1, x2 ,y\r\n"
                + "0.1,1.0000000596046447753906250,-0\r\n" // 0.1f; the exact tie 1+2^-24 rounds to
                // even (1)
                + "1.00000005960464477539062501,.5,+2.\r\n" // just above the tie: 1+2^-23
                + "1.4e-45,3.4028235e38,7E-46\r\n" // min subnormal, max float, below half of min ->
                // +0
                + "  1e0 ,\t-1.5E+2,123456789\n\n\n");
    Partition p = PartitionFiles.read(f);
    assertEquals(4, p.samples());
    assertEquals(2, p.features());
    assertEquals(Float.floatToRawIntBits(0.1f), Float.floatToRawIntBits(p.x(0, 0)));
    assertEquals(1f, p.x(0, 1));
    assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(p.y(0)));
    assertEquals(Math.nextUp(1f), p.x(1, 0));
    assertEquals(0.5f, p.x(1, 1));
    assertEquals(2f, p.y(1));
    assertEquals(Float.MIN_VALUE, p.x(2, 0));
    assertEquals(Float.MAX_VALUE, p.x(2, 1));
    assertEquals(Float.floatToRawIntBits(0f), Float.floatToRawIntBits(p.y(2)));
    assertEquals(1f, p.x(3, 0));
    assertEquals(-150f, p.x(3, 1));
    assertEquals(123456792f, p.y(3));
  }

  @Test
  void csvErrorsNameFileAndLine() throws Exception {
    assertEquals(
        dir.resolve("a.csv") + " line 4: expected 4 values (x1..x3,y), found 3",
        error(csv("a.csv", "x1,x2,x3,y\n1,2,3,4\n1,2,3,4\n1,2,3\n")));
    assertEquals(
        dir.resolve("b.csv") + " line 2: expected 2 values (x1,y), found 3",
        error(csv("b.csv", "x1,y\n1,2,3\n")));
    assertEquals(
        dir.resolve("c.csv") + " line 3: x2 is 'abc', not a number",
        error(csv("c.csv", "x1,x2,y\n1,2,3\n1,abc,3\n")));
    assertEquals(
        dir.resolve("d.csv") + " line 2: y is 'NaN', not a finite number",
        error(csv("d.csv", "x1,y\n1,NaN\n")));
    assertEquals(
        dir.resolve("e.csv") + " line 2: x1 is '-Infinity', not a finite number",
        error(csv("e.csv", "x1,y\n-Infinity,1\n")));
    assertEquals(
        dir.resolve("f.csv")
            + " line 2: x1 is '1e39', outside the binary32 range (rounds to infinity)",
        error(csv("f.csv", "x1,y\n1e39,1\n")));
    assertEquals(
        dir.resolve("g.csv") + " line 1: expected d=3 features (x1,x2,x3,y), the header has d=2",
        error(csv("g.csv", "x1,x2,y\n1,2,3\n"), 3));
    assertEquals(
        dir.resolve("h.csv") + ": no data rows after the header (an empty partition)",
        error(csv("h.csv", "x1,x2,y\n\n")));
    assertEquals(
        dir.resolve("i.csv") + " line 1: missing header x1,...,xd,y (the file is empty)",
        error(csv("i.csv", "")));
    assertEquals(
        dir.resolve("j.csv")
            + " line 1: header must be x1,...,xd,y; found 'a,b,y' (or choose columns by name with --label/--features, or use --no-header)",
        error(csv("j.csv", "a,b,y\n1,2,3\n")));
    assertEquals(
        dir.resolve("k.csv")
            + " line 3: blank line inside the data (only trailing blank lines are allowed)",
        error(csv("k.csv", "x1,y\n1,2\n\n3,4\n")));
    assertEquals(
        dir.resolve("l.csv") + " line 2: x1 is '1f', not a number",
        error(csv("l.csv", "x1,y\n1f,2\n")));
    assertEquals(
        dir.resolve("m.csv") + " line 2: y is '', not a number", error(csv("m.csv", "x1,y\n1,\n")));
    assertEquals(
        dir.resolve("n.csv") + " line 2: x1 is '0x1p3', not a number",
        error(csv("n.csv", "x1,y\n0x1p3,2\n")));
  }

  @Test
  void binaryErrorsNameFileAndByteOffset() throws Exception {
    Partition p = random(300_000, 2, 7); // 3.6 MB: four 1 MiB blocks
    Path good = dir.resolve("good.prb");
    BinaryPartitionFormat.write(p, good);
    byte[] bytes = Files.readAllBytes(good);

    Path truncated = dir.resolve("t.prb");
    Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length - 100));
    assertEquals(
        truncated
            + " byte "
            + (bytes.length - 100)
            + ": truncated: the header announces "
            + bytes.length
            + " bytes (d=2, N=300000), the file ends here",
        error(truncated));

    Path shortHeader = dir.resolve("s.prb");
    Files.write(shortHeader, java.util.Arrays.copyOf(bytes, 20));
    assertEquals(
        shortHeader + " byte 20: truncated: the file ends inside the 64-byte header",
        error(shortHeader));

    Path magic = dir.resolve("m.prb");
    byte[] m = bytes.clone();
    m[1] = 'X';
    Files.write(magic, m);
    assertEquals(magic + " byte 0: not a parreg binary partition (bad magic)", error(magic));

    Path header = dir.resolve("h.prb");
    byte[] h = bytes.clone();
    h[16] ^= 1; // N
    Files.write(header, h);
    assertTrue(
        error(header).startsWith(header + " byte 60: header checksum mismatch"), error(header));

    Path payload = dir.resolve("p.prb");
    byte[] q = bytes.clone();
    int at = 64 + 2 * (1 << 20) + 12345; // inside block 2
    q[at] ^= 0x10;
    Files.write(payload, q);
    long from = 64 + 2L * (1 << 20);
    assertEquals(
        payload
            + " byte "
            + from
            + ": payload checksum mismatch in block 2 (bytes "
            + from
            + ".."
            + (from + (1 << 20) - 1)
            + ")",
        error(payload));

    Path trailing = dir.resolve("x.prb");
    byte[] tr = java.util.Arrays.copyOf(bytes, bytes.length + 3);
    Files.write(trailing, tr);
    assertEquals(
        trailing + " byte " + bytes.length + ": 3 unexpected bytes after the end of the partition",
        error(trailing));

    assertEquals(good + " byte 12: expected d=3 features, the file has d=2", error(good, 3));

    Path nan = dir.resolve("nan.prb");
    float[] x = {1f, 2f, Float.NaN, 4f};
    BinaryPartitionFormat.write(new Partition(2, 2, x, new float[] {0f, 0f}), nan);
    assertEquals(
        nan + " byte " + (64 + 8) + ": x2 of row 1 is NaN, not a finite number", error(nan));
    Path inf = dir.resolve("inf.prb");
    BinaryPartitionFormat.write(
        new Partition(2, 1, new float[] {1f, 2f}, new float[] {0f, Float.POSITIVE_INFINITY}), inf);
    assertEquals(
        inf + " byte " + (64 + 12) + ": y of row 2 is Infinity, not a finite number", error(inf));

    Path notBinary = csv("z.prb", "x1,y\n1,2\n");
    assertEquals(
        notBinary + " byte 0: not a parreg binary partition (bad magic)", error(notBinary));
  }

  @Test
  void writersNeverOverwriteAndLeaveNoTemporaryFiles() throws Exception {
    Partition p = random(10, 2, 3);
    Path b = dir.resolve("once.prb");
    Path c = dir.resolve("once.csv");
    PartitionFiles.write(p, b);
    PartitionFiles.write(p, c);
    byte[] before = Files.readAllBytes(b);
    Partition other = random(11, 2, 4);
    assertThrows(FileAlreadyExistsException.class, () -> PartitionFiles.write(other, b));
    assertThrows(FileAlreadyExistsException.class, () -> PartitionFiles.write(other, c));
    assertArrayEquals(before, Files.readAllBytes(b));
    try (Stream<Path> s = Files.list(dir)) {
      assertFalse(
          s.anyMatch(f -> f.getFileName().toString().endsWith(".tmp")),
          "temporary files left behind");
    }
  }

  @Test
  void binaryFileDetectedByMagicWhateverTheName() throws Exception {
    Partition p = random(100, 4, 9);
    Path b = dir.resolve("data.bin");
    BinaryPartitionFormat.write(p, b);
    assertSameBits(p, PartitionFiles.read(b));
  }

  @Test
  void headerLayoutIsAsDocumented() throws Exception {
    Path b = dir.resolve("layout.prb");
    BinaryPartitionFormat.write(
        new Partition(3, 1, new float[] {1f, 2f, 3f}, new float[] {-1f, -2f, -3f}), b);
    byte[] bytes = Files.readAllBytes(b);
    assertEquals(64 + 24 + 8, bytes.length); // header, 6 floats, one block CRC and the table CRC
    java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    assertEquals(1, h.getInt(8));
    assertEquals(1, h.getInt(12));
    assertEquals(3L, h.getLong(16));
    assertEquals(24L, h.getLong(32));
    assertEquals(1f, h.getFloat(64));
    assertEquals(-1f, h.getFloat(64 + 12));
    try (RandomAccessFile raf = new RandomAccessFile(b.toFile(), "r")) {
      assertEquals(bytes.length, raf.length());
    }
  }
}
