package parreg.cluster;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import parreg.net.NioServer;

/**
 * One connection through the {@link FramingGuard}: a client of the cluster port and, once its
 * connection header is accepted, a connection to Artery's internal port. Bytes from the client are
 * checked ({@link FrameCheck}) and passed on up to the last checked one; Artery's answers (it sends
 * none on an inbound connection, but the guard does not rely on that) go back unchanged. Either
 * side closing ends both, after what was checked has been passed on. Reads stop while the other
 * side cannot take more (back-pressure, no unbounded buffering).
 */
final class GuardedLink extends NioServer.Connection {
  private final FramingGuard guard;
  private final SocketChannel client;
  private final String from;
  private final FrameCheck check;
  private final long firstFrameMillis;
  private final ByteBuffer in; // client -> Artery: the bytes not yet passed on, at [0, position)
  private final ByteBuffer back; // Artery -> client, at [0, position)
  private final SelectionKey clientKey;
  private SocketChannel upstream;
  private SelectionKey upstreamKey;
  private boolean connected;
  private boolean clientDone;
  private boolean upstreamDone;
  private long passed; // bytes of the client's stream written to Artery

  GuardedLink(
      FramingGuard guard,
      SocketChannel client,
      FrameCheck check,
      int bufferBytes,
      long firstFrameMs)
      throws IOException {
    super(guard);
    this.guard = guard;
    this.client = client;
    this.from = String.valueOf(client.getRemoteAddress());
    this.check = check;
    this.firstFrameMillis = firstFrameMs;
    this.in = ByteBuffer.allocateDirect(bufferBytes);
    this.back = ByteBuffer.allocateDirect(4096);
    // until its first whole frame a connection is a stranger's socket: bounded in time, and the
    // first to go when the guard is full
    deadlineIn(firstFrameMs);
    clientKey = register(client, SelectionKey.OP_READ);
  }

  @Override
  protected void ready(SelectionKey key) throws IOException {
    if (key == upstreamKey) {
      if (key.isConnectable() && upstream.finishConnect()) {
        connected = true;
      }
      if (key.isValid() && key.isReadable()) {
        readUpstream();
      }
    } else if (key.isReadable()) {
      if (!readClient()) {
        return;
      }
    }
    flush();
    boolean clientFinished = clientDone && (upstream == null || (connected && pending() == 0));
    if (clientFinished || (upstreamDone && back.position() == 0)) {
      close();
      return;
    }
    interest();
  }

  /** False when the link was closed for bad framing. */
  private boolean readClient() throws IOException {
    int start = in.position();
    int n = client.read(in);
    if (n < 0) {
      clientDone = true;
      return true;
    }
    try {
      check.scan(in, start, in.position());
    } catch (FrameCheck.Invalid e) {
      guard.refused(from, e.getMessage());
      close();
      return false;
    }
    if (evictable && check.frames() > 0) {
      evictable = false; // a peer's connection now: it stays as long as the peer keeps it
      deadline = Long.MAX_VALUE;
    }
    if (upstream == null && check.headerAccepted()) {
      upstream = SocketChannel.open();
      upstream.configureBlocking(false);
      upstream.setOption(StandardSocketOptions.TCP_NODELAY, true);
      connected = upstream.connect(guard.artery());
      upstreamKey = register(upstream, connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
    }
    return true;
  }

  private void readUpstream() throws IOException {
    if (upstream.read(back) < 0) {
      upstreamDone = true;
    }
  }

  /** Checked bytes not yet written to Artery. */
  private int pending() {
    return (int) (check.valid() - passed);
  }

  private void flush() throws IOException {
    int n = pending();
    if (connected && n > 0) {
      int end = in.position();
      in.flip().limit(n);
      passed += upstream.write(in);
      in.limit(end);
      in.compact();
    }
    if (back.position() > 0) {
      back.flip();
      client.write(back);
      back.compact();
    }
  }

  private void interest() {
    int c = 0;
    if (!clientDone && in.hasRemaining()) {
      c |= SelectionKey.OP_READ;
    }
    if (back.position() > 0) {
      c |= SelectionKey.OP_WRITE;
    }
    if (clientKey.interestOps() != c) {
      clientKey.interestOps(c);
    }
    if (upstreamKey != null) {
      int u;
      if (!connected) {
        u = SelectionKey.OP_CONNECT;
      } else {
        u = 0;
        if (!upstreamDone && back.hasRemaining()) {
          u |= SelectionKey.OP_READ;
        }
        if (pending() > 0) {
          u |= SelectionKey.OP_WRITE;
        }
      }
      if (upstreamKey.interestOps() != u) {
        upstreamKey.interestOps(u);
      }
    }
  }

  @Override
  protected void expired() {
    guard.refused(
        from,
        check.headerAccepted()
            ? "no whole frame within " + firstFrameMillis + " ms of connecting"
            : "no connection header within " + firstFrameMillis + " ms of connecting");
  }

  @Override
  protected void evicted() {
    guard.refused(from, "the guard is full, and this connection had sent no whole frame yet");
  }

  @Override
  protected void closeChannels() {
    closeQuietly(client);
    if (upstream != null) {
      closeQuietly(upstream);
    }
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // closing a socket that failed: nothing to do
    }
  }
}
