package parreg.node;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import parreg.cluster.Membership;
import parreg.exchange.PeerActor;
import parreg.settings.Deployment;
import parreg.settings.NodeLifecycle;
import parreg.training.TrainingActor;

/**
 * How a running node's process ends (one role, split from {@link ParregNode}, which starts it): its
 * lifecycle's outcome, the target durable on every participant with {@code --exit-when-done}, a
 * second live node holding this participant id, a run this node was refused from, or this
 * incarnation removed from the cluster ({@link Membership}; the node then rejoins or exits, {@link
 * Incarnations}); and, on a graceful stop, how far the journal was flushed.
 */
final class RunOutcome {
  private RunOutcome() {}

  /**
   * Polls for the outcome; with --exit-when-done also for the target step being durable in every
   * participant's journal; every second for a refusal that should end this node ({@link
   * #refusedRun}).
   */
  static NodeLifecycle.Outcome await(
      Deployment d, ParregNode.Handle node, ParregNode.Refs refs, Duration refusalGrace)
      throws InterruptedException {
    NodeLifecycle lc = node.lifecycle();
    Membership membership = Membership.get(node.system());
    for (long polls = 1; ; polls++) {
      try {
        return lc.outcome().get(200, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // keep polling: done-ness below, or the system going away
      } catch (ExecutionException e) {
        return new NodeLifecycle.Outcome(1, String.valueOf(e.getCause()));
      }
      Membership.Removal removal = membership.removed().getNow(null);
      if (removal != null) {
        return new NodeLifecycle.Outcome(NodeLifecycle.REMOVED, removal.reason());
      }
      if (node.system().whenTerminated().isCompleted()) {
        return new NodeLifecycle.Outcome(1, "actor system terminated");
      }
      if (d.exitWhenDone()
          && lc.trainingDone().isDone()
          && everyoneDone(d, lc.doneStep(), peerView(node, refs))) {
        return new NodeLifecycle.Outcome(0, "");
      }
      if (polls % 5 == 0) {
        PeerActor.View v = peerView(node, refs);
        Optional<NodeLifecycle.Outcome> refused =
            secondHolder(d, v).or(() -> refusedRun(d, v, refusalGrace));
        if (refused.isPresent()) {
          return refused.get();
        }
      }
    }
  }

  /** The peer actor's view, or null when it does not answer in time. */
  private static PeerActor.View peerView(ParregNode.Handle node, ParregNode.Refs refs) {
    try {
      return AskPattern.<PeerActor.Command, PeerActor.View>ask(
              refs.peer(), PeerActor.GetView::new, Duration.ofSeconds(2), node.system().scheduler())
          .toCompletableFuture()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null;
    }
  }

  /** Every peer has made durable the step this node ended at (all end at the same one). */
  private static boolean everyoneDone(Deployment d, long doneStep, PeerActor.View v) {
    long end = Math.min(d.steps(), doneStep);
    return v != null
        && v.peers().size() == d.participants() - 1
        && v.peers().stream().allMatch(p -> p.lastKnownDurable() >= end);
  }

  /**
   * A second live node with this participant id gives up: the one Up in the cluster before it keeps
   * the id.
   */
  private static Optional<NodeLifecycle.Outcome> secondHolder(Deployment d, PeerActor.View v) {
    if (v == null || v.heldBy() == null) {
      return Optional.empty();
    }
    return Optional.of(
        new NodeLifecycle.Outcome(
            2,
            "participant "
                + d.participant()
                + " is already held by "
                + v.heldBy()
                + ", a live node that joined the cluster before this one (one node per participant id):"
                + " stop that node first, or give this one its own --participant"));
  }

  /**
   * A node that cannot join its run gives up (exit 2, the peer's difference named) instead of
   * waiting for ever: at once when a refused peer of another run is further along (its run is the
   * one going on; this node is the newcomer), after {@code grace} when neither is (a cluster
   * started with mismatched flags). A node further along than the peer it refused keeps waiting for
   * the right one; so does any node once all its peers are admitted.
   */
  private static Optional<NodeLifecycle.Outcome> refusedRun(
      Deployment d, PeerActor.View v, Duration grace) {
    if (v == null || v.refusal() == null || v.peers().size() >= d.participants() - 1) {
      return Optional.empty();
    }
    PeerActor.Refusal r = v.refusal();
    if (r.peerCommitted() > r.committed()) {
      return Optional.of(
          new NodeLifecycle.Outcome(
              2,
              r.reason()
                  + "; that peer is further along (step "
                  + r.peerCommitted()
                  + ", this node "
                  + r.committed()
                  + "), so this node is not part of its run"));
    }
    if (r.peerCommitted() == r.committed() && r.firstMillisAgo() >= grace.toMillis()) {
      return Optional.of(
          new NodeLifecycle.Outcome(
              2,
              r.reason()
                  + "; no peer of this node's run joined within "
                  + grace.toMillis() / 1000.0
                  + " s"));
    }
    return Optional.empty();
  }

  /** Asks the training actor to write everything committed; says up to which step it is durable. */
  static String flush(ParregNode.Handle node) {
    try {
      ParregNode.Refs refs = node.refs().getNow(null);
      if (refs == null) {
        return "";
      }
      Long durable =
          org.apache.pekko.actor.typed.javadsl.AskPattern.<TrainingActor.Command, Long>ask(
                  refs.training(),
                  TrainingActor.Flush::new,
                  java.time.Duration.ofSeconds(10),
                  node.system().scheduler())
              .toCompletableFuture()
              .get(11, TimeUnit.SECONDS);
      return "; journal durable at step " + durable;
    } catch (Exception e) {
      return "; the journal could not be flushed in time ("
          + e.getClass().getSimpleName()
          + "): the next start resumes from its last durable step";
    }
  }
}
