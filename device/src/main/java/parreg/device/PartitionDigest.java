package parreg.device;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A partition's digest, the value its roster entry records: SHA-256 of {@code
 * "parreg-partition/v1"}, then d and n (u32, little-endian), then every row in row order, its d
 * feature bits and its y bits (binary32 raw bits, little-endian). The definition is fixed: journals
 * hold these values, so a faster computation must give the same bytes to the same hash.
 *
 * <p>The partition is stored feature-major, so the row-major stream is a transposition. One SHA-256
 * is one sequential stream (it cannot be split), so the work is split the other way: the rows are
 * cut into chunks, other threads transpose the next chunks into byte buffers while the calling
 * thread hashes the current ones in order. The hash sees exactly the bytes of the one-pass
 * definition, whatever the thread count or chunk size; its speed is then the speed of SHA-256 on
 * one core, which is why {@code parreg.device.data.DigestCache} keeps computed digests next to
 * their files.
 *
 * <p>A binary64 partition has a definition of its own: SHA-256 of {@code
 * "parreg-partition-f64/v1"}, d and n as above, then every row's d feature values and its y as
 * binary64 raw bits, little-endian. It is hashed in one pass on the calling thread (binary64 data
 * are the exact solver's, read once).
 */
public final class PartitionDigest {
  static final String PREFIX = "parreg-partition/v1";

  /** The prefix of a binary64 partition's digest. */
  public static final String PREFIX_F64 = "parreg-partition-f64/v1";

  /** Bytes of one chunk of rows (about; at least one row). */
  private static final int CHUNK_BYTES = 2 << 20;

  /**
   * Threads that transpose at most: one SHA-256 stream consumes what about three of them make, and
   * each holds two chunks (float and byte images) in flight.
   */
  private static final int MAX_HELPERS = 4;

  /** Rows transposed at a time inside a chunk: their row-major image stays in the core's cache. */
  private static final int BLOCK_ROWS = 256;

  private PartitionDigest() {}

  /** The digest, hex, computed on {@code threads} threads. */
  public static String sha256(Partition p, int threads) {
    if (p.precision() == Precision.F64) {
      return sha256Binary64(p);
    }
    int rowBytes = 4 * (p.features() + 1);
    return sha256(p, threads, Math.max(1, CHUNK_BYTES / rowBytes));
  }

  /**
   * As {@link #sha256(Partition, int)} with chunks of {@code rowsPerChunk} rows (tests vary it).
   */
  static String sha256(Partition p, int threads, int rowsPerChunk) {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    int n = p.samples();
    int d = p.features();
    rowsPerChunk = Math.min(rowsPerChunk, n);
    md.update(PREFIX.getBytes(StandardCharsets.US_ASCII));
    md.update(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(d).putInt(n).array());
    int chunks = (int) (((long) n + rowsPerChunk - 1) / rowsPerChunk);
    int rowFloats = d + 1;
    if (threads <= 1 || chunks == 1) {
      Chunk c = new Chunk(rowsPerChunk, rowFloats);
      for (int k = 0; k < chunks; k++) {
        md.update(c.bytes, 0, c.fill(p, k, rowsPerChunk));
      }
      return HexFormat.of().formatHex(md.digest());
    }
    // Two sets of chunk buffers: the helpers fill one set while this thread hashes the other.
    int group = Math.max(1, Math.min(MAX_HELPERS, threads - 1));
    Chunk[][] sets = new Chunk[2][group];
    int[][] lengths = new int[2][group];
    for (int s = 0; s < 2; s++) {
      for (int g = 0; g < group; g++) {
        sets[s][g] = new Chunk(rowsPerChunk, rowFloats);
      }
    }
    int rounds = (chunks + group - 1) / group;
    Workers.Pending<RuntimeException> filling =
        fillRound(p, sets[0], lengths[0], 0, group, chunks, rowsPerChunk);
    for (int r = 0; r < rounds; r++) {
      filling.join();
      if (r + 1 < rounds) {
        filling =
            fillRound(
                p, sets[(r + 1) % 2], lengths[(r + 1) % 2], r + 1, group, chunks, rowsPerChunk);
      }
      int inRound = Math.min(group, chunks - r * group);
      for (int g = 0; g < inRound; g++) {
        md.update(sets[r % 2][g].bytes, 0, lengths[r % 2][g]);
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static String sha256Binary64(Partition p) {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    int n = p.samples();
    int d = p.features();
    double[] x = p.featureMajor64();
    double[] y = p.targets64();
    md.update(PREFIX_F64.getBytes(StandardCharsets.US_ASCII));
    md.update(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(d).putInt(n).array());
    int rowsPerChunk = Math.max(1, Math.min(n, CHUNK_BYTES / (8 * (d + 1))));
    ByteBuffer buf = ByteBuffer.allocate(8 * (d + 1) * rowsPerChunk).order(ByteOrder.LITTLE_ENDIAN);
    for (int first = 0; first < n; first += rowsPerChunk) {
      int count = Math.min(rowsPerChunk, n - first);
      buf.clear();
      for (int i = first; i < first + count; i++) {
        for (int j = 0; j < d; j++) {
          buf.putLong(Double.doubleToRawLongBits(x[j * n + i]));
        }
        buf.putLong(Double.doubleToRawLongBits(y[i]));
      }
      md.update(buf.array(), 0, buf.position());
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static Workers.Pending<RuntimeException> fillRound(
      Partition p, Chunk[] set, int[] lengths, int round, int group, int chunks, int rowsPerChunk) {
    int first = round * group;
    int count = Math.min(group, chunks - first);
    return Workers.start(group, count, g -> lengths[g] = set[g].fill(p, first + g, rowsPerChunk));
  }

  /** One chunk's row-major image: floats transposed, then their bytes, little-endian. */
  private static final class Chunk {
    final float[] rows;
    final byte[] bytes;
    final ByteBuffer view;

    Chunk(int rowsPerChunk, int rowFloats) {
      rows = new float[rowsPerChunk * rowFloats];
      bytes = new byte[4 * rows.length];
      view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Fills this chunk with chunk {@code k} of the partition; returns its length in bytes. */
    int fill(Partition p, int k, int rowsPerChunk) {
      int n = p.samples();
      int d = p.features();
      float[] x = p.featureMajor();
      float[] y = p.targets();
      int first = k * rowsPerChunk;
      int count = Math.min(rowsPerChunk, n - first);
      int rf = d + 1;
      for (int b0 = 0; b0 < count; b0 += BLOCK_ROWS) {
        int b1 = Math.min(count, b0 + BLOCK_ROWS);
        for (int j = 0; j < d; j++) {
          int src = j * n + first;
          for (int i = b0; i < b1; i++) {
            rows[i * rf + j] = x[src + i];
          }
        }
        for (int i = b0; i < b1; i++) {
          rows[i * rf + d] = y[first + i];
        }
      }
      // a bulk copy keeps every bit (NaN payloads included: the values are never read as floats)
      view.clear();
      view.asFloatBuffer().put(rows, 0, count * rf);
      return 4 * count * rf;
    }
  }
}
