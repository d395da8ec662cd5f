package parreg.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * A small HTTP/1.1 server for a node's operator endpoint. Requests are read without a thread
 * ({@link NioServer}): a request's head must arrive within {@link Limits#headMillis} of its first
 * byte and a connection may sit idle for {@link Limits#idleMillis}, so half-sent or idle
 * connections cost a socket each, never a handler's thread. Only a complete request goes to the
 * {@link Handler}, on a worker of {@code workers}; the answer is written back without a thread too.
 * Bodyless requests (GET, HEAD) are what it is for: a request body of more than {@link
 * #MAX_BODY_BYTES} bytes, or a chunked one, is refused.
 */
public final class HttpEndpoint extends NioServer {
  /** The largest request head accepted (request line and headers). */
  static final int MAX_HEAD_BYTES = 8192;

  /** The largest request body accepted (read and ignored). */
  static final int MAX_BODY_BYTES = 4096;

  /** Handles one complete request; its {@link Exchange} is closed after it returns. */
  @FunctionalInterface
  public interface Handler {
    void handle(Exchange exchange) throws IOException;
  }

  /**
   * How long a connection may take: {@code headMillis} from a request's first byte to the end of
   * its head, {@code idleMillis} between requests (from the accept or the previous answer), {@code
   * answerMillis} to take in an answer, and how many connections may be open at once.
   */
  public record Limits(long headMillis, long idleMillis, long answerMillis, int maxConnections) {}

  final Handler handler;
  final ExecutorService workers;
  final Limits limits;

  /** Binds {@code address} and starts serving. */
  public HttpEndpoint(
      String threadName,
      InetSocketAddress address,
      Limits limits,
      ExecutorService workers,
      Handler handler)
      throws IOException {
    super(threadName, address, limits.maxConnections());
    this.handler = handler;
    this.workers = workers;
    this.limits = limits;
    start();
  }

  @Override
  protected Connection accepted(SocketChannel channel) throws IOException {
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    return new HttpConnection(this, channel);
  }

  /** Hands {@code task} to the server's thread (for {@link HttpConnection}). */
  void onServerThread(Runnable task) {
    execute(task);
  }

  /**
   * One request and its answer, in the manner of the JDK's {@code HttpExchange}: the handler may
   * add headers, sends the status line with the body's length ({@code -1}: none), then writes the
   * body.
   */
  public static final class Exchange implements AutoCloseable {
    private final String method;
    private final java.net.URI uri;
    private final boolean keepAlive;
    private final List<String[]> headers = new ArrayList<>();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final java.util.function.BiConsumer<byte[], Boolean> answer;
    private int code;
    private boolean noBody;
    private boolean closed;

    Exchange(
        String method,
        java.net.URI uri,
        boolean keepAlive,
        java.util.function.BiConsumer<byte[], Boolean> answer) {
      this.method = method;
      this.uri = uri;
      this.keepAlive = keepAlive;
      this.answer = answer;
    }

    public String getRequestMethod() {
      return method;
    }

    public java.net.URI getRequestURI() {
      return uri;
    }

    /** Adds a header to the answer (before {@link #sendResponseHeaders}). */
    public void addResponseHeader(String name, String value) {
      headers.add(new String[] {name, value});
    }

    /**
     * The answer's status; {@code length} -1 when it has no body, else the body written to {@link
     * #getResponseBody} follows (its length is counted, any other value is only a hint).
     */
    public void sendResponseHeaders(int code, long length) {
      if (this.code != 0) {
        throw new IllegalStateException("headers already sent");
      }
      this.code = code;
      this.noBody = length == -1 || method.equals("HEAD");
    }

    public OutputStream getResponseBody() {
      return body;
    }

    /** Sends the answer (a 500 if the handler sent none). */
    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (code == 0) {
        code = 500;
        noBody = true;
      }
      answer.accept(render(), keepAlive);
    }

    private byte[] render() {
      StringBuilder head =
          new StringBuilder("HTTP/1.1 ")
              .append(code)
              .append(' ')
              .append(reason(code))
              .append("\r\nDate: ")
              .append(
                  DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)))
              .append("\r\n");
      for (String[] h : headers) {
        head.append(h[0]).append(": ").append(h[1]).append("\r\n");
      }
      byte[] content = noBody ? new byte[0] : body.toByteArray();
      if (!method.equals("HEAD")) {
        head.append("Content-Length: ").append(content.length).append("\r\n");
      }
      if (!keepAlive) {
        head.append("Connection: close\r\n");
      }
      byte[] h = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
      byte[] out = java.util.Arrays.copyOf(h, h.length + content.length);
      System.arraycopy(content, 0, out, h.length, content.length);
      return out;
    }

    static String reason(int code) {
      return switch (code) {
        case 200 -> "OK";
        case 400 -> "Bad Request";
        case 404 -> "Not Found";
        case 405 -> "Method Not Allowed";
        case 408 -> "Request Timeout";
        case 413 -> "Content Too Large";
        case 431 -> "Request Header Fields Too Large";
        case 500 -> "Internal Server Error";
        case 501 -> "Not Implemented";
        case 503 -> "Service Unavailable";
        default -> "Status " + code;
      };
    }
  }
}
