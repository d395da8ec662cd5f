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
import parreg.device.Precision;
import parreg.device.Workers;

/**
 * The binary columnar partition format {@code .prb}: version {@value #VERSION} holds binary32
 * values, version {@value #VERSION_F64} the same layout with binary64 values ({@link
 * parreg.device.Precision#F64}; W below is the value width, 4 or 8 bytes). All integers are
 * little-endian.
 *
 * <pre>
 * offset  size  field
 *      0     8  magic: 0x89 'P' 'R' 'B' 0x0D 0x0A 0x1A 0x0A
 *      8     4  version (u32) = 1 (binary32 values, W = 4) or 2 (binary64 values, W = 8)
 *     12     4  d, features (u32, >= 1)
 *     16     8  N, samples (u64, >= 1; N * d < 2^31)
 *     24     4  block size B in bytes (u32) = 1 MiB
 *     28     4  reserved, 0
 *     32     8  payload bytes (u64) = W * (d + 1) * N
 *     40    20  reserved, 0
 *     60     4  CRC32C of bytes 0..59 (u32)
 *     64     -  payload: x feature-major, float32 (float64) LE: x[j][i] at 64 + W * (j * N + i),
 *               then y: y[i] at 64 + W * (d * N + i)
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
 * <p>A version 1 file is a binary32 partition, a version 2 file a binary64 one ({@link
 * Partition#ofBinary64}, whose digest has its own definition): the version is the header's, so a
 * build that reads only version 1 refuses a binary64 file by its version, and the header checksum
 * (part of the digest sidecar's key) tells the two apart.
 *
 * <p>The payload is the partition's own memory layout ({@link Partition#featureMajor()} then {@link
 * Partition#targets()}, or their binary64 arrays), so reading is a bulk copy out of the mapping;
 * runs of 16 blocks are mapped, checked and copied in parallel ({@link Workers}), and the first bad
 * block (else the first value that is not finite) is reported, whatever the thread count.
 */
public final class BinaryPartitionFormat {
  public static final int VERSION = 1;

  /** The version of a file of binary64 values. */
  public static final int VERSION_F64 = 2;

  public static final int HEADER_BYTES = 64;
  public static final int BLOCK_BYTES = 1 << 20;
  public static final String EXTENSION = ".prb";

  /** Bytes mapped at a time by {@link #stream} (a multiple of the block size and of 4). */
  private static final long WINDOW = 256L * BLOCK_BYTES;

  static final byte[] MAGIC = {(byte) 0x89, 'P', 'R', 'B', 0x0D, 0x0A, 0x1A, 0x0A};

  /** Blocks one read task maps, checks and copies (16 MiB: many tasks per thread, few mappings). */
  static final int CHUNK_BLOCKS = 16;

  private BinaryPartitionFormat() {}

  /** True if the first bytes of a file are this format's magic. */
  public static boolean hasMagic(byte[] first) {
    return first.length >= MAGIC.length
        && Arrays.equals(first, 0, MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  public static Partition read(Path file) throws IOException, DataFormatException {
    return read(file, 0, Workers.defaultThreads()).partition();
  }

  /**
   * Reads a binary partition on {@code threads} threads (the bits and the first error reported do
   * not depend on the thread count). The header, length and block table are checked as by {@link
   * #stream} ({@code layout}).
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   */
  public static Loaded read(Path file, int expectedFeatures, int threads)
      throws IOException, DataFormatException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Layout layout = layout(file, ch, expectedFeatures);
      long n = layout.n();
      long d = layout.d();
      long payload = layout.payload();
      ByteBuffer table = layout.table();
      long blocks = (payload + BLOCK_BYTES - 1) / BLOCK_BYTES;

      int ni = (int) n;
      int di = (int) d;
      boolean wide = layout.wide();
      float[] x = wide ? null : new float[ni * di];
      float[] y = wide ? null : new float[ni];
      double[] x64 = wide ? new double[ni * di] : null;
      double[] y64 = wide ? new double[ni] : null;
      Chunks chunks = new Chunks(blocks);
      // Each task maps its own run of blocks, checks their CRCs, copies their values out and
      // checks that they are finite: independent work, so the tasks run in parallel (Workers).
      Workers.run(
          threads,
          chunks.count,
          c -> {
            if (wide) {
              chunks.load64(c, ch, payload, table, x64, y64);
            } else {
              chunks.load(c, ch, payload, table, x, y);
            }
          });
      // Report what the one-pass reader reported: the first bad block, else the first value that
      // is not finite (x before y, each in index order: payload order).
      long badBlock = chunks.firstBadBlock();
      if (badBlock >= 0) {
        long from = HEADER_BYTES + badBlock * BLOCK_BYTES;
        long bl = Math.min(BLOCK_BYTES, payload - badBlock * BLOCK_BYTES);
        throw DataFormatException.atByte(
            file,
            from,
            "payload checksum mismatch in block "
                + badBlock
                + " (bytes "
                + from
                + ".."
                + (from + bl - 1)
                + ")");
      }
      long bad = chunks.firstNonFiniteIndex();
      if (bad >= 0) {
        long xCount = (long) ni * di;
        boolean isY = bad >= xCount;
        int k = (int) (isY ? bad - xCount : bad);
        String v =
            wide ? Double.toString(isY ? y64[k] : x64[k]) : Float.toString(isY ? y[k] : x[k]);
        int row = isY ? (int) (bad - xCount) : (int) (bad % ni);
        String col = isY ? "y" : "x" + (bad / ni + 1);
        throw DataFormatException.atByte(
            file,
            HEADER_BYTES + layout.width() * bad,
            col + " of row " + (row + 1) + " is " + v + ", not a finite number");
      }
      Key key = new Key(layout.headerCrc(), table.getInt((int) (4 * blocks)));
      Partition p = wide ? Partition.ofBinary64(ni, di, x64, y64) : new Partition(ni, di, x, y);
      return new Loaded(p, key);
    }
  }

  /**
   * What a file's header and block table say, checked as {@link #read} checks them (length, magic,
   * header and table checksums, shape), without reading the payload: a few kilobytes.
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   */
  public static Shape shape(Path file, int expectedFeatures)
      throws IOException, DataFormatException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Layout layout = layout(file, ch, expectedFeatures);
      long blocks = (layout.payload() + BLOCK_BYTES - 1) / BLOCK_BYTES;
      return new Shape(
          (int) layout.n(),
          (int) layout.d(),
          new Key(layout.headerCrc(), layout.table().getInt((int) (4 * blocks))),
          layout.wide() ? Precision.F64 : Precision.F32);
    }
  }

  /**
   * A file's sample and feature counts, content key and value precision, from its header and block
   * table.
   */
  public record Shape(int samples, int features, Key key, Precision precision) {}

  /**
   * What identifies a file's content cheaply: its header checksum (which covers d and N) and its
   * block table's checksum (which covers every block's CRC32C). A read checks every block against
   * the table, so a partition read from a file has exactly the content these two describe, up to
   * CRC32C collisions in every changed block.
   */
  public record Key(int headerCrc, int tableCrc) {}

  /** A partition read from a file, with the key of the content it was read from. */
  public record Loaded(Partition partition, Key key) {}

  /** The payload cut into runs of {@link #CHUNK_BLOCKS} blocks, and what each run's check found. */
  private static final class Chunks {
    final int count;
    final long blocks;
    final long[] badBlock; // per chunk: first block whose CRC does not match, or -1
    final long[] nonFinite; // per chunk: payload index of the first value that is not finite, or -1

    Chunks(long blocks) {
      this.blocks = blocks;
      this.count = (int) ((blocks + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS);
      this.badBlock = new long[count];
      this.nonFinite = new long[count];
    }

    /**
     * Chunk {@code c} of the payload mapped, every block's CRC checked against {@code table}; null
     * (and {@link #badBlock} set) when one does not match: the file is refused, its values never
     * used.
     */
    private MappedByteBuffer checked(int c, FileChannel ch, long payload, ByteBuffer table)
        throws IOException {
      badBlock[c] = -1;
      nonFinite[c] = -1;
      long first = (long) c * CHUNK_BLOCKS * BLOCK_BYTES;
      long len = Math.min((long) CHUNK_BLOCKS * BLOCK_BYTES, payload - first);
      MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + first, len);
      m.order(ByteOrder.LITTLE_ENDIAN);
      CRC32C crc = new CRC32C();
      for (long b = 0; b < len; b += BLOCK_BYTES) {
        int bl = (int) Math.min(BLOCK_BYTES, len - b);
        long blockIndex = (first + b) / BLOCK_BYTES;
        crc.reset();
        crc.update(m.slice((int) b, bl));
        if ((int) crc.getValue() != table.getInt((int) (4 * blockIndex))) {
          badBlock[c] = blockIndex;
          return null;
        }
      }
      return m;
    }

    void load(int c, FileChannel ch, long payload, ByteBuffer table, float[] x, float[] y)
        throws IOException {
      MappedByteBuffer m = checked(c, ch, payload, table);
      if (m == null) {
        return;
      }
      long first = (long) c * CHUNK_BLOCKS * BLOCK_BYTES;
      long len = m.capacity();
      // copy the floats out: a chunk starts at a multiple of 4 bytes of the payload
      java.nio.FloatBuffer fb = m.asFloatBuffer();
      long firstFloat = first / 4;
      int count = (int) (len / 4);
      long xCount = x.length;
      int inX = (int) Math.max(0, Math.min(count, xCount - firstFloat));
      if (inX > 0) {
        fb.get(x, (int) firstFloat, inX);
        int k = firstNonFinite(x, (int) firstFloat, inX);
        if (k >= 0) {
          nonFinite[c] = k;
          return;
        }
      }
      if (count > inX) {
        int yFrom = (int) (firstFloat + inX - xCount);
        fb.get(inX, y, yFrom, count - inX);
        int k = firstNonFinite(y, yFrom, count - inX);
        if (k >= 0) {
          nonFinite[c] = xCount + k;
        }
      }
    }

    /** As {@link #load}, a binary64 file: the same blocks, 8-byte values. */
    void load64(int c, FileChannel ch, long payload, ByteBuffer table, double[] x, double[] y)
        throws IOException {
      MappedByteBuffer m = checked(c, ch, payload, table);
      if (m == null) {
        return;
      }
      long first = (long) c * CHUNK_BLOCKS * BLOCK_BYTES;
      long len = m.capacity();
      // a chunk starts at a multiple of 8 bytes of the payload (the block size is)
      java.nio.DoubleBuffer db = m.asDoubleBuffer();
      long firstValue = first / 8;
      int count = (int) (len / 8);
      long xCount = x.length;
      int inX = (int) Math.max(0, Math.min(count, xCount - firstValue));
      if (inX > 0) {
        db.get(x, (int) firstValue, inX);
        int k = firstNonFinite(x, (int) firstValue, inX);
        if (k >= 0) {
          nonFinite[c] = k;
          return;
        }
      }
      if (count > inX) {
        int yFrom = (int) (firstValue + inX - xCount);
        db.get(inX, y, yFrom, count - inX);
        int k = firstNonFinite(y, yFrom, count - inX);
        if (k >= 0) {
          nonFinite[c] = xCount + k;
        }
      }
    }

    long firstBadBlock() {
      for (long b : badBlock) {
        if (b >= 0) {
          return b;
        }
      }
      return -1;
    }

    long firstNonFiniteIndex() {
      for (long k : nonFinite) {
        if (k >= 0) {
          return k;
        }
      }
      return -1;
    }
  }

  /** Index of the first value of v[from, from + len) that is not finite, or -1. */
  private static int firstNonFinite(float[] v, int from, int len) {
    int end = from + len;
    for (int k = from; k < end; k++) {
      // exponent all ones: an infinity or a NaN
      if ((Float.floatToRawIntBits(v[k]) & 0x7f800000) == 0x7f800000) {
        return k;
      }
    }
    return -1;
  }

  /** Index of the first value of v[from, from + len) that is not finite, or -1. */
  private static int firstNonFinite(double[] v, int from, int len) {
    int end = from + len;
    for (int k = from; k < end; k++) {
      if (!Double.isFinite(v[k])) {
        return k;
      }
    }
    return -1;
  }

  /**
   * Checks the CRC32C of every block of a mapped window that starts {@code done} bytes into the
   * payload.
   */
  private static void checkBlocks(
      Path file, MappedByteBuffer m, long done, long len, ByteBuffer table, CRC32C crc)
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
            file,
            from,
            "payload checksum mismatch in block "
                + blockIndex
                + " (bytes "
                + from
                + ".."
                + (from + bl - 1)
                + ")");
      }
    }
  }

  /**
   * Streams a binary partition's rows to {@code sink} in row order, with the checks of {@link
   * #read}: first every block's checksum (one sequential pass over the mapped payload, nothing
   * copied), then the rows, a chunk of rows at a time, each column's slice of the chunk read at its
   * offset. Memory stays at one chunk (about 4 MiB), whatever the file's size. A binary64 file is
   * refused: its values are not binary32 (read it with {@link #stream64}).
   *
   * @param expectedFeatures the d the file must have, or 0 to accept the file's d
   * @return the number of rows
   */
  public static long stream(Path file, int expectedFeatures, RowSink sink)
      throws IOException, DataFormatException {
    return stream(file, expectedFeatures, sink, null);
  }

  /**
   * As {@link #stream}, every value in binary64: a binary64 file's own, a binary32 file's widened
   * (exactly).
   */
  public static long stream64(Path file, int expectedFeatures, RowSink64 sink)
      throws IOException, DataFormatException {
    return stream(file, expectedFeatures, null, sink);
  }

  /** Streams to {@code sink} (binary32 rows) or to {@code sink64} (binary64 rows), one null. */
  private static long stream(Path file, int expectedFeatures, RowSink sink, RowSink64 sink64)
      throws IOException, DataFormatException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Layout layout = layout(file, ch, expectedFeatures);
      if (layout.wide() && sink64 == null) {
        throw binary64Refused(file);
      }
      long n = layout.n();
      int d = (int) layout.d();
      int w = layout.width();
      CRC32C crc = new CRC32C();
      for (long done = 0; done < layout.payload(); ) {
        long len = Math.min(WINDOW, layout.payload() - done);
        MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + done, len);
        checkBlocks(file, m, done, len, layout.table(), crc);
        done += len;
      }
      if (sink64 != null) {
        sink64.begin(d);
      } else {
        sink.begin(d);
      }
      int chunk = (int) Math.min(n, Math.max(1, (4 << 20) / (w * (d + 1))));
      float[][] columns = layout.wide() ? null : new float[d + 1][chunk];
      double[][] columns64 = layout.wide() ? new double[d + 1][chunk] : null;
      ByteBuffer buf = ByteBuffer.allocate(w * chunk).order(ByteOrder.LITTLE_ENDIAN);
      float[] x = new float[d];
      double[] x64 = new double[d];
      long[] at = {0};
      RowSink.Where where = () -> file + " row " + (at[0] + 1);
      for (long r0 = 0; r0 < n; r0 += chunk) {
        int rows = (int) Math.min(chunk, n - r0);
        for (int j = 0; j <= d; j++) {
          buf.clear().limit(w * rows);
          long pos = HEADER_BYTES + w * ((long) j * n + r0);
          while (buf.hasRemaining()) {
            if (ch.read(buf, pos + buf.position()) < 0) {
              throw DataFormatException.atByte(
                  file, pos + buf.position(), "the file changed while it was read (truncated)");
            }
          }
          buf.flip();
          if (layout.wide()) {
            buf.asDoubleBuffer().get(columns64[j], 0, rows);
          } else {
            buf.asFloatBuffer().get(columns[j], 0, rows);
          }
        }
        for (int i = 0; i < rows; i++) {
          long r = r0 + i;
          for (int j = 0; j <= d; j++) {
            double v = layout.wide() ? columns64[j][i] : columns[j][i];
            if (!Double.isFinite(v)) {
              throw DataFormatException.atByte(
                  file,
                  HEADER_BYTES + w * ((long) j * n + r),
                  (j < d ? "x" + (j + 1) : "y")
                      + " of row "
                      + (r + 1)
                      + " is "
                      + (layout.wide() ? Double.toString(v) : Float.toString(columns[j][i]))
                      + ", not a finite number");
            }
            if (j < d) {
              x64[j] = v;
              if (!layout.wide()) {
                x[j] = columns[j][i];
              }
            }
          }
          at[0] = r;
          if (sink64 != null) {
            sink64.row(r, x64, layout.wide() ? columns64[d][i] : columns[d][i], where);
          } else {
            sink.row(r, x, columns[d][i], where);
          }
        }
      }
      return n;
    }
  }

  /** The refusal of a binary64 file where binary32 values are read. */
  static DataFormatException binary64Refused(Path file) {
    return DataFormatException.atByte(
        file,
        8,
        "a binary64 partition (.prb version "
            + VERSION_F64
            + "): its values are read at --precision f64 (the exact solver's), not rounded to"
            + " binary32; convert the decimal source with --precision f32 for binary32 data");
  }

  /**
   * Reads participant {@code slice.part()}'s rows of a file shared by {@code slice.parts()} ({@link
   * RowSlice}): the header gives N, so each column's share is one seek. The payload blocks the
   * slice touches are checked against the block table (the others are not read), then every value
   * read is checked finite. The result has the bits, and so the digest, of a file holding only
   * those rows.
   */
  public static Partition readSlice(Path file, int expectedFeatures, RowSlice slice)
      throws IOException, DataFormatException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      Layout layout = layout(file, ch, expectedFeatures);
      long n = layout.n();
      int d = (int) layout.d();
      int w = layout.width();
      boolean wide = layout.wide();
      long[] range = slice.range(file, n);
      int rows = (int) (range[1] - range[0]);
      float[] x = wide ? null : new float[rows * d];
      float[] y = wide ? null : new float[rows];
      double[] x64 = wide ? new double[rows * d] : null;
      double[] y64 = wide ? new double[rows] : null;
      CRC32C crc = new CRC32C();
      for (int j = 0; j <= d; j++) {
        long start = w * ((long) j * n + range[0]); // payload offsets of the column's share
        long end = w * ((long) j * n + range[1]);
        long mapEnd = Math.min(layout.payload(), ((end - 1) / BLOCK_BYTES + 1) * BLOCK_BYTES);
        for (long win = start / BLOCK_BYTES * BLOCK_BYTES; win < mapEnd; win += WINDOW) {
          long len = Math.min(WINDOW, mapEnd - win);
          MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, HEADER_BYTES + win, len);
          m.order(ByteOrder.LITTLE_ENDIAN);
          checkBlocks(file, m, win, len, layout.table(), crc);
          long from = Math.max(start, win);
          long to = Math.min(end, win + len);
          if (from < to) {
            int at = (j < d ? j * rows : 0) + (int) ((from - start) / w);
            m.position((int) (from - win));
            ByteBuffer part = m.slice().order(ByteOrder.LITTLE_ENDIAN);
            if (wide) {
              part.asDoubleBuffer().get(j < d ? x64 : y64, at, (int) ((to - from) / w));
            } else {
              part.asFloatBuffer().get(j < d ? x : y, at, (int) ((to - from) / w));
            }
          }
        }
      }
      for (int j = 0; j <= d; j++) {
        int k =
            wide
                ? firstNonFinite(j < d ? x64 : y64, j < d ? j * rows : 0, rows)
                : firstNonFinite(j < d ? x : y, j < d ? j * rows : 0, rows);
        if (k >= 0) {
          long row = range[0] + (j < d ? k - (long) j * rows : k);
          String v =
              wide ? Double.toString((j < d ? x64 : y64)[k]) : Float.toString((j < d ? x : y)[k]);
          throw DataFormatException.atByte(
              file,
              HEADER_BYTES + w * ((long) j * n + row),
              (j < d ? "x" + (j + 1) : "y")
                  + " of row "
                  + (row + 1)
                  + " is "
                  + v
                  + ", not a finite number");
        }
      }
      return wide ? Partition.ofBinary64(rows, d, x64, y64) : new Partition(rows, d, x, y);
    }
  }

  /**
   * What the header announces, checked against the file's length, with the block checksum table.
   */
  private record Layout(
      long d, long n, long payload, ByteBuffer table, int headerCrc, boolean wide) {
    /** Bytes of one value: 4 (binary32) or 8 (binary64). */
    int width() {
      return wide ? 8 : 4;
    }
  }

  /** Reads and checks the header, the length and the block table (not the payload blocks). */
  private static Layout layout(Path file, FileChannel ch, int expectedFeatures)
      throws IOException, DataFormatException {
    long size = ch.size();
    if (size < HEADER_BYTES) {
      if (size >= MAGIC.length && !hasMagic(readBytes(ch, 0, MAGIC.length))) {
        throw DataFormatException.atByte(file, 0, "not a parreg binary partition (bad magic)");
      }
      throw DataFormatException.atByte(
          file, size, "truncated: the file ends inside the " + HEADER_BYTES + "-byte header");
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
          file,
          60,
          String.format(
              "header checksum mismatch (stored 0x%08x, computed 0x%08x)",
              headerCrc, (int) hc.getValue()));
    }
    int version = h.getInt(8);
    if (version != VERSION && version != VERSION_F64) {
      throw DataFormatException.atByte(
          file,
          8,
          "unsupported version "
              + Integer.toUnsignedString(version)
              + " (this build reads "
              + VERSION
              + ", binary32, and "
              + VERSION_F64
              + ", binary64)");
    }
    boolean wide = version == VERSION_F64;
    long width = wide ? 8 : 4;
    long d = Integer.toUnsignedLong(h.getInt(12));
    long n = h.getLong(16);
    int block = h.getInt(24);
    long payload = h.getLong(32);
    if (d < 1 || d > Integer.MAX_VALUE) {
      throw DataFormatException.atByte(file, 12, "bad feature count d=" + d);
    }
    if (n < 1) {
      throw DataFormatException.atByte(
          file,
          16,
          n == 0
              ? "no samples (an empty partition)"
              : "bad sample count " + Long.toUnsignedString(n));
    }
    if (n > Integer.MAX_VALUE || n * d > Integer.MAX_VALUE - 8) {
      throw DataFormatException.atByte(
          file, 16, n + " samples of d=" + d + " exceed one partition's limit");
    }
    if (block != BLOCK_BYTES) {
      throw DataFormatException.atByte(file, 24, "unsupported block size " + block);
    }
    if (payload != width * (d + 1) * n) {
      throw DataFormatException.atByte(
          file, 32, "payload size " + payload + " does not match d=" + d + ", N=" + n);
    }
    if (expectedFeatures > 0 && d != expectedFeatures) {
      throw DataFormatException.atByte(
          file, 12, "expected d=" + expectedFeatures + " features, the file has d=" + d);
    }
    long blocks = (payload + BLOCK_BYTES - 1) / BLOCK_BYTES;
    long tableAt = HEADER_BYTES + payload;
    long expectedSize = tableAt + 4 * (blocks + 1);
    if (size < expectedSize) {
      throw DataFormatException.atByte(
          file,
          size,
          "truncated: the header announces "
              + expectedSize
              + " bytes (d="
              + d
              + ", N="
              + n
              + "), the file ends here");
    }
    if (size > expectedSize) {
      throw DataFormatException.atByte(
          file,
          expectedSize,
          (size - expectedSize) + " unexpected bytes after the end of the partition");
    }
    ByteBuffer table =
        ByteBuffer.wrap(readBytes(ch, tableAt, (int) (4 * (blocks + 1))))
            .order(ByteOrder.LITTLE_ENDIAN);
    CRC32C tc = new CRC32C();
    tc.update(table.array(), 0, (int) (4 * blocks));
    if ((int) tc.getValue() != table.getInt((int) (4 * blocks))) {
      throw DataFormatException.atByte(
          file, tableAt, "block checksum table is corrupt (its own checksum does not match)");
    }
    return new Layout(d, n, payload, table, headerCrc, wide);
  }

  /**
   * Writes a partition in this format, atomically, refusing to overwrite; returns its key. A
   * binary64 partition is written as version {@value #VERSION_F64}.
   */
  public static Key write(Partition p, Path file) throws IOException {
    int n = p.samples();
    int d = p.features();
    boolean wide = p.precision() == Precision.F64;
    int w = wide ? 8 : 4;
    long payload = (long) w * (d + 1) * n;
    long blocks = (payload + BLOCK_BYTES - 1) / BLOCK_BYTES;
    int[] crcs = new int[2];
    AtomicFiles.writeNew(
        file,
        ch -> {
          ByteBuffer h = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
          h.put(MAGIC);
          h.putInt(8, wide ? VERSION_F64 : VERSION);
          h.putInt(12, d);
          h.putLong(16, n);
          h.putInt(24, BLOCK_BYTES);
          h.putLong(32, payload);
          CRC32C hc = new CRC32C();
          hc.update(h.array(), 0, 60);
          h.putInt(60, (int) hc.getValue());
          crcs[0] = (int) hc.getValue();
          h.position(0);
          writeFully(ch, h);

          ByteBuffer table =
              ByteBuffer.allocate((int) (4 * (blocks + 1))).order(ByteOrder.LITTLE_ENDIAN);
          ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK_BYTES).order(ByteOrder.LITTLE_ENDIAN);
          java.nio.FloatBuffer fb = buf.asFloatBuffer();
          java.nio.DoubleBuffer db = buf.asDoubleBuffer();
          CRC32C crc = new CRC32C();
          long total = (long) n * (d + 1);
          int perBlock = BLOCK_BYTES / w;
          for (long f = 0; f < total; f += perBlock) {
            int count = (int) Math.min(perBlock, total - f);
            long xCount = (long) n * d;
            int inX = (int) Math.max(0, Math.min(count, xCount - f));
            if (wide) {
              db.clear();
              if (inX > 0) {
                db.put(p.featureMajor64(), (int) f, inX);
              }
              if (count > inX) {
                db.put(p.targets64(), (int) (f + inX - xCount), count - inX);
              }
            } else {
              fb.clear();
              if (inX > 0) {
                fb.put(p.featureMajor(), (int) f, inX);
              }
              if (count > inX) {
                fb.put(p.targets(), (int) (f + inX - xCount), count - inX);
              }
            }
            buf.clear().limit(w * count);
            crc.reset();
            crc.update(buf);
            table.putInt((int) crc.getValue());
            buf.clear().limit(w * count);
            writeFully(ch, buf);
          }
          CRC32C tc = new CRC32C();
          tc.update(table.array(), 0, (int) (4 * blocks));
          table.putInt((int) tc.getValue());
          crcs[1] = (int) tc.getValue();
          table.flip();
          writeFully(ch, table);
        });
    return new Key(crcs[0], crcs[1]);
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
