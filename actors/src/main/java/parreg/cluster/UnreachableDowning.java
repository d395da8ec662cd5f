package parreg.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Props;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.DowningProvider;
import org.apache.pekko.cluster.Member;
import scala.Option;
import scala.concurrent.duration.FiniteDuration;

/**
 * parreg's downing provider: a member that stays unreachable for {@code
 * parreg.downing.down-unreachable-after} is downed, so that a crashed node is removed and can come
 * back under the same or another address; a node never downs a reachable member, and downs itself
 * only to agree with peers that have removed it ({@link SelfRemoval}).
 *
 * <p>Why not Pekko's split brain resolver: every strategy it offers decides by majority, age or
 * quorum, and in a two-node run a crashed peer and a partition look the same, so the lone survivor
 * downs itself half the time (keep-majority, keep-oldest) or always (static-quorum with two
 * members). parreg's results never depend on membership: a step commits only once every
 * participant's deterministic contribution has arrived, so a split brain costs availability (the
 * sides wait) and never a bit of the result. Keeping the survivor alive is then the right trade.
 */
public final class UnreachableDowning extends DowningProvider {
  private final ActorSystem system;

  public UnreachableDowning(ActorSystem system) {
    this.system = system;
  }

  @Override
  public FiniteDuration downRemovalMargin() {
    return FiniteDuration.Zero();
  }

  @Override
  public Option<Props> downingActorProps() {
    Duration after =
        system.settings().config().getDuration("parreg.downing.down-unreachable-after");
    return Option.apply(Props.create(Downer.class, () -> new Downer(after)));
  }

  /**
   * Watches reachability and downs members that stay unreachable; its child {@link SelfRemoval}
   * watches this node's own membership. Unreachability is measured by the clock from the moment it
   * was seen, not by the scheduler alone: after a pause of this process the scheduler catches up on
   * the ticks it missed and runs timers early, and a node just resumed would down its peers at once
   * (seen here within 0.5 s of SIGCONT with a 2 s limit), before it hears that they have downed it.
   */
  static final class Downer extends AbstractActor {
    private final Duration after;
    private final Cluster cluster = Cluster.get(getContext().getSystem());
    private final Membership membership = Membership.get(getContext().getSystem());
    private final Map<Address, Pending> pending = new HashMap<>();

    private record Pending(Cancellable timer, long sinceNanos) {}

    private record DownIfStillUnreachable(Address address) {}

    Downer(Duration after) {
      this.after = after;
    }

    @Override
    public void preStart() {
      getContext().actorOf(Props.create(SelfRemoval.class, SelfRemoval::new), "self-removal");
      cluster.subscribe(
          getSelf(),
          ClusterEvent.initialStateAsEvents(),
          ClusterEvent.UnreachableMember.class,
          ClusterEvent.ReachableMember.class,
          ClusterEvent.MemberDowned.class,
          ClusterEvent.MemberUp.class,
          ClusterEvent.MemberRemoved.class);
    }

    @Override
    public void postStop() {
      cluster.unsubscribe(getSelf());
      pending.values().forEach(p -> p.timer().cancel());
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder()
          .match(ClusterEvent.UnreachableMember.class, u -> onUnreachable(u.member()))
          .match(
              ClusterEvent.ReachableMember.class,
              r -> {
                cancel(r.member().address());
                membership.clear(key(r.member()));
              })
          .match(ClusterEvent.MemberDowned.class, d -> onDowned(d.member()))
          .match(
              ClusterEvent.MemberUp.class,
              u -> membership.clear(key(u.member()))) // a downed member's new incarnation
          .match(ClusterEvent.MemberRemoved.class, r -> cancel(r.member().address()))
          .match(DownIfStillUnreachable.class, this::onTimer)
          .matchAny(m -> {})
          .build();
    }

    private void onUnreachable(Member m) {
      Address a = m.address();
      if (a.equals(cluster.selfAddress()) || pending.containsKey(a)) {
        return;
      }
      pending.put(a, new Pending(schedule(a, after), System.nanoTime()));
      membership.line(
          key(m),
          Membership.describe(m)
              + " unreachable since "
              + Membership.now()
              + "; downed after "
              + Membership.words(after)
              + " unless it answers");
    }

    private void onDowned(Member m) {
      if (m.address().equals(cluster.selfAddress())) {
        return;
      }
      membership.line(
          key(m),
          "downed "
              + Membership.describe(m)
              + " at "
              + Membership.now()
              + ": the run waits for it to rejoin as a new incarnation");
    }

    private Cancellable schedule(Address a, Duration delay) {
      return getContext()
          .getSystem()
          .scheduler()
          .scheduleOnce(
              delay,
              getSelf(),
              new DownIfStillUnreachable(a),
              getContext().getDispatcher(),
              getSelf());
    }

    private void cancel(Address a) {
      Pending p = pending.remove(a);
      if (p != null) {
        p.timer().cancel();
      }
    }

    private void onTimer(DownIfStillUnreachable t) {
      Pending p = pending.get(t.address());
      if (p == null) {
        return;
      }
      Duration unreachable = Duration.ofNanos(System.nanoTime() - p.sinceNanos());
      if (unreachable.compareTo(after) < 0) {
        pending.put(
            t.address(),
            new Pending(schedule(t.address(), after.minus(unreachable)), p.sinceNanos()));
        return;
      }
      pending.remove(t.address());
      if (membership.removed().isDone()) {
        return; // this incarnation is out of the cluster: its view of the others decides nothing
      }
      Member m = null;
      for (Member u : cluster.state().getUnreachable()) {
        if (u.address().equals(t.address())) {
          m = u;
        }
      }
      if (m != null && !t.address().equals(cluster.selfAddress())) {
        getContext()
            .getSystem()
            .log()
            .warning(
                "downing {}: unreachable for {}; the run goes on once it rejoins as a new"
                    + " incarnation",
                Membership.describe(m),
                Membership.words(after));
        cluster.down(t.address());
      }
    }

    private static String key(Member m) {
      return m.address().toString();
    }
  }
}
