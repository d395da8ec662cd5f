package parreg.cluster;

import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.remote.artery.ThisActorSystemQuarantinedEvent;

/**
 * Finds out that this incarnation is no longer a member, and says so once ({@link
 * Membership#removed}): a member of its cluster quarantined it (Artery tells a node whose messages
 * it drops, and Pekko leaves it to the downing provider to act on that), or the cluster marked it
 * Down or removed it while it was not leaving. A node paused for longer than its peers' downing
 * limit (a long GC, SIGSTOP, a suspended VM) comes back to exactly that: its peers have downed and
 * quarantined it, and they will never talk to this incarnation again, while in its own view they
 * are merely unreachable. Without this it would go on as a cluster of its own, waiting for ever.
 *
 * <p>A quarantine by a node that is no longer a member here is not acted on (as Pekko's split brain
 * resolver does): that node was removed by this side, so it is the one that must come back, and its
 * stale view does not decide this node's fate. {@link UnreachableDowning} measures unreachability
 * by the clock, so a node resuming from a pause hears of its quarantine (within milliseconds: its
 * first message is answered with it) long before it would down its peers.
 */
final class SelfRemoval extends AbstractActor {
  private final Cluster cluster = Cluster.get(getContext().getSystem());
  private final Membership membership = Membership.get(getContext().getSystem());
  private final boolean rejoin =
      "rejoin"
          .equals(getContext().getSystem().settings().config().getString(Membership.ON_REMOVAL));

  @Override
  public void preStart() {
    getContext()
        .getSystem()
        .getEventStream()
        .subscribe(getSelf(), ThisActorSystemQuarantinedEvent.class);
    cluster.subscribe(
        getSelf(),
        ClusterEvent.MemberUp.class,
        ClusterEvent.MemberDowned.class,
        ClusterEvent.MemberRemoved.class);
  }

  @Override
  public void postStop() {
    getContext().getSystem().getEventStream().unsubscribe(getSelf());
    cluster.unsubscribe(getSelf());
  }

  @Override
  public Receive createReceive() {
    return receiveBuilder()
        .match(ThisActorSystemQuarantinedEvent.class, this::onQuarantined)
        .match(
            ClusterEvent.MemberDowned.class,
            d -> {
              if (isSelf(d.member())) {
                remove("the cluster marked it Down");
              }
            })
        .match(
            ClusterEvent.MemberRemoved.class,
            r -> {
              MemberStatus before = r.previousStatus();
              if (isSelf(r.member())
                  && !before.equals(MemberStatus.exiting())
                  && !before.equals(MemberStatus.leaving())) {
                remove("the cluster removed it (it was " + before + ")");
              }
            })
        .match(
            ClusterEvent.MemberUp.class,
            u -> {
              if (isSelf(u.member())) {
                String r = membership.rejoined();
                if (r != null) {
                  getContext()
                      .getSystem()
                      .log()
                      .info(
                          "rejoined the cluster as {} (uid {}) {}",
                          cluster.selfAddress(),
                          cluster.selfUniqueAddress().longUid(),
                          r);
                }
              }
            })
        .matchAny(m -> {})
        .build();
  }

  private void onQuarantined(ThisActorSystemQuarantinedEvent q) {
    org.apache.pekko.remote.UniqueAddress by = q.remoteAddress();
    for (Member m : cluster.state().getMembers()) {
      if (m.address().equals(by.address()) && m.uniqueAddress().longUid() == by.uid()) {
        remove(
            "quarantined by "
                + Membership.describe(m)
                + ", which downed this node after it was unreachable for longer than its downing"
                + " limit (this process paused, as in a long GC or a suspended VM, or the network"
                + " was cut)");
        return;
      }
    }
    getContext()
        .getSystem()
        .log()
        .debug("quarantined by {}, no member of this node's cluster: not acted on", by);
  }

  private boolean isSelf(Member m) {
    return m.uniqueAddress().equals(cluster.selfUniqueAddress());
  }

  private void remove(String reason) {
    String next =
        rejoin
            ? "this incarnation stops and the node rejoins with a new one that resumes from its"
                + " journal"
            : "the node exits (" + Membership.ON_REMOVAL + " = exit)";
    if (membership.remove(reason, next)) {
      getContext().getSystem().log().warning("removed from the cluster: {}; {}", reason, next);
      // Its own view then agrees with its peers', which have downed it: the cluster shuts itself
      // down, and the actor system's shutdown skips leaving, which cannot complete here (no leader
      // acts while the peers are unreachable) and held the stop up for its 10 s timeout.
      cluster.down(cluster.selfAddress());
    }
  }
}
