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
import scala.Option;
import scala.concurrent.duration.FiniteDuration;

/**
 * parreg's downing provider: a member that stays unreachable for {@code
 * parreg.downing.down-unreachable-after} is downed, so that a crashed node is removed and can come
 * back under the same or another address; a node never downs itself or a reachable member.
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

  /** Watches reachability and downs members that stay unreachable. */
  static final class Downer extends AbstractActor {
    private final Duration after;
    private final Cluster cluster = Cluster.get(getContext().getSystem());
    private final Map<Address, Cancellable> pending = new HashMap<>();

    private record DownIfStillUnreachable(Address address) {}

    Downer(Duration after) {
      this.after = after;
    }

    @Override
    public void preStart() {
      cluster.subscribe(
          getSelf(),
          ClusterEvent.initialStateAsEvents(),
          ClusterEvent.UnreachableMember.class,
          ClusterEvent.ReachableMember.class,
          ClusterEvent.MemberRemoved.class);
    }

    @Override
    public void postStop() {
      cluster.unsubscribe(getSelf());
      pending.values().forEach(Cancellable::cancel);
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder()
          .match(ClusterEvent.UnreachableMember.class, u -> schedule(u.member().address()))
          .match(ClusterEvent.ReachableMember.class, r -> cancel(r.member().address()))
          .match(ClusterEvent.MemberRemoved.class, r -> cancel(r.member().address()))
          .match(DownIfStillUnreachable.class, this::onTimer)
          .matchAny(m -> {})
          .build();
    }

    private void schedule(Address a) {
      if (a.equals(cluster.selfAddress()) || pending.containsKey(a)) {
        return;
      }
      pending.put(
          a,
          getContext()
              .getSystem()
              .scheduler()
              .scheduleOnce(
                  after,
                  getSelf(),
                  new DownIfStillUnreachable(a),
                  getContext().getDispatcher(),
                  getSelf()));
    }

    private void cancel(Address a) {
      Cancellable c = pending.remove(a);
      if (c != null) {
        c.cancel();
      }
    }

    private void onTimer(DownIfStillUnreachable t) {
      pending.remove(t.address());
      boolean stillUnreachable =
          cluster.state().getUnreachable().stream().anyMatch(m -> m.address().equals(t.address()));
      if (stillUnreachable && !t.address().equals(cluster.selfAddress())) {
        getContext()
            .getSystem()
            .log()
            .warning("downing {}: unreachable for {}", t.address(), after);
        cluster.down(t.address());
      }
    }
  }
}
