package parreg.net;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;

/**
 * One client of an {@link HttpEndpoint}: reads a request (head and a small body) without a thread,
 * hands the complete request to a worker, writes the answer, then reads the next request on the
 * same connection unless either side asked to close. While it waits for a request it may be evicted
 * to make room for a newer client; while a worker handles its request or its answer is being
 * written it may not.
 */
final class HttpConnection extends NioServer.Connection {
  private final HttpEndpoint endpoint;
  private final SocketChannel channel;
  private final SelectionKey key;
  private final ByteBuffer in = ByteBuffer.allocate(HttpEndpoint.MAX_HEAD_BYTES);
  private ByteBuffer out;
  private boolean closeAfterAnswer;
  private boolean midRequest; // a byte of the next request has arrived

  HttpConnection(HttpEndpoint endpoint, SocketChannel channel) throws IOException {
    super(endpoint);
    this.endpoint = endpoint;
    this.channel = channel;
    deadlineIn(endpoint.limits.idleMillis());
    key = register(channel, SelectionKey.OP_READ);
  }

  @Override
  protected void ready(SelectionKey k) throws IOException {
    if (k.isReadable()) {
      if (channel.read(in) < 0) {
        close();
        return;
      }
      request();
    } else if (k.isWritable()) {
      write();
    }
  }

  /** Takes the next request from the bytes read, when it is complete. */
  private void request() {
    int end = in.position();
    if (end == 0) {
      return;
    }
    if (!midRequest) {
      midRequest = true;
      deadlineIn(endpoint.limits.headMillis());
    }
    int headBytes = RequestHead.find(in, end);
    if (headBytes < 0) {
      if (!in.hasRemaining()) {
        refuse(431, "request head larger than " + HttpEndpoint.MAX_HEAD_BYTES + " bytes");
      }
      return;
    }
    RequestHead head;
    try {
      head = RequestHead.parse(in, headBytes);
    } catch (RequestHead.Malformed e) {
      refuse(400, e.getMessage());
      return;
    }
    if (head.chunked()) {
      refuse(501, "chunked request bodies are not accepted");
      return;
    }
    if (head.contentLength() > HttpEndpoint.MAX_BODY_BYTES) {
      refuse(413, "request body larger than " + HttpEndpoint.MAX_BODY_BYTES + " bytes");
      return;
    }
    int whole = headBytes + head.contentLength();
    if (end < whole) {
      return; // the body is still coming; the head's deadline covers it
    }
    in.flip().position(whole);
    in.compact(); // what follows is the next request's (pipelined)
    midRequest = false;
    evictable = false;
    deadline = Long.MAX_VALUE;
    key.interestOps(0);
    closeAfterAnswer = !head.keepAlive();
    HttpEndpoint.Exchange ex =
        new HttpEndpoint.Exchange(
            head.method(),
            head.uri(),
            head.keepAlive(),
            (bytes, keepAlive) -> endpoint.onServerThread(() -> answer(bytes)));
    try {
      endpoint.workers.execute(
          () -> {
            try (ex) {
              endpoint.handler.handle(ex);
            } catch (IOException | RuntimeException e) {
              // the exchange answers 500 when the handler sent nothing
            }
          });
    } catch (RejectedExecutionException e) {
      close(); // the endpoint is closing
    }
  }

  /** On the server's thread: the answer is ready. */
  private void answer(byte[] bytes) {
    if (isClosed()) {
      return;
    }
    out = ByteBuffer.wrap(bytes);
    deadlineIn(endpoint.limits.answerMillis());
    try {
      write();
    } catch (IOException e) {
      close();
    }
  }

  private void write() throws IOException {
    channel.write(out);
    if (out.hasRemaining()) {
      key.interestOps(SelectionKey.OP_WRITE);
      return;
    }
    out = null;
    if (closeAfterAnswer) {
      close();
      return;
    }
    evictable = true;
    deadlineIn(endpoint.limits.idleMillis());
    key.interestOps(SelectionKey.OP_READ);
    request();
  }

  /** Answers a request that will not be handled, then closes. */
  private void refuse(int code, String why) {
    byte[] body = ("{\n  \"error\" : \"" + why + "\"\n}").getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + code
            + " "
            + HttpEndpoint.Exchange.reason(code)
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = java.util.Arrays.copyOf(h, h.length + body.length);
    System.arraycopy(body, 0, all, h.length, body.length);
    evictable = false;
    closeAfterAnswer = true;
    key.interestOps(0);
    answer(all);
  }

  @Override
  protected void closeChannels() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closing a failed connection: nothing more to do
    }
  }
}
