package parreg.persistence;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Just enough of the PostgreSQL wire protocol (version 3) to see which password a client sends: it
 * refuses SSL and GSS encryption, asks for the password in clear text
 * (AuthenticationCleartextPassword), records it, and answers "password authentication failed". The
 * server at 127.0.0.1:5432 trusts every local connection and never asks for one, so it cannot tell
 * whether a password arrives.
 */
final class FakePasswordServer implements AutoCloseable {
  private static final int SSL_REQUEST = 80877103;
  private static final int GSSENC_REQUEST = 80877104;

  private final ServerSocket socket;
  private final Thread acceptor;
  private final List<String> passwords = new CopyOnWriteArrayList<>();

  FakePasswordServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::serve, "fake-postgres");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return socket.getLocalPort();
  }

  /** {@code jdbc:postgresql://127.0.0.1:PORT/DB}. */
  String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /** The passwords received, in order. */
  List<String> passwords() {
    return List.copyOf(passwords);
  }

  private void serve() {
    while (!socket.isClosed()) {
      try (Socket s = socket.accept()) {
        s.setSoTimeout(10_000);
        session(new DataInputStream(s.getInputStream()), new DataOutputStream(s.getOutputStream()));
      } catch (IOException e) {
        // the client went away, or the server is closed
      }
    }
  }

  private void session(DataInputStream in, DataOutputStream out) throws IOException {
    while (true) {
      int length = in.readInt();
      byte[] body = new byte[length - 4];
      in.readFully(body);
      int code =
          ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | body[3];
      if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
        out.writeByte('N');
        out.flush();
        continue;
      }
      break; // the startup message
    }
    out.writeByte('R');
    out.writeInt(8);
    out.writeInt(3); // cleartext password
    out.flush();
    if (in.readByte() != 'p') {
      return;
    }
    byte[] body = new byte[in.readInt() - 4];
    in.readFully(body);
    int end = body.length > 0 && body[body.length - 1] == 0 ? body.length - 1 : body.length;
    passwords.add(new String(body, 0, end, StandardCharsets.UTF_8));
    byte[] fields =
        ("SFATAL\0C28P01\0Mpassword authentication failed for user \"postgres\"\0\0")
            .getBytes(StandardCharsets.UTF_8);
    out.writeByte('E');
    out.writeInt(4 + fields.length);
    out.write(fields);
    out.flush();
  }

  @Override
  public void close() throws Exception {
    socket.close();
    acceptor.join(5_000);
  }
}
