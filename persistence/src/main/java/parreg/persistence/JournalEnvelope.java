package parreg.persistence;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The stored form of every event and snapshot from format version 2 on: what makes a journal
 * verifiable (issue 13 item 5).
 *
 * <pre>
 *   byte    version = 2
 *   int     CRC32C of the version byte and of every byte after this field (big-endian)
 *   long    link: chain hash of the previous event of the persistence id (0 for the first)
 *   ...     the Kryo object, exactly as {@link KryoCodec} writes it after its version byte
 * </pre>
 *
 * <p>The chain hash of a stored payload is the first 8 bytes (big-endian) of SHA-256 over all its
 * bytes (envelope included, of any version), so a changed, deleted or reordered event breaks the
 * link of the one after it. A snapshot's link is the chain hash of the event at its sequence
 * number. Version-1 payloads (journals written before this format) are read as they are, without a
 * checksum or link. Messages between nodes keep version 1: only the journal needs the chain.
 */
public final class JournalEnvelope {

  /** The format version of a checksummed, linked payload. */
  public static final byte VERSION = 2;

  /** The link of a persistence id's first event. */
  public static final long GENESIS = 0L;

  private static final int HEADER = 1 + Integer.BYTES + Long.BYTES;

  private JournalEnvelope() {}

  /** {@code value} in a version-2 envelope linked to {@code link}. */
  public static Chained seal(KryoCodec codec, Object value, long link) {
    byte[] plain = codec.encode(value); // version 1 byte, then the Kryo object
    byte[] payload = new byte[HEADER + plain.length - 1];
    ByteBuffer b = ByteBuffer.wrap(payload);
    b.put(VERSION);
    b.putInt(0);
    b.putLong(link);
    b.put(plain, 1, plain.length - 1);
    b.putInt(1, crc(payload));
    return new Chained(VERSION, value, link, chainHash(payload), payload);
  }

  /**
   * Reads a stored payload of either version, checking a version-2 payload's checksum.
   *
   * @throws KryoCodecException naming what is wrong: checksum, version, truncation, Kryo
   */
  public static Chained open(KryoCodec codec, byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    if (payload.length == 0 || payload[0] != VERSION) {
      return new Chained(
          payload.length == 0 ? 0 : payload[0],
          codec.decode(payload),
          GENESIS,
          chainHash(payload),
          payload);
    }
    long link = checkedLink(payload);
    byte[] plain = new byte[payload.length - HEADER + 1];
    plain[0] = KryoCodec.FORMAT_VERSION;
    System.arraycopy(payload, HEADER, plain, 1, payload.length - HEADER);
    return new Chained(VERSION, codec.decode(plain), link, chainHash(payload), payload);
  }

  /**
   * The envelope of a stored payload without decoding its object: a version-2 payload's checksum is
   * checked, a version-1 payload is taken as it is ({@code value} is null in both).
   *
   * @throws KryoCodecException when a version-2 payload's checksum does not match
   */
  public static Chained check(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    if (payload.length == 0 || payload[0] != VERSION) {
      return new Chained(
          payload.length == 0 ? 0 : payload[0], null, GENESIS, chainHash(payload), payload);
    }
    long link = checkedLink(payload);
    return new Chained(VERSION, null, link, chainHash(payload), payload);
  }

  private static long checkedLink(byte[] payload) {
    if (payload.length <= HEADER) {
      throw new KryoCodecException(
          "truncated payload: "
              + payload.length
              + " bytes, the version-2 header alone has "
              + HEADER);
    }
    ByteBuffer b = ByteBuffer.wrap(payload);
    int stored = b.getInt(1);
    int computed = crc(payload);
    if (stored != computed) {
      throw new KryoCodecException(
          String.format(
              "checksum mismatch: stored CRC32C %08x, computed %08x over the %d payload bytes",
              stored, computed, payload.length));
    }
    return b.getLong(1 + Integer.BYTES);
  }

  /** The chain hash of a stored payload (see the class comment). */
  public static long chainHash(byte[] payload) {
    try {
      return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(payload)).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  private static int crc(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload, 0, 1);
    crc.update(payload, 1 + Integer.BYTES, payload.length - 1 - Integer.BYTES);
    return (int) crc.getValue();
  }
}
