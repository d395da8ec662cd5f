package parreg.cluster;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;

/**
 * The framing of one inbound Artery TCP connection, checked as its bytes arrive: a connection
 * header (a 4-byte magic, {@code AKKA} or {@code PEKK} by default, and a stream id: 1 control, 2
 * ordinary, 3 large), then frames, each a 4-byte little-endian length and that many bytes. A length
 * that is not positive or exceeds the stream's maximum frame size ends the connection: Pekko 1.7.0
 * reads a negative one and steps back over it for ever (STACK.md, "Traps").
 *
 * <p>{@link #scan} is fed every byte once, in order; {@link #valid} is how many of them belong to a
 * checked header, a checked frame length or the payload after one: those may be passed on. The
 * bytes of a length still incomplete are not.
 */
final class FrameCheck {
  /** The bytes are not Artery's TCP framing; the message says where and why. */
  static final class Invalid extends Exception {
    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  static final int CONTROL_STREAM = 1;
  static final int ORDINARY_STREAM = 2;
  static final int LARGE_STREAM = 3;

  private static final int HEADER = 0;
  private static final int LENGTH = 1;
  private static final int PAYLOAD = 2;

  private final List<byte[]> magics;
  private final int maxFrame;
  private final int maxLargeFrame;
  private final byte[] header = new byte[5];
  private int phase = HEADER;
  private int have; // bytes of the header or of the length read so far
  private int length;
  private int streamLimit;
  private long payloadLeft;
  private long scanned;
  private long valid;
  private long frames;

  /**
   * @param magics the accepted 4-byte magics ({@code pekko.remote.artery.advanced.tcp-magic})
   * @param maxFrame the largest frame of the control and ordinary streams ({@code
   *     advanced.maximum-frame-size})
   * @param maxLargeFrame the largest frame of the large-message stream ({@code
   *     advanced.maximum-large-frame-size})
   */
  FrameCheck(List<byte[]> magics, int maxFrame, int maxLargeFrame) {
    for (byte[] m : magics) {
      if (m.length != 4) {
        throw new IllegalArgumentException("an Artery magic has 4 bytes: " + m.length);
      }
    }
    this.magics = List.copyOf(magics);
    this.maxFrame = maxFrame;
    this.maxLargeFrame = maxLargeFrame;
  }

  /**
   * Checks {@code buf}'s bytes at indices {@code from} (inclusive) to {@code to} (exclusive), the
   * next bytes of the connection; the buffer's position and limit are left alone.
   *
   * @throws Invalid at the first byte that breaks the framing; the connection must end
   */
  void scan(ByteBuffer buf, int from, int to) throws Invalid {
    int i = from;
    while (i < to) {
      switch (phase) {
        case HEADER -> {
          header[have++] = buf.get(i++);
          if (have == header.length) {
            checkHeader();
            phase = LENGTH;
            have = 0;
            valid = scanned + (i - from);
          }
        }
        case LENGTH -> {
          length |= (buf.get(i++) & 0xFF) << (8 * have++);
          if (have == 4) {
            if (length <= 0 || length > streamLimit) {
              throw new Invalid(
                  "frame "
                      + (frames + 1)
                      + ": length "
                      + length
                      + " is outside 1.."
                      + streamLimit
                      + " (stream "
                      + header[4]
                      + ")");
            }
            payloadLeft = length;
            length = 0;
            have = 0;
            phase = PAYLOAD;
            valid = scanned + (i - from);
          }
        }
        default -> {
          int n = (int) Math.min(payloadLeft, to - i);
          i += n;
          payloadLeft -= n;
          valid = scanned + (i - from);
          if (payloadLeft == 0) {
            frames++;
            phase = LENGTH;
          }
        }
      }
    }
    scanned += to - from;
  }

  private void checkHeader() throws Invalid {
    boolean known = false;
    for (byte[] m : magics) {
      known |= m[0] == header[0] && m[1] == header[1] && m[2] == header[2] && m[3] == header[3];
    }
    if (!known) {
      throw new Invalid(
          "connection header "
              + HexFormat.ofDelimiter(" ").formatHex(header)
              + " does not start with an Artery magic");
    }
    streamLimit =
        switch (header[4]) {
          case CONTROL_STREAM, ORDINARY_STREAM -> maxFrame;
          case LARGE_STREAM -> maxLargeFrame;
          default ->
              throw new Invalid(
                  "connection header "
                      + HexFormat.ofDelimiter(" ").formatHex(header)
                      + ": stream id "
                      + header[4]
                      + " is not 1, 2 or 3");
        };
  }

  /** How many bytes of the connection have been checked (every byte fed to {@link #scan}). */
  long scanned() {
    return scanned;
  }

  /** How many bytes from the connection's start may be passed on. */
  long valid() {
    return valid;
  }

  /** Whether the connection header has been read and accepted. */
  boolean headerAccepted() {
    return valid > 0;
  }

  /** Frames received whole. */
  long frames() {
    return frames;
  }
}
