package parreg.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * A listening socket and its connections, served by one thread over one selector: no connection
 * holds a thread while it waits for bytes, so a client that sends half of what it should costs a
 * socket and a buffer, not the service. Each connection may carry a deadline (checked every {@link
 * #SWEEP_MILLIS} ms), and at most {@code maxConnections} are open: a new one makes room by closing
 * the oldest that is {@linkplain Connection#evictable evictable} (a client still sending its first
 * bytes, or idle), else it is closed at once.
 *
 * <p>Subclasses create a {@link Connection} for each accepted channel ({@link #accepted}); all of a
 * connection's methods run on the server's thread, and so does what {@link #execute} is given.
 */
public abstract class NioServer implements AutoCloseable {
  /** How often deadlines are checked: the granularity of every timeout. */
  static final long SWEEP_MILLIS = 100;

  private final Selector selector;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NioServer.class);

  private final ServerSocketChannel server;
  private final SelectionKey acceptKey;
  private final InetSocketAddress address;
  private final Thread thread;
  private final int maxConnections;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  // accept order, so that the first evictable one is the oldest; touched on the server's thread
  // only
  private final LinkedHashSet<Connection> connections = new LinkedHashSet<>();
  private volatile boolean closed;

  /**
   * Binds {@code address} (so that a port in use fails here, as a {@link java.net.BindException});
   * serving starts with {@link #start}.
   */
  protected NioServer(String threadName, InetSocketAddress address, int maxConnections)
      throws IOException {
    this.maxConnections = maxConnections;
    selector = Selector.open();
    try {
      server = ServerSocketChannel.open();
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(address, 256);
      server.configureBlocking(false);
      acceptKey = server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException | RuntimeException e) {
      selector.close();
      throw e;
    }
    this.address = (InetSocketAddress) server.getLocalAddress();
    thread = new Thread(this::loop, threadName);
    thread.setDaemon(true);
  }

  /** Starts serving; called once the subclass is ready to accept. */
  protected final void start() {
    thread.start();
  }

  /** The address as bound (the port chosen when 0 was asked for). */
  public final InetSocketAddress address() {
    return address;
  }

  /**
   * A connection for a newly accepted channel (non-blocking already). It registers its channels
   * with {@link Connection#register}.
   */
  protected abstract Connection accepted(SocketChannel channel) throws IOException;

  /** Runs {@code task} on the server's thread, soon. */
  protected final void execute(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  /** Open connections (on the server's thread). */
  protected final int connectionCount() {
    return connections.size();
  }

  private void loop() {
    long nextSweep = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SWEEP_MILLIS);
    try {
      while (!closed) {
        long wait = TimeUnit.NANOSECONDS.toMillis(nextSweep - System.nanoTime());
        if (wait > 0) {
          selector.select(wait);
        } else {
          selector.selectNow();
        }
        for (Runnable t; (t = tasks.poll()) != null; ) {
          try {
            t.run();
          } catch (RuntimeException e) {
            LOG.error("{}: a task failed", thread.getName(), e);
          }
        }
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
          SelectionKey key = it.next();
          it.remove();
          if (key == acceptKey) {
            acceptAll();
          } else if (key.attachment() instanceof Connection c) {
            dispatch(c, key);
          }
        }
        long now = System.nanoTime();
        if (now - nextSweep >= 0) {
          nextSweep = now + TimeUnit.MILLISECONDS.toNanos(SWEEP_MILLIS);
          if (acceptKey.interestOps() == 0) {
            acceptKey.interestOps(SelectionKey.OP_ACCEPT); // accepting again after a failure
          }
          for (Connection c : new ArrayList<>(connections)) {
            if (c.deadline != Long.MAX_VALUE && now - c.deadline >= 0) {
              c.expired();
              c.close();
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      if (!closed) {
        LOG.error("{} stopped", thread.getName(), e);
      }
    } finally {
      for (Connection c : new ArrayList<>(connections)) {
        c.close();
      }
      try {
        server.close();
        selector.close();
      } catch (IOException ignored) {
        // closing: nothing more to do with them
      }
    }
  }

  private void acceptAll() throws IOException {
    while (true) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (IOException e) {
        // out of file descriptors, most likely: pause accepting until the next sweep rather than
        // spin on a listening socket that stays ready
        acceptKey.interestOps(0);
        LOG.warn(
            "{}: cannot accept a connection ({}); pausing accepts", thread.getName(), e.toString());
        return;
      }
      if (ch == null) {
        return;
      }
      if (connections.size() >= maxConnections && !evictOne()) {
        ch.close();
        continue;
      }
      Connection c;
      try {
        ch.configureBlocking(false);
        c = accepted(ch);
      } catch (IOException | RuntimeException e) {
        ch.close();
        continue;
      }
      connections.add(c);
    }
  }

  private boolean evictOne() {
    for (Connection c : connections) {
      if (c.evictable) {
        c.evicted();
        c.close();
        return true;
      }
    }
    return false;
  }

  private static void dispatch(Connection c, SelectionKey key) {
    if (c.closed) {
      return;
    }
    try {
      if (key.isValid()) {
        c.ready(key);
      }
    } catch (IOException | CancelledKeyException e) {
      c.failed(e);
      c.close();
    } catch (RuntimeException e) {
      // a bug in one connection's handling must not end the server for every other
      LOG.error("a connection failed", e);
      c.close();
    }
  }

  /** Stops serving and closes every connection; returns once the server's thread has ended. */
  @Override
  public void close() {
    closed = true;
    selector.wakeup();
    if (thread.isAlive() && Thread.currentThread() != thread) {
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } else if (!thread.isAlive()) {
      try {
        server.close();
        selector.close();
      } catch (IOException ignored) {
        // never started: nothing else is open
      }
    }
  }

  /** One accepted client and whatever it needs (a second channel, buffers). */
  public abstract static class Connection {
    private final NioServer server;
    private boolean closed;

    protected Connection(NioServer server) {
      this.server = server;
    }

    /**
     * Registers one of its channels with the server's selector; readiness comes to {@link #ready}.
     */
    protected final SelectionKey register(SelectableChannel channel, int ops) throws IOException {
      return channel.register(server.selector, ops, this);
    }

    /** When {@link System#nanoTime} reaches it, the connection is closed; MAX_VALUE: never. */
    protected long deadline = Long.MAX_VALUE;

    /** May be closed to make room for a new connection when the server is full. */
    protected boolean evictable = true;

    /** One of its channels is ready for what it registered for. */
    protected abstract void ready(SelectionKey key) throws IOException;

    /** Closes its channels (once). */
    protected abstract void closeChannels();

    /** Told before the close when the deadline passed. */
    protected void expired() {}

    /** Told before the close when a newer connection took its place. */
    protected void evicted() {}

    /** Told before the close when reading or writing failed. */
    protected void failed(Exception e) {}

    /** Sets the deadline {@code millis} from now. */
    protected final void deadlineIn(long millis) {
      deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    protected final boolean isClosed() {
      return closed;
    }

    /** Closes it and forgets it (on the server's thread). */
    protected final void close() {
      if (closed) {
        return;
      }
      closed = true;
      closeChannels();
      server.connections.remove(this);
    }
  }
}
