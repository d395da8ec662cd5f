package parreg.cluster;

import java.util.Optional;
import java.util.OptionalInt;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ClusterActorRefProvider;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * One live node per participant id (issue 13 item 3), judged by the cluster's membership: every
 * node carries the role {@link #role}, and of two nodes that claim one id, the one that was Up
 * first holds it. A peer admits no other claimant while the holder is a live member (Up and
 * reachable); a node that finds an older live member with its own id starts nothing, and gives up
 * once that member has answered it (ParregNode). A node restarted under its old address replaces
 * its old incarnation, and one restarted under a new address takes the id over once the old one is
 * unreachable (crashed, not yet downed) or gone: neither old incarnation is live. Without a cluster
 * (actor tests in one JVM) nobody else can claim an id.
 */
public final class ParticipantClaims {
  private final ActorSystem<?> system;
  private final boolean clustered;

  public ParticipantClaims(ActorSystem<?> system) {
    this.system = system;
    this.clustered =
        ((ExtendedActorSystem) system.classicSystem()).provider()
            instanceof ClusterActorRefProvider;
  }

  private static final String ROLE_PREFIX = "parreg-participant-";

  /** The cluster role of a node that is {@code participant}. */
  public static String role(int participant) {
    return ROLE_PREFIX + participant;
  }

  /** The participant id a member claims by its role, if it has one. */
  public static OptionalInt participantOf(Member m) {
    for (String r : m.getRoles()) {
      if (r.startsWith(ROLE_PREFIX)) {
        try {
          return OptionalInt.of(Integer.parseInt(r.substring(ROLE_PREFIX.length())));
        } catch (NumberFormatException e) {
          return OptionalInt.empty();
        }
      }
    }
    return OptionalInt.empty();
  }

  /** Whether the member at {@code address} is Up and reachable from this node. */
  public boolean isLive(Address address) {
    if (!clustered) {
      return false;
    }
    ClusterEvent.CurrentClusterState state = Cluster.get(system).state();
    for (Member m : state.getMembers()) {
      if (m.address().equals(address)) {
        return m.status() == MemberStatus.up() && !state.getUnreachable().contains(m);
      }
    }
    return false;
  }

  /** Whether the member at {@code address} is Up and joined the cluster before this node. */
  public boolean holdsBeforeSelf(Address address) {
    if (!clustered) {
      return false;
    }
    Cluster cluster = Cluster.get(system);
    for (Member m : cluster.state().getMembers()) {
      if (m.address().equals(address)) {
        return m.status() == MemberStatus.up() && m.isOlderThan(cluster.selfMember());
      }
    }
    return false;
  }

  /** The address of a live member, older than this node, that is {@code participant} too. */
  public Optional<Address> olderClaimant(int participant) {
    if (!clustered) {
      return Optional.empty();
    }
    Cluster cluster = Cluster.get(system);
    Member self = cluster.selfMember();
    ClusterEvent.CurrentClusterState state = cluster.state();
    for (Member m : state.getMembers()) {
      if (m.hasRole(role(participant))
          && !m.address().equals(self.address())
          && m.status() == MemberStatus.up()
          && !state.getUnreachable().contains(m)
          && m.isOlderThan(self)) {
        return Optional.of(m.address());
      }
    }
    return Optional.empty();
  }
}
