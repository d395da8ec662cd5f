package parreg.device.data;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;
import parreg.device.Partition;

/**
 * The binary columnar partition format {@code .prb}, version {@value #VERSION}. All integers are
 * little-endian.
 *
 * <pre>
 * offset  size  field
 *      0     8  magic: 0x89 'P' 'R' 'B' 0x0D 0x0A 0x1A 0x0A
 *      8     4  version (u32) = 1
 *     12     4  d, features (u32, >= 1)
 *     16     8  N, samples (u64, >= 1; N * d < 2^31)
 *     24     4  block size B in bytes (u32) = 1 MiB
 *     28     4  reserved, 0
 *     32     8  payload bytes (u64) = 4 * (d + 1) * N
 *     40    20  reserved, 0
 *     60     4  CRC32C of bytes 0..59 (u32)
 *     64     -  payload: x feature-major, float32 LE: x[j][i] at 64 + 4 * (j * N + i),
 *               then y: y[i] at 64 + 4 * (d * N + i)
 *      E     -  block table, E = 64 + payload bytes: one CRC32C (u32) per B-byte block of the
 *               payload (the last block may be short), then the CRC32C of the table itself (u32)
 * </pre>
 *
 * The file is exactly {@code 64 + payload + 4 * (blocks + 1)} bytes. Reading maps the file into
 * memory and checks, in this order, with the file and byte offset in each message: the length
 * (truncated or trailing bytes), the magic, the header checksum, the version and shape, the block
 * table's checksum, each payload block's checksum (naming the block's byte range), and that every
 * value is finite (naming the value's byte offset, row and column). Writing goes through {@link
 * AtomicFiles}: a temporary file, flushed, linked into place, never over an existing file.
 *
 * <p>The payload is the partition's own memory layout ({@link Partition#featureMajor()} then
 * {@link Partition#targets()}), so reading is one bulk copy per column out of the mapping.
 */
public final class BinaryPartitionFormat {
  public static final int VERSION = 1;
  public static final int HEADER_BYTES = 64;
  public static final int BLOCK_BYTES = 1 << 20;
  public static final String EXTENSION = ".prb";
  static final byte[] MAGIC = {(byte) 0x89, 'P', 'R', 'B', 0x0D, 0x0A, 0x1A, 0x0A};
  /** Bytes mapped at a time (a multiple of the block size and of 4). */
  private static final long WINDOW = 256L * BLOCK_BYTES;

  private BinaryPartitionFormat() {}

  /** True if the first bytes of a file are this format's magic. */
  public static boolean hasMagic(byte[] first) {
    return first.length >= MAGIC.length && Arrays.equals(first, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  public static Partition read(Path file) throws IOException, DataFormatException {
    return read(file, 0);
  }

  /**
   * Reads a binary partition.
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   */
  public static Partition read(Path file, int expectedFeatures) throws IOException, DataFormatException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Layout layout = layout(file, ch, expectedFeatures);
      long n = layout.n();
      long d = layout.d();
      long payload = layout.payload();
      ByteBuffer table = layout.table();
      int ni = (int) n;
      int di = (int) d;
      float[] x = new float[ni * di];
      float[] y = new float[ni];
      // Map the payload window by window; check each block's CRC, then copy its floats out.
      CRC32C crc = new CRC32C();
      long done = 0;
      while (done < payload) {
        long len = Math.min(WINDOW, payload - done);
        MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + done, len);
        m.order(ByteOrder.LITTLE_ENDIAN);
        checkBlocks(file, m, done, len, table, crc);
        // copy floats: the window starts at a multiple of 4 bytes of the payload
        java.nio.FloatBuffer fb = m.asFloatBuffer();
        long firstFloat = done / 4;
        int count = (int) (len / 4);
        long xCount = (long) ni * di;
        int inX = (int) Math.max(0, Math.min(count, xCount - firstFloat));
        if (inX > 0) {
          fb.get(x, (int) firstFloat, inX);
        }
        if (count > inX) {
          fb.get(y, (int) (firstFloat + inX - xCount), count - inX);
        }
        done += len;
      }
      checkFinite(file, x, ni, di, false);
      checkFinite(file, y, ni, di, true);
      return new Partition(ni, di, x, y);
    }
  }

  /** Checks the CRC32C of every block of a mapped window that starts {@code done} bytes into the payload. */
  private static void checkBlocks(Path file, MappedByteBuffer m, long done, long len, ByteBuffer table, CRC32C crc)
      throws DataFormatException {
    for (long b = 0; b < len; b += BLOCK_BYTES) {
      int bl = (int) Math.min(BLOCK_BYTES, len - b);
      long blockIndex = (done + b) / BLOCK_BYTES;
      crc.reset();
      crc.update(m.slice((int) b, bl));
      int stored = table.getInt((int) (4 * blockIndex));
      if ((int) crc.getValue() != stored) {
        long from = HEADER_BYTES + done + b;
        throw DataFormatException.atByte(
            file, from, "payload checksum mismatch in block " + blockIndex + " (bytes " + from + ".." + (from + bl - 1) + ")");
      }
    }
  }

  /**
   * Streams a binary partition's rows to {@code sink} in row order, with the checks of {@link
   * #read}: first every block's checksum (one sequential pass over the mapped payload, nothing
   * copied), then the rows, a chunk of rows at a time, each column's slice of the chunk read at
   * its offset. Memory stays at one chunk (about 4 MiB), whatever the file's size.
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   * @return the number of rows
   */
  public static long stream(Path file, int expectedFeatures, RowSink sink) throws IOException, DataFormatException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Layout layout = layout(file, ch, expectedFeatures);
      long n = layout.n();
      int d = (int) layout.d();
      CRC32C crc = new CRC32C();
      for (long done = 0; done < layout.payload(); ) {
        long len = Math.min(WINDOW, layout.payload() - done);
        MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + done, len);
        checkBlocks(file, m, done, len, layout.table(), crc);
        done += len;
      }
      sink.begin(d);
      int chunk = (int) Math.min(n, Math.max(1, (4 << 20) / (4 * (d + 1))));
      float[][] columns = new float[d + 1][chunk];
      ByteBuffer buf = ByteBuffer.allocate(4 * chunk).order(ByteOrder.LITTLE_ENDIAN);
      float[] x = new float[d];
      long[] at = {0};
      RowSink.Where where = () -> file + " row " + (at[0] + 1);
      for (long r0 = 0; r0 < n; r0 += chunk) {
        int rows = (int) Math.min(chunk, n - r0);
        for (int j = 0; j <= d; j++) {
          buf.clear().limit(4 * rows);
          long pos = HEADER_BYTES + 4 * ((long) j * n + r0);
          while (buf.hasRemaining()) {
            if (ch.read(buf, pos + buf.position()) < 0) {
              throw DataFormatException.atByte(file, pos + buf.position(), "the file changed while it was read (truncated)");
            }
          }
          buf.flip();
          buf.asFloatBuffer().get(columns[j], 0, rows);
        }
        for (int i = 0; i < rows; i++) {
          long r = r0 + i;
          for (int j = 0; j <= d; j++) {
            float v = columns[j][i];
            if (!Float.isFinite(v)) {
              throw DataFormatException.atByte(file, HEADER_BYTES + 4 * ((long) j * n + r),
                  (j < d ? "x" + (j + 1) : "y") + " of row " + (r + 1) + " is " + v + ", not a finite number");
            }
            if (j < d) {
              x[j] = v;
            }
          }
          at[0] = r;
          sink.row(r, x, columns[d][i], where);
        }
      }
      return n;
    }
  }

  /** What the header announces, checked against the file's length, with the block checksum table. */
  private record Layout(long d, long n, long payload, ByteBuffer table) {}

  /** Reads and checks the header, the length and the block table (not the payload blocks). */
  private static Layout layout(Path file, FileChannel ch, int expectedFeatures) throws IOException, DataFormatException {
    long size = ch.size();
    if (size < HEADER_BYTES) {
      if (size >= MAGIC.length && !hasMagic(readBytes(ch, 0, MAGIC.length))) {
        throw DataFormatException.atByte(file, 0, "not a parreg binary partition (bad magic)");
      }
      throw DataFormatException.atByte(file, size, "truncated: the file ends inside the " + HEADER_BYTES + "-byte header");
    }
    ByteBuffer h = ByteBuffer.wrap(readBytes(ch, 0, HEADER_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
    if (!hasMagic(h.array())) {
      throw DataFormatException.atByte(file, 0, "not a parreg binary partition (bad magic)");
    }
    CRC32C hc = new CRC32C();
    hc.update(h.array(), 0, 60);
    int headerCrc = h.getInt(60);
    if ((int) hc.getValue() != headerCrc) {
      throw DataFormatException.atByte(
          file, 60, String.format("header checksum mismatch (stored 0x%08x, computed 0x%08x)", headerCrc, (int) hc.getValue()));
    }
    int version = h.getInt(8);
    if (version != VERSION) {
      throw DataFormatException.atByte(file, 8, "unsupported version " + Integer.toUnsignedString(version) + " (this build reads " + VERSION + ")");
    }
    long d = Integer.toUnsignedLong(h.getInt(12));
    long n = h.getLong(16);
    int block = h.getInt(24);
    long payload = h.getLong(32);
    if (d < 1 || d > Integer.MAX_VALUE) {
      throw DataFormatException.atByte(file, 12, "bad feature count d=" + d);
    }
    if (n < 1) {
      throw DataFormatException.atByte(file, 16, n == 0 ? "no samples (an empty partition)" : "bad sample count " + Long.toUnsignedString(n));
    }
    if (n > Integer.MAX_VALUE || n * d > Integer.MAX_VALUE - 8) {
      throw DataFormatException.atByte(file, 16, n + " samples of d=" + d + " exceed one partition's limit");
    }
    if (block != BLOCK_BYTES) {
      throw DataFormatException.atByte(file, 24, "unsupported block size " + block);
    }
    if (payload != 4 * (d + 1) * n) {
      throw DataFormatException.atByte(file, 32, "payload size " + payload + " does not match d=" + d + ", N=" + n);
    }
    if (expectedFeatures > 0 && d != expectedFeatures) {
      throw DataFormatException.atByte(file, 12, "expected d=" + expectedFeatures + " features, the file has d=" + d);
    }
    long blocks = (payload + BLOCK_BYTES - 1) / BLOCK_BYTES;
    long tableAt = HEADER_BYTES + payload;
    long expectedSize = tableAt + 4 * (blocks + 1);
    if (size < expectedSize) {
      throw DataFormatException.atByte(file, size, "truncated: the header announces " + expectedSize + " bytes (d=" + d + ", N=" + n + "), the file ends here");
    }
    if (size > expectedSize) {
      throw DataFormatException.atByte(file, expectedSize, (size - expectedSize) + " unexpected bytes after the end of the partition");
    }
    ByteBuffer table = ByteBuffer.wrap(readBytes(ch, tableAt, (int) (4 * (blocks + 1)))).order(ByteOrder.LITTLE_ENDIAN);
    CRC32C tc = new CRC32C();
    tc.update(table.array(), 0, (int) (4 * blocks));
    if ((int) tc.getValue() != table.getInt((int) (4 * blocks))) {
      throw DataFormatException.atByte(file, tableAt, "block checksum table is corrupt (its own checksum does not match)");
    }
    return new Layout(d, n, payload, table);
  }

  private static void checkFinite(Path file, float[] v, int n, int d, boolean isY) throws DataFormatException {
    for (int k = 0; k < v.length; k++) {
      if (!Float.isFinite(v[k])) {
        long index = isY ? (long) d * n + k : k;
        int row = isY ? k : k % n;
        String col = isY ? "y" : "x" + (k / n + 1);
        throw DataFormatException.atByte(
            file, HEADER_BYTES + 4 * index, col + " of row " + (row + 1) + " is " + v[k] + ", not a finite number");
      }
    }
  }

  /** Writes a partition in this format, atomically, refusing to overwrite. */
  public static void write(Partition p, Path file) throws IOException {
    int n = p.samples();
    int d = p.features();
    long payload = 4L * (d + 1) * n;
    long blocks = (payload + BLOCK_BYTES - 1) / BLOCK_BYTES;
    AtomicFiles.writeNew(
        file,
        ch -> {
          ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
          h.put(MAGIC);
          h.putInt(8, VERSION);
          h.putInt(12, d);
          h.putLong(16, n);
          h.putInt(24, BLOCK_BYTES);
          h.putLong(32, payload);
          CRC32C hc = new CRC32C();
          hc.update(h.array(), 0, 60);
          h.putInt(60, (int) hc.getValue());
          h.position(0);
          writeFully(ch, h);

          ByteBuffer table = ByteBuffer.allocate((int) (4 * (blocks + 1))).order(ByteOrder.LITTLE_ENDIAN);
          ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
          java.nio.FloatBuffer fb = buf.asFloatBuffer();
          CRC32C crc = new CRC32C();
          float[] x = p.featureMajor();
          float[] y = p.targets();
          long total = (long) n * (d + 1);
          int perBlock = BLOCK_BYTES / 4;
          for (long f = 0; f < total; f += perBlock) {
            int count = (int) Math.min(perBlock, total - f);
            fb.clear();
            long xCount = (long) n * d;
            int inX = (int) Math.max(0, Math.min(count, xCount - f));
            if (inX > 0) {
              fb.put(x, (int) f, inX);
            }
            if (count > inX) {
              fb.put(y, (int) (f + inX - xCount), count - inX);
            }
            buf.clear().limit(4 * count);
            crc.reset();
            crc.update(buf);
            table.putInt((int) crc.getValue());
            buf.clear().limit(4 * count);
            writeFully(ch, buf);
          }
          CRC32C tc = new CRC32C();
          tc.update(table.array(), 0, (int) (4 * blocks));
          table.putInt((int) tc.getValue());
          table.flip();
          writeFully(ch, table);
        });
  }

  private static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

  private static byte[] readBytes(FileChannel ch, long at, int len) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(len);
    while (b.hasRemaining()) {
      if (ch.read(b, at + b.position()) < 0) {
        break;
      }
    }
    return b.array();
  }
}
