package parreg.net;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The head of an HTTP/1.x request (request line and headers) as {@link HttpConnection} needs it:
 * method, target, whether the connection stays open, the body's length.
 *
 * @param bytes the head's length in bytes, its final blank line included
 */
record RequestHead(
    String method, URI uri, boolean keepAlive, int contentLength, boolean chunked, int bytes) {

  /** The head is not HTTP/1.x; the message is the answer's reason. */
  static final class Malformed extends Exception {
    Malformed(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * The length of the head at the start of {@code buf}'s bytes {@code [0, end)}, its blank line
   * included ({@code \r\n\r\n}, or bare {@code \n\n}); -1 while it is incomplete.
   */
  static int find(ByteBuffer buf, int end) {
    for (int i = 0; i < end; i++) {
      if (buf.get(i) == '\n') {
        if (i + 1 < end && buf.get(i + 1) == '\n') {
          return i + 2;
        }
        if (i + 2 < end && buf.get(i + 1) == '\r' && buf.get(i + 2) == '\n') {
          return i + 3;
        }
      }
    }
    return -1;
  }

  /** Parses the head of {@code length} bytes at the start of {@code buf}. */
  static RequestHead parse(ByteBuffer buf, int length) throws Malformed {
    byte[] raw = new byte[length];
    buf.get(0, raw);
    String[] lines = new String(raw, StandardCharsets.ISO_8859_1).split("\r?\n");
    String[] request = lines[0].split(" ");
    if (request.length != 3 || !request[2].startsWith("HTTP/1.")) {
      throw new Malformed("not an HTTP/1.x request line");
    }
    URI uri;
    try {
      uri = new URI(request[1]);
    } catch (URISyntaxException e) {
      throw new Malformed("bad request target");
    }
    if (uri.getPath() == null) {
      throw new Malformed("bad request target");
    }
    boolean http10 = request[2].equals("HTTP/1.0");
    boolean keepAlive = !http10;
    int contentLength = 0;
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon <= 0) {
        if (lines[i].isEmpty()) {
          continue;
        }
        throw new Malformed("bad header line");
      }
      String name = lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).strip().toLowerCase(Locale.ROOT);
      switch (name) {
        case "connection" -> {
          if (value.contains("close")) {
            keepAlive = false;
          } else if (value.contains("keep-alive")) {
            keepAlive = true;
          }
        }
        case "content-length" -> {
          try {
            contentLength = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            throw new Malformed("bad Content-Length");
          }
          if (contentLength < 0) {
            throw new Malformed("bad Content-Length");
          }
        }
        case "transfer-encoding" -> chunked |= value.contains("chunked");
        default -> {
          // not needed to answer
        }
      }
    }
    return new RequestHead(request[0], uri, keepAlive, contentLength, chunked, length);
  }
}
