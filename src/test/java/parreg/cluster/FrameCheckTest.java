package parreg.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Artery's TCP framing as {@link FrameCheck} reads it: every split of a valid stream is accepted
 * and {@link FrameCheck#valid} never covers an incomplete frame length; a bad magic, stream id or
 * frame length (negative, zero, above the stream's maximum) is refused at its last byte.
 */
class FrameCheckTest {
  static final List<byte[]> MAGICS =
      List.of(
          "AKKA".getBytes(StandardCharsets.US_ASCII), "PEKK".getBytes(StandardCharsets.US_ASCII));

  static FrameCheck check() {
    return new FrameCheck(MAGICS, 1000, 5000);
  }

  static byte[] header(String magic, int stream) {
    byte[] m = magic.getBytes(StandardCharsets.US_ASCII);
    return new byte[] {m[0], m[1], m[2], m[3], (byte) stream};
  }

  static byte[] frame(int length, int payloadBytes) {
    ByteBuffer b = ByteBuffer.allocate(4 + payloadBytes).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(length);
    for (int i = 0; i < payloadBytes; i++) {
      b.put((byte) (i * 7));
    }
    return b.array();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static void feed(FrameCheck c, byte[] bytes, int from, int to) throws FrameCheck.Invalid {
    c.scan(ByteBuffer.wrap(bytes), from, to);
  }

  @Test
  void everySplitOfAValidStreamIsAcceptedAndOnlyWholeLengthsPass() throws Exception {
    byte[] stream =
        concat(header("AKKA", 2), frame(3, 3), frame(1000, 1000), frame(1, 1), frame(40, 40));
    // where each frame's length field starts: valid() may never stop inside one
    int[] lengthStarts = {5, 12, 1016, 1021};
    for (int split = 0; split <= stream.length; split++) {
      FrameCheck c = check();
      feed(c, stream, 0, split);
      long v = c.valid();
      assertTrue(v <= split, "valid " + v + " beyond the bytes fed, split " + split);
      for (int s : lengthStarts) {
        assertFalse(v > s && v < s + 4, "valid " + v + " inside a length field, split " + split);
      }
      feed(c, stream, split, stream.length);
      assertEquals(stream.length, c.valid(), "split " + split);
      assertEquals(stream.length, c.scanned());
      assertEquals(4, c.frames());
    }
  }

  @Test
  void oneByteAtATime() throws Exception {
    byte[] stream = concat(header("PEKK", 1), frame(2, 2), frame(5, 5));
    FrameCheck c = check();
    for (int i = 0; i < stream.length; i++) {
      feed(c, stream, i, i + 1);
    }
    assertEquals(stream.length, c.valid());
    assertEquals(2, c.frames());
  }

  @Test
  void theNineBytesThatLoopPekkoAreRefused() {
    byte[] packet = concat(header("AKKA", 2), frame(-16, 0));
    FrameCheck c = check();
    FrameCheck.Invalid e = assertThrows(FrameCheck.Invalid.class, () -> feed(c, packet, 0, 9));
    assertTrue(e.getMessage().contains("length -16 is outside 1..1000"), e.getMessage());
    assertEquals(5, c.valid(), "the header only: not a byte of the length passes");
  }

  @Test
  void zeroAndTooLongLengthsAreRefused() throws Exception {
    assertThrows(
        FrameCheck.Invalid.class,
        () -> feed(check(), concat(header("AKKA", 2), frame(0, 0)), 0, 9));
    assertThrows(
        FrameCheck.Invalid.class,
        () -> feed(check(), concat(header("AKKA", 2), frame(1001, 0)), 0, 9));
    assertThrows(
        FrameCheck.Invalid.class,
        () -> feed(check(), concat(header("AKKA", 2), frame(Integer.MIN_VALUE, 0)), 0, 9));
    // the large-message stream has its own maximum
    FrameCheck large = check();
    feed(large, concat(header("AKKA", 3), frame(5000, 0)), 0, 9);
    assertEquals(9, large.valid());
    assertThrows(
        FrameCheck.Invalid.class,
        () -> feed(check(), concat(header("AKKA", 3), frame(5001, 0)), 0, 9));
  }

  @Test
  void aSecondBadFrameAfterGoodOnesIsRefused() throws Exception {
    byte[] stream = concat(header("AKKA", 2), frame(4, 4), frame(-1, 0));
    FrameCheck c = check();
    FrameCheck.Invalid e =
        assertThrows(FrameCheck.Invalid.class, () -> feed(c, stream, 0, stream.length));
    assertTrue(e.getMessage().startsWith("frame 2:"), e.getMessage());
    assertEquals(13, c.valid(), "the good frame passes, the bad length does not");
  }

  @Test
  void badMagicOrStreamIdIsRefused() {
    byte[] http = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
    FrameCheck c = check();
    FrameCheck.Invalid e = assertThrows(FrameCheck.Invalid.class, () -> feed(c, http, 0, 16));
    assertTrue(e.getMessage().contains("47 45 54 20 2f"), e.getMessage());
    assertEquals(0, c.valid());
    for (int id : new int[] {0, 4, -1, 'A'}) {
      assertThrows(
          FrameCheck.Invalid.class, () -> feed(check(), header("AKKA", id), 0, 5), "stream " + id);
    }
  }
}
