package parreg.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import parreg.cluster.Membership;
import parreg.device.BackendInfo;
import parreg.settings.NodeLifecycle;
import parreg.training.TrainingActor;

/**
 * The node's health as load balancers, orchestrators and operators ask for it (the HTTP routes
 * {@code /ready}, {@code /alive} and {@code /cluster/members}; same paths and meaning as Pekko
 * Management's, see {@link AdminHttpServer} for why not Pekko Management itself).
 *
 * <p>Ready means: not shutting down, the backend answered, this node is {@code Up} in the cluster,
 * and its journal is open — the training actor answers a query only once its recovery from the
 * journal has completed (an event-sourced actor stashes commands until then), so an answer within
 * {@link #JOURNAL_PROBE} is the proof.
 */
public final class NodeHealth {
  /** Short enough that /ready answers within the 1 s that probes (Kubernetes' default) wait. */
  static final Duration JOURNAL_PROBE = Duration.ofMillis(500);

  /** The answer of a check: ok, or the reason it is not. */
  public record Check(boolean ok, String reason) {
    static Check pass() {
      return new Check(true, "");
    }

    static Check fail(String reason) {
      return new Check(false, reason);
    }
  }

  private final ActorSystem<?> system;
  private final NodeLifecycle lifecycle;
  private final CompletableFuture<BackendInfo> backend;
  private final ActorRef<TrainingActor.Command> training;

  public NodeHealth(
      ActorSystem<?> system,
      NodeLifecycle lifecycle,
      CompletableFuture<BackendInfo> backend,
      ActorRef<TrainingActor.Command> training) {
    this.system = system;
    this.lifecycle = lifecycle;
    this.backend = backend;
    this.training = training;
  }

  /**
   * Alive while the actor system runs (a stuck node is a matter for readiness, not for a restart
   * loop).
   */
  public Check alive() {
    return system.whenTerminated().isCompleted()
        ? Check.fail("actor system terminated")
        : Check.pass();
  }

  public Check ready() {
    if (system.whenTerminated().isCompleted()
        || CoordinatedShutdown.get(system).getShutdownReason().isPresent()) {
      return Check.fail("shutting down");
    }
    if (lifecycle.outcome().isDone()) {
      return Check.fail("stopping: " + lifecycle.outcome().join().message());
    }
    Membership.Removal removal = Membership.get(system).removed().getNow(null);
    if (removal != null) {
      return Check.fail("removed from the cluster: " + removal.reason());
    }
    if (!backend.isDone()) {
      return Check.fail("backend starting");
    }
    if (backend.isCompletedExceptionally()) {
      return Check.fail("backend failed");
    }
    MemberStatus status = Cluster.get(system).selfMember().status();
    if (!status.equals(MemberStatus.up())) {
      return Check.fail(notUp(status));
    }
    try {
      AskPattern.<TrainingActor.Command, TrainingActor.View>ask(
              training, TrainingActor.GetState::new, JOURNAL_PROBE, system.scheduler())
          .toCompletableFuture()
          .get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Check.fail("interrupted");
    } catch (Exception e) {
      return Check.fail("journal not open yet (recovering)");
    }
    return Check.pass();
  }

  /**
   * The cluster as this node sees it; field names follow Pekko Management's {@code
   * /cluster/members}.
   */
  public Map<String, Object> members() {
    ClusterEvent.CurrentClusterState cs = Cluster.get(system).state();
    Set<Member> unreachable = new HashSet<>();
    cs.getUnreachable().forEach(unreachable::add);
    List<Map<String, Object>> members = new ArrayList<>();
    for (Member m : cs.getMembers()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("node", m.address().toString());
      e.put("nodeUid", Long.toString(m.uniqueAddress().longUid()));
      e.put("status", m.status().toString());
      e.put("reachable", !unreachable.contains(m));
      e.put("roles", new ArrayList<>(m.getRoles()));
      members.add(e);
    }
    List<Map<String, Object>> unreachableList = new ArrayList<>();
    for (Member m : unreachable) {
      unreachableList.add(Map.of("node", m.address().toString(), "status", m.status().toString()));
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("selfNode", Cluster.get(system).selfMember().address().toString());
    out.put("leader", cs.getLeader() == null ? null : cs.getLeader().toString());
    out.put("members", members);
    out.put("unreachable", unreachableList);
    return out;
  }

  /**
   * Why a node that is not Up is not ready, in words: before its first join the cluster reports
   * this node as Removed (its placeholder state), which is not what happened.
   */
  static String notUp(MemberStatus status) {
    if (status.equals(MemberStatus.removed())) {
      return "not yet a member of the cluster: joining through its seed nodes";
    }
    if (status.equals(MemberStatus.joining()) || status.equals(MemberStatus.weaklyUp())) {
      return "joining the cluster (member status " + status + ")";
    }
    return "cluster member status " + status;
  }
}
