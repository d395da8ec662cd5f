package parreg.exchange;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import parreg.cluster.ParticipantClaims;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.metrics.NodeMetrics;
import parreg.metrics.StartupTrace;
import parreg.settings.NodeSettings;

/**
 * The peer actor's membership: the handshake ({@link PeerActor.Hello}), which peers it admits (same
 * contract and target, a partition that matches the journal's roster, one live node per participant
 * id), the refusals it logs and lists, what it last heard of each peer, and when the roster is
 * complete.
 *
 * <p>Not thread-safe: the peer actor owns it.
 */
final class PeerRoster {

  /** An admitted peer and what this node last heard of it. */
  static final class Peer {
    ActorRef<PeerActor.Command> ref;
    PartitionInfo info;
    long committed;
    long durable;
    long heardAt;

    /** This peer's exchange-wait histogram (looked up once, not per step). */
    DistributionDataPoint exchangeWait;
  }

  /** What a handshake did: refused its sender, or admitted it again, or anew (a new reference). */
  enum Admission {
    REFUSED,
    KNOWN,
    NEW
  }

  private final ActorContext<PeerActor.Command> ctx;
  private final NodeSettings settings;
  private final int me;
  private final int participants;
  private final PartitionInfo ownInfo;
  private final PartitionInfo[] recordedRoster;
  private final ParticipantClaims claims;
  private final Map<Integer, Peer> peers = new HashMap<>();

  /** Progress heard from a participant not admitted yet, by participant id. */
  private final Map<Integer, PeerActor.Progress> early = new HashMap<>();

  private final List<String> refused = new ArrayList<>();
  private PeerActor.Refusal refusal;
  private long firstRefusalAt;
  private String heldBy;

  /** {@code recordedRoster}: the journal's roster (null for a new journal). */
  PeerRoster(
      ActorContext<PeerActor.Command> ctx, NodeSettings settings, PartitionInfo[] recordedRoster) {
    this.ctx = ctx;
    this.settings = settings;
    this.me = settings.participant();
    this.participants = settings.contract().participants();
    this.ownInfo = settings.partition().info(me);
    this.recordedRoster = recordedRoster;
    this.claims = new ParticipantClaims(ctx.getSystem());
  }

  PeerActor.Hello hello(boolean wantsReply, long committed) {
    return new PeerActor.Hello(
        settings.contract(), ownInfo, committed, settings.targetSteps(), ctx.getSelf(), wantsReply);
  }

  /** Introduces this node to every peer actor of the listing it does not know yet. */
  void greet(Receptionist.Listing listing, long committed) {
    for (ActorRef<PeerActor.Command> ref : listing.getServiceInstances(PeerActor.SERVICE_KEY)) {
      if (!ref.equals(ctx.getSelf()) && !isKnown(ref)) {
        ref.tell(hello(true, committed));
      }
    }
  }

  private boolean isKnown(ActorRef<PeerActor.Command> ref) {
    return peers.values().stream().anyMatch(p -> p.ref.equals(ref));
  }

  /**
   * Admits the sender of {@code h} (answering it when it asks), or refuses it naming why. {@link
   * Admission#NEW} when it is admitted under a new reference: a peer that (re)joined, which may
   * have missed messages.
   */
  Admission admit(PeerActor.Hello h, long committed) {
    String who = h.from().path().address().toString();
    RunContract own = settings.contract();
    // The feature count first: the initial weights (one a feature) differ then too, which says
    // less.
    Optional<String> diff =
        own.features() != h.contract().features()
            ? Optional.of(
                "features (the number of feature columns): expected '"
                    + own.features()
                    + "' but found '"
                    + h.contract().features()
                    + "'")
            : own.firstDifference(h.contract());
    if (diff.isPresent()) {
      refuseRun("peer " + who + " refused: contract differs in " + diff.get(), h, committed);
      return Admission.REFUSED;
    }
    if (h.target() != settings.targetSteps()) {
      refuseRun(
          "peer "
              + who
              + " refused: contract differs in targetSteps: expected '"
              + settings.targetSteps()
              + "' but found '"
              + h.target()
              + "' (every node of a run is started with the same --steps)",
          h,
          committed);
      return Admission.REFUSED;
    }
    int p = h.info().participant();
    if (p == me) {
      if (claims.holdsBeforeSelf(h.from().path().address())) {
        heldBy = who; // this node is the second one with its id: it gives up (ParregNode)
      } else if (h.wantsReply()) {
        h.from().tell(hello(false, committed)); // tell the second node who holds its id
      }
      refuse("peer " + who + " refused: it claims participant " + p + ", which is this node");
      return Admission.REFUSED;
    }
    if (p < 0 || p >= participants) {
      refuse("peer " + who + " refused: participant " + p + " is outside 0.." + (participants - 1));
      return Admission.REFUSED;
    }
    if (recordedRoster != null && !recordedRoster[p].equals(h.info())) {
      refuseRun(
          "peer "
              + who
              + " refused: participant "
              + p
              + "'s partition differs from the roster in the journal: recorded "
              + recordedRoster[p].describe()
              + ", offered "
              + h.info().describe(),
          h,
          committed);
      return Admission.REFUSED;
    }
    Peer held = peers.get(p);
    if (held != null
        && !held.ref.path().address().equals(h.from().path().address())
        && claims.isLive(held.ref.path().address())) {
      // A second node with a participant id whose holder is alive: keep the holder. (A restart
      // under the same address, or under another while the old one is unreachable, takes over.)
      refuse(
          "peer "
              + who
              + " refused: participant "
              + p
              + " is held by "
              + held.ref.path().address()
              + ", a live member of the cluster");
      return Admission.REFUSED;
    }
    Peer peer = peers.computeIfAbsent(p, k -> new Peer());
    boolean isNew = !h.from().equals(peer.ref);
    if (isNew) {
      ctx.getLog()
          .info("peer participant {} admitted at {} (committed step {})", p, who, h.committed());
      StartupTrace.mark("peer participant " + p + " admitted");
    }
    peer.ref = h.from();
    peer.info = h.info();
    if (peer.exchangeWait == null) {
      peer.exchangeWait = NodeMetrics.get(ctx.getSystem()).exchangeWait(p);
    }
    peer.committed = h.committed();
    peer.heardAt = System.nanoTime();
    PeerActor.Progress before = early.remove(p);
    if (before != null) {
      peer.committed = Math.max(peer.committed, before.committed());
      peer.durable = Math.max(peer.durable, before.durable());
    }
    if (h.wantsReply()) {
      h.from().tell(hello(false, committed));
    }
    return isNew ? Admission.NEW : Admission.KNOWN;
  }

  /** Logs and lists a refusal (the latest 20, each once). */
  void refuse(String why) {
    if (!refused.contains(why)) {
      ctx.getLog().warn(why);
      refused.add(why);
      if (refused.size() > 20) {
        refused.remove(0);
      }
    }
  }

  /**
   * A refusal that means the peer is in another run: remembered for the node's decision to give up.
   */
  private void refuseRun(String why, PeerActor.Hello h, long committed) {
    refuse(why);
    if (refusal == null) {
      firstRefusalAt = System.nanoTime();
    }
    refusal = new PeerActor.Refusal(why, h.committed(), committed, 0);
  }

  /**
   * Every participant's partition once every peer is admitted, else null; null too while an older
   * live node holds this node's id (start nothing: the peer actor's tick asks again).
   */
  PartitionInfo[] complete() {
    if (peers.size() < participants - 1 || claims.olderClaimant(me).isPresent()) {
      return null;
    }
    PartitionInfo[] roster = new PartitionInfo[participants];
    roster[me] = ownInfo;
    for (Map.Entry<Integer, Peer> e : peers.entrySet()) {
      roster[e.getKey()] = e.getValue().info;
    }
    return roster;
  }

  /** The admitted peer with this participant id, or null. */
  Peer get(int participant) {
    return peers.get(participant);
  }

  /** Sends {@code message} to every admitted peer. */
  /** The admitted peers' actors. */
  List<ActorRef<PeerActor.Command>> refs() {
    List<ActorRef<PeerActor.Command>> refs = new ArrayList<>(peers.size());
    for (Peer peer : peers.values()) {
      refs.add(peer.ref);
    }
    return refs;
  }

  void tellAll(PeerActor.Command message) {
    for (Peer peer : peers.values()) {
      peer.ref.tell(message);
    }
  }

  /** A heartbeat from an admitted peer of this run. */
  void heard(PeerActor.Progress p) {
    Peer peer = peers.get(p.participant());
    if (peer == null && p.participant() != me && p.participant() < participants) {
      // From a peer that admitted this node before this node admitted it: kept for its admission.
      // A peer whose run was already done says so once and may leave before its next heartbeat,
      // and a node waiting for every participant's target (--exit-when-done) would wait for ever.
      early.merge(p.participant(), p, (a, b) -> a.durable() >= b.durable() ? a : b);
    }
    if (peer != null) {
      peer.committed = Math.max(peer.committed, p.committed());
      peer.durable = Math.max(peer.durable, p.durable());
      peer.heardAt = System.nanoTime();
    }
  }

  /** The peers for status, by participant id. */
  List<PeerActor.PeerState> states(long now) {
    List<PeerActor.PeerState> states = new ArrayList<>();
    peers.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                states.add(
                    new PeerActor.PeerState(
                        e.getKey(),
                        e.getValue().ref.path().address().toString(),
                        e.getValue().committed,
                        e.getValue().durable,
                        (now - e.getValue().heardAt) / 1_000_000)));
    return states;
  }

  List<String> refused() {
    return List.copyOf(refused);
  }

  /** The latest refusal of a peer of another run, with our committed step now (null: none). */
  PeerActor.Refusal refusal(long committed, long now) {
    return refusal == null
        ? null
        : new PeerActor.Refusal(
            refusal.reason(),
            refusal.peerCommitted(),
            committed,
            (now - firstRefusalAt) / 1_000_000);
  }

  /** The address of an older live node that holds this node's participant id (null: none). */
  String heldBy() {
    return heldBy;
  }
}
