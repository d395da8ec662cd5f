package parreg.node;

import java.util.List;
import java.util.concurrent.TimeUnit;
import parreg.settings.NodeLifecycle;

/**
 * A node's process runs one actor system at a time: an incarnation of the node. An incarnation
 * removed from the cluster (its peers downed and quarantined it, say after a pause of this process
 * longer than their downing limit: parreg.cluster.Membership) can never take part again, so it is
 * replaced by a new one in the same process ({@code parreg.cluster.on-removal = rejoin}, the
 * default), started exactly as a restart starts: the journal inspected and replayed, the cluster
 * joined under the same address with a new UID, the steps it lacks served by its peers. With {@code
 * on-removal = exit}, or when the removed incarnation does not stop in time, the process ends
 * instead with exit code 4 and one line saying that the same command resumes from the journal, so
 * that a supervisor restarts it.
 *
 * <p>One writer per journal, one holder per participant id: a new incarnation starts only after the
 * old one's actor system has terminated (its actors stopped, the journal plugin's connections and
 * the step log closed) and the journal connection of its start is closed, so nothing of the old one
 * can write; and its peers have removed the old one, so the new one (same address, new UID) is
 * admitted as a restarted node is (parreg.cluster.ParticipantClaims).
 *
 * <p>The process's SIGTERM/SIGINT handlers and its shutdown hook act on the current incarnation; a
 * stop asked for between two incarnations ends the process instead of starting the next.
 */
final class Incarnations {
  /**
   * How an incarnation ended: its outcome, whether its actor system stopped in time, and whether
   * the configuration answers a removal with a rejoin.
   */
  record Ended(NodeLifecycle.Outcome outcome, boolean stopped, boolean rejoin) {}

  /** Runs one incarnation from its start to its end. */
  @FunctionalInterface
  interface Incarnation {
    /**
     * @param rejoins how many incarnations before this one were removed (0: the first)
     * @param lastRemoval why the one before was removed (null for the first)
     */
    Ended run(int rejoins, String lastRemoval) throws Exception;
  }

  private ParregNode.Handle current; // guarded by this
  private String stopRequest; // guarded by this
  private boolean signalsHandled; // guarded by this

  /**
   * Runs incarnations until one ends otherwise than by a removal that is answered with a rejoin.
   */
  NodeLifecycle.Outcome run(Incarnation incarnation) throws Exception {
    installShutdownHook();
    String lastRemoval = null;
    for (int rejoins = 0; ; rejoins++) {
      Ended e = incarnation.run(rejoins, lastRemoval);
      NodeLifecycle.Outcome o = e.outcome();
      if (o.exitCode() != NodeLifecycle.REMOVED) {
        return o;
      }
      synchronized (this) {
        if (stopRequest != null) {
          return new NodeLifecycle.Outcome(0, stopRequest);
        }
      }
      if (!e.rejoin() || !e.stopped()) {
        return new NodeLifecycle.Outcome(
            NodeLifecycle.REMOVED,
            "this node was removed from the cluster: "
                + o.message()
                + (e.stopped()
                    ? ""
                    : "; its actor system did not stop within 15 s, so it does not rejoin in this"
                        + " process")
                + "; start it again with the same command: it resumes from its journal");
      }
      lastRemoval = o.message();
    }
  }

  /** The incarnation now serving; a stop asked for while none was is applied to it at once. */
  synchronized void started(ParregNode.Handle node) {
    if (!signalsHandled) {
      // from the first start on: until then the JVM's default ends a start that hangs
      installSignalHandlers();
      signalsHandled = true;
    }
    current = node;
    if (stopRequest != null) {
      node.lifecycle().stop(stopRequest);
    }
  }

  /** The current incarnation is ending: signals until the next apply to none. */
  synchronized void ended() {
    current = null;
  }

  /**
   * SIGTERM (kill, systemd, docker stop) and SIGINT (Ctrl-C) ask the node to stop: it starts no
   * more steps, writes what it committed (the journal runs behind the step), then ends like a
   * finished run, leaving the cluster and closing its journal, and exits 0. (The JVM's default
   * would run the shutdown hooks and exit 143 or 130.) The same command resumes the run exactly
   * there.
   */
  private void installSignalHandlers() {
    for (String signal : List.of("TERM", "INT")) {
      sun.misc.Signal.handle(
          new sun.misc.Signal(signal),
          sig -> {
            ParregNode.Handle node;
            String stop = "stopped (SIG" + signal + ")";
            synchronized (this) {
              stopRequest = stop;
              node = current;
            }
            if (node != null) {
              String durable = RunOutcome.flush(node);
              node.lifecycle().stop(stop + durable);
            }
          });
    }
  }

  private void installShutdownHook() {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  ParregNode.Handle node;
                  synchronized (this) {
                    node = current;
                  }
                  if (node == null) {
                    return;
                  }
                  node.system().terminate();
                  try {
                    node.system()
                        .getWhenTerminated()
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
                  } catch (Exception ignored) {
                    // the JVM is going down anyway
                  }
                },
                "parreg-shutdown"));
  }
}
