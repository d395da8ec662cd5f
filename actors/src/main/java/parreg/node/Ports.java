package parreg.node;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Optional;
import parreg.settings.BadInput;

/** A node's listening ports: checked before anything is written, and bind failures named. */
final class Ports {
  private Ports() {}

  /**
   * Refuses a port that another process is listening on, by binding it for a moment. Ahead of the
   * journal's creation and of the actor system, whose own bind failure would come late and as a
   * long trace.
   *
   * @throws BadInput naming {@code what}, the host and the port
   */
  static void requireFree(String host, int port, String what) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(
          true); // as the listeners do: a closed connection's TIME_WAIT does not count
      s.bind(new InetSocketAddress(host, port));
    } catch (BindException e) {
      throw inUse(host, port, what);
    } catch (IOException | IllegalArgumentException | SecurityException e) {
      throw new BadInput(what + " " + host + ":" + port + " cannot be used: " + e.getMessage());
    }
  }

  /** A bind failure anywhere in {@code failure}'s causes, as the one-line error naming the port. */
  static Optional<BadInput> bindFailure(Throwable failure, String host, int port, String what) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BindException
          || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return Optional.of(inUse(host, port, what));
      }
    }
    return Optional.empty();
  }

  private static BadInput inUse(String host, int port, String what) {
    return new BadInput(
        what + " " + port + " on " + host + " is already in use by another process");
  }
}
