package parreg.actors;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.EventEnvelope;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.javadsl.Sink;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.persistence.Chained;
import parreg.persistence.KryoSerializable;

/**
 * Exchanges contributions {@code (run, step, participant, S_p, m_p, loss_p)} with the other
 * participants and hands the training actor the full set of a step once every participant's
 * contribution has arrived.
 *
 * <p>Peers are found through the receptionist and admitted only after a handshake ({@link Hello})
 * whose contract equals ours and whose partition matches the journal's roster; a mismatch is logged
 * with the differing field and the peer is ignored. Contributions are pushed when computed and
 * pulled again ({@link ContributionRequest}) while a step waits, so a peer that restarted, or
 * missed a message, catches up. Recent steps are kept in memory; older committed steps are served
 * from the journal. Every contribution is a deterministic function of the committed state, so
 * serving or receiving one twice is harmless.
 */
public final class PeerActor extends AbstractBehavior<PeerActor.Command> {

  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "parreg-peer");

  public interface Command {}

  // ---- wire protocol (between nodes) ----

  /**
   * Handshake: who I am, what run I am in, how far I am. {@code target} (the node's {@code
   * --steps}) is agreed like the contract: a node that stopped at a lower target would leave its
   * peers waiting for a step it never computes.
   */
  public record Hello(
      RunContract contract,
      PartitionInfo info,
      long committed,
      long target,
      ActorRef<Command> from,
      boolean wantsReply)
      implements Command, KryoSerializable {}

  /**
   * One participant's contribution to a step. {@code committedSet}, when not null, is the full set
   * the sender committed for that step (served to a peer catching up, which checks its own entry).
   */
  public record Contribution(
      String run, long step, int participant, LocalSums sums, LocalSums[] committedSet)
      implements Command, KryoSerializable {}

  /** Asks a peer for its contribution to a step. */
  public record ContributionRequest(String run, long step, int requester, ActorRef<Command> replyTo)
      implements Command, KryoSerializable {}

  /** Heartbeat: a participant's committed step and the last step durable in its journal. */
  public record Progress(String run, int participant, long committed, long durable)
      implements Command, KryoSerializable {}

  // ---- local protocol (training actor, admin) ----

  /** From the training actor after recovery: where to deliver, the recorded roster (or null). */
  public record Attach(
      ActorRef<TrainingActor.Command> training, PartitionInfo[] roster, long committed)
      implements Command {}

  /** From the training actor: our own contribution to a step. */
  public record Publish(long step, LocalSums sums) implements Command {}

  /**
   * From the training actor: a step is committed (every participant's contribution is in; it may
   * not be durable yet). Its set is served to peers from now on: it is a deterministic function of
   * the run, so serving it before our journal has it changes nothing.
   */
  public record Committed(long step, LocalSums[] set) implements Command {}

  /** From the training actor: the journal holds every step up to this one. */
  public record Durable(long step) implements Command {}

  public record GetView(ActorRef<View> replyTo) implements Command {}

  /**
   * What this node knows of its peers; {@code refusal} is the latest peer refused for another
   * contract or other data (null: none), by which the node decides whether to give up; {@code
   * heldBy} the address of an older live node that claims this node's participant id (null: none),
   * in which case this node is the second one and gives up.
   */
  public record View(
      List<PeerState> peers,
      long awaitingStep,
      List<Integer> waitingFor,
      long waitingMillis,
      List<String> refused,
      Refusal refusal,
      String heldBy) {}

  /**
   * A peer of another run: why, its committed step and ours then, how long ago the first such
   * refusal was.
   */
  public record Refusal(String reason, long peerCommitted, long committed, long firstMillisAgo) {}

  public record PeerState(
      int participant,
      String address,
      long lastKnownCommitted,
      long lastKnownDurable,
      long lastHeardMillisAgo) {}

  private record ListingChanged(Receptionist.Listing listing) implements Command {}

  private record JournalAnswer(long step, LocalSums[] set, ActorRef<Command> replyTo)
      implements Command {}

  private enum Tick implements Command {
    INSTANCE
  }

  private static final class Peer {
    ActorRef<Command> ref;
    PartitionInfo info;
    long committed;
    long durable;
    long heardAt;

    /** This peer's exchange-wait histogram (looked up once, not per step). */
    DistributionDataPoint exchangeWait;
  }

  private final NodeSettings settings;
  private final int me;
  private final int participants;
  private final String run;
  private final PartitionInfo ownInfo;
  private ActorRef<TrainingActor.Command> training;
  private final PartitionInfo[] recordedRoster;
  private final Map<Integer, Peer> peers = new HashMap<>();
  private final TreeMap<Long, LocalSums[]> window = new TreeMap<>();
  private final Map<Long, LocalSums[]> recordedSets = new HashMap<>();
  private final List<String> refused = new ArrayList<>();
  private Refusal refusal;
  private long firstRefusalAt;
  private final ParticipantClaims claims;
  private String heldBy;
  private long committed;
  private long durable;
  private long awaitingStep = -1;
  private long awaitingSince;
  private long delivered = -1;
  private boolean rosterSent;
  private int ticks;

  public static Behavior<Command> create(NodeSettings settings) {
    return Behaviors.withStash(
        10_000,
        stash ->
            Behaviors.setup(
                ctx ->
                    Behaviors.withTimers(
                        timers ->
                            Behaviors.receive(Command.class)
                                .onMessage(
                                    Attach.class, a -> attach(ctx, timers, stash, settings, a))
                                .onAnyMessage(
                                    m -> {
                                      stash.stash(m);
                                      return Behaviors.same();
                                    })
                                .build())));
  }

  private static Behavior<Command> attach(
      ActorContext<Command> ctx,
      TimerScheduler<Command> timers,
      StashBuffer<Command> stash,
      NodeSettings settings,
      Attach a) {
    ActorRef<Receptionist.Listing> adapter =
        ctx.messageAdapter(Receptionist.Listing.class, ListingChanged::new);
    ctx.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, ctx.getSelf()));
    ctx.getSystem().receptionist().tell(Receptionist.subscribe(SERVICE_KEY, adapter));
    timers.startTimerWithFixedDelay(Tick.INSTANCE, settings.retryInterval());
    return stash.unstashAll(new PeerActor(ctx, settings, a));
  }

  private PeerActor(ActorContext<Command> ctx, NodeSettings settings, Attach a) {
    super(ctx);
    this.settings = settings;
    this.me = settings.participant();
    this.participants = settings.contract().participants();
    this.run = settings.contract().digest();
    this.ownInfo = settings.partition().info(me);
    this.training = a.training();
    this.recordedRoster = a.roster();
    this.committed = a.committed();
    this.durable = a.committed();
    this.claims = new ParticipantClaims(ctx.getSystem());
    maybeRosterComplete();
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Attach.class, this::onReattach)
        .onMessage(ListingChanged.class, this::onListing)
        .onMessage(Hello.class, this::onHello)
        .onMessage(Publish.class, this::onPublish)
        .onMessage(Contribution.class, this::onContribution)
        .onMessage(ContributionRequest.class, this::onRequest)
        .onMessage(JournalAnswer.class, this::onJournalAnswer)
        .onMessage(Committed.class, this::onCommitted)
        .onMessage(Durable.class, this::onDurable)
        .onMessage(Progress.class, this::onProgress)
        .onMessage(GetView.class, this::onGetView)
        .onMessage(Tick.class, t -> onTick())
        .build();
  }

  /** The training actor restarted (after a journal failure): deliver afresh from its state. */
  private Behavior<Command> onReattach(Attach a) {
    training = a.training();
    committed = a.committed();
    durable = a.committed();
    delivered = committed;
    rosterSent = false;
    maybeRosterComplete();
    return this;
  }

  private Hello hello(boolean wantsReply) {
    return new Hello(
        settings.contract(),
        ownInfo,
        committed,
        settings.targetSteps(),
        getContext().getSelf(),
        wantsReply);
  }

  private Behavior<Command> onListing(ListingChanged l) {
    for (ActorRef<Command> ref : l.listing().getServiceInstances(SERVICE_KEY)) {
      if (!ref.equals(getContext().getSelf()) && !isKnown(ref)) {
        ref.tell(hello(true));
      }
    }
    return this;
  }

  private boolean isKnown(ActorRef<Command> ref) {
    return peers.values().stream().anyMatch(p -> p.ref.equals(ref));
  }

  private Behavior<Command> onHello(Hello h) {
    String who = h.from().path().address().toString();
    Optional<String> diff = settings.contract().firstDifference(h.contract());
    if (diff.isPresent()) {
      refuseRun("peer " + who + " refused: contract differs in " + diff.get(), h.committed());
      return this;
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
          h.committed());
      return this;
    }
    int p = h.info().participant();
    if (p == me) {
      if (claims.holdsBeforeSelf(h.from().path().address())) {
        heldBy = who; // this node is the second one with its id: it gives up (ParregNode)
      } else if (h.wantsReply()) {
        h.from().tell(hello(false)); // tell the second node who holds its id
      }
      refuse("peer " + who + " refused: it claims participant " + p + ", which is this node");
      return this;
    }
    if (p < 0 || p >= participants) {
      refuse("peer " + who + " refused: participant " + p + " is outside 0.." + (participants - 1));
      return this;
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
          h.committed());
      return this;
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
      return this;
    }
    Peer peer = peers.computeIfAbsent(p, k -> new Peer());
    boolean isNew = !h.from().equals(peer.ref);
    if (isNew) {
      getContext()
          .getLog()
          .info("peer participant {} admitted at {} (committed step {})", p, who, h.committed());
      StartupTrace.mark("peer participant " + p + " admitted");
    }
    peer.ref = h.from();
    peer.info = h.info();
    if (peer.exchangeWait == null) {
      peer.exchangeWait = NodeMetrics.get(getContext().getSystem()).exchangeWait(p);
    }
    peer.committed = h.committed();
    peer.heardAt = System.nanoTime();
    if (h.wantsReply()) {
      h.from().tell(hello(false));
    }
    if (isNew
        && awaitingStep > 0
        && window.containsKey(awaitingStep)
        && window.get(awaitingStep)[me] != null) {
      // A peer that (re)joined may have missed our contribution to the step we wait on.
      h.from().tell(new Contribution(run, awaitingStep, me, window.get(awaitingStep)[me], null));
    }
    maybeRosterComplete();
    return this;
  }

  private void refuse(String why) {
    if (!refused.contains(why)) {
      getContext().getLog().warn(why);
      refused.add(why);
      if (refused.size() > 20) {
        refused.remove(0);
      }
    }
  }

  /**
   * A refusal that means the peer is in another run: remembered for the node's decision to give up.
   */
  private void refuseRun(String why, long peerCommitted) {
    refuse(why);
    if (refusal == null) {
      firstRefusalAt = System.nanoTime();
    }
    refusal = new Refusal(why, peerCommitted, committed, 0);
  }

  private void maybeRosterComplete() {
    if (rosterSent || peers.size() < participants - 1 || claims.olderClaimant(me).isPresent()) {
      return; // (an older live node with this node's id: start nothing; the tick checks again)
    }
    PartitionInfo[] roster = new PartitionInfo[participants];
    roster[me] = ownInfo;
    for (Map.Entry<Integer, Peer> e : peers.entrySet()) {
      roster[e.getKey()] = e.getValue().info;
    }
    rosterSent = true;
    training.tell(new TrainingActor.RosterComplete(roster));
  }

  private LocalSums[] slot(long step) {
    return window.computeIfAbsent(step, k -> new LocalSums[participants]);
  }

  private Behavior<Command> onPublish(Publish p) {
    StepTrace.stamp(4, p.step());
    slot(p.step())[me] = p.sums();
    if (p.step() != awaitingStep) {
      awaitingStep = p.step();
      awaitingSince = System.nanoTime();
    }
    Contribution c = new Contribution(run, p.step(), me, p.sums(), null);
    StartupTrace.once("first own contribution published");
    for (Peer peer : peers.values()) {
      peer.ref.tell(c);
    }
    maybeDeliver(p.step());
    return this;
  }

  private Behavior<Command> onContribution(Contribution c) {
    if (!run.equals(c.run())) {
      refuse(
          "contribution for another run ("
              + c.run().substring(0, 12)
              + "...) from participant "
              + c.participant()
              + " ignored");
      return this;
    }
    StartupTrace.once("first peer contribution received");
    Peer peer = peers.get(c.participant());
    if (peer == null || c.participant() == me) {
      return this; // not admitted (yet): it will be asked for again after the handshake
    }
    long now = System.nanoTime();
    peer.heardAt = now;
    peer.committed = Math.max(peer.committed, c.step() - 1);
    if (c.step() <= committed) {
      if (c.committedSet() == null) {
        // A fresh contribution to a step that is already durable here: its sender restarted from
        // a journal that ends before this step and now waits for ours. Answer at once, as to a
        // request, instead of after its retry interval. (Answers carry the committed set, so an
        // answer is never answered: no ping-pong.)
        onRequest(new ContributionRequest(run, c.step(), c.participant(), peer.ref));
      }
      return this; // already durable here
    }
    StepTrace.stamp(5, c.step());
    LocalSums[] slot = slot(c.step());
    if (slot[c.participant()] == null) {
      // how long this step waited for this peer: 0 when it came before our own publish
      peer.exchangeWait.observe(c.step() == awaitingStep ? (now - awaitingSince) / 1e9 : 0);
    }
    slot[c.participant()] = c.sums();
    if (c.committedSet() != null) {
      recordedSets.put(c.step(), c.committedSet());
    }
    maybeDeliver(c.step());
    return this;
  }

  private void maybeDeliver(long step) {
    if (step != committed + 1 || step <= delivered) {
      return;
    }
    LocalSums[] set = window.get(step);
    if (set == null) {
      return;
    }
    for (LocalSums s : set) {
      if (s == null) {
        return;
      }
    }
    LocalSums[] recorded = recordedSets.get(step);
    delivered = step;
    StepTrace.stamp(6, step);
    training.tell(
        new TrainingActor.StepReady(step, set.clone(), recorded == null ? null : recorded[me]));
  }

  private Behavior<Command> onRequest(ContributionRequest r) {
    if (!run.equals(r.run())) {
      return this;
    }
    LocalSums[] set = window.get(r.step());
    if (set != null && set[me] != null) {
      r.replyTo()
          .tell(
              new Contribution(
                  run, r.step(), me, set[me], r.step() <= committed ? set.clone() : null));
    } else if (r.step() <= committed) {
      serveFromJournal(r.step(), r.replyTo());
    }
    return this;
  }

  /**
   * Steps older than the in-memory window are read back from our own journal, with the event before
   * them: a step whose checksum fails (the serializer refuses it) or that does not link to the
   * event before it is refused, never served.
   */
  private void serveFromJournal(long step, ActorRef<Command> replyTo) {
    JdbcReadJournal journal =
        PersistenceQuery.get(getContext().getSystem())
            .getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    getContext()
        .pipeToSelf(
            journal
                .currentEventsByPersistenceId(settings.persistenceId(), step, step + 1)
                .runWith(Sink.seq(), getContext().getSystem()),
            (found, failure) -> {
              if (failure != null) {
                getContext()
                    .getLog()
                    .error(
                        "refusing to serve step {} from this node's journal: {}",
                        step,
                        failure.getMessage());
                return new JournalAnswer(step, null, replyTo);
              }
              LocalSums[] set = servedSet(step, found);
              return new JournalAnswer(step, set, replyTo);
            });
  }

  /**
   * Step {@code step}'s set from events {@code step} and {@code step + 1} (itself), if they chain.
   */
  private LocalSums[] servedSet(long step, java.util.List<EventEnvelope> found) {
    Chained before = null;
    for (EventEnvelope e : found) {
      Chained c = e.event() instanceof Chained x ? x : null;
      Object event = c != null ? c.value() : e.event();
      if (e.sequenceNr() == step + 1
          && event instanceof TrainingActor.StepCommitted s
          && s.step() == step) {
        if (c != null && before != null && !c.follows(before.hash())) {
          getContext()
              .getLog()
              .error(
                  "refusing to serve step {}: journal event #{} does not link to the event before it"
                      + " (an event removed, reordered or changed)",
                  step,
                  e.sequenceNr());
          return null;
        }
        return s.contributions();
      }
      before = c;
    }
    return null;
  }

  private Behavior<Command> onJournalAnswer(JournalAnswer a) {
    if (a.set() == null) {
      getContext()
          .getLog()
          .warn("step {} asked for by a peer is not in this node's journal", a.step());
    } else {
      a.replyTo().tell(new Contribution(run, a.step(), me, a.set()[me], a.set()));
    }
    return this;
  }

  private Behavior<Command> onCommitted(Committed c) {
    committed = c.step();
    window.put(c.step(), c.set());
    recordedSets.remove(c.step());
    while (!window.isEmpty() && window.firstKey() <= committed - settings.peerWindow()) {
      window.pollFirstEntry();
    }
    recordedSets.keySet().removeIf(s -> s <= committed);
    if (awaitingStep <= committed) {
      awaitingStep = -1;
    }
    maybeDeliver(committed + 1);
    return this;
  }

  private Behavior<Command> onDurable(Durable d) {
    boolean reachesTarget = durable < settings.targetSteps() && d.step() >= settings.targetSteps();
    durable = d.step();
    if (reachesTarget) {
      // Tell the peers at once that the target is durable here: a peer run with --exit-when-done
      // waits for this, and the periodic heartbeat alone may come after that peer has gone.
      sendProgress();
    }
    return this;
  }

  private void sendProgress() {
    Progress pr = new Progress(run, me, committed, durable);
    for (Peer peer : peers.values()) {
      peer.ref.tell(pr);
    }
  }

  private Behavior<Command> onProgress(Progress p) {
    Peer peer = peers.get(p.participant());
    if (peer != null && run.equals(p.run())) {
      peer.committed = Math.max(peer.committed, p.committed());
      peer.durable = Math.max(peer.durable, p.durable());
      peer.heardAt = System.nanoTime();
    }
    return this;
  }

  private List<Integer> missing() {
    List<Integer> out = new ArrayList<>();
    if (awaitingStep < 0) {
      return out;
    }
    LocalSums[] set = window.get(awaitingStep);
    for (int p = 0; p < participants; p++) {
      if (set == null || set[p] == null) {
        out.add(p);
      }
    }
    return out;
  }

  private Behavior<Command> onTick() {
    ticks++;
    if (awaitingStep > 0) {
      long waited = (System.nanoTime() - awaitingSince) / 1_000_000;
      if (waited >= settings.retryInterval().toMillis()) {
        for (int p : missing()) {
          Peer peer = peers.get(p);
          if (peer != null) {
            peer.ref.tell(new ContributionRequest(run, awaitingStep, me, getContext().getSelf()));
          }
        }
      }
    }
    // About once a second: a heartbeat with our committed step, and a handshake retry for peers
    // whose listing we may have seen before they could answer.
    long every = Math.max(1, 1000 / Math.max(1, settings.retryInterval().toMillis()));
    if (ticks % every == 0) {
      sendProgress();
      maybeRosterComplete();
      if (!rosterSent) {
        getContext()
            .getSystem()
            .receptionist()
            .tell(
                Receptionist.find(
                    SERVICE_KEY,
                    getContext().messageAdapter(Receptionist.Listing.class, ListingChanged::new)));
      }
    }
    return this;
  }

  private Behavior<Command> onGetView(GetView g) {
    List<PeerState> states = new ArrayList<>();
    long now = System.nanoTime();
    peers.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                states.add(
                    new PeerState(
                        e.getKey(),
                        e.getValue().ref.path().address().toString(),
                        e.getValue().committed,
                        e.getValue().durable,
                        (now - e.getValue().heardAt) / 1_000_000)));
    long waited = awaitingStep > 0 ? (now - awaitingSince) / 1_000_000 : 0;
    Refusal r =
        refusal == null
            ? null
            : new Refusal(
                refusal.reason(),
                refusal.peerCommitted(),
                committed,
                (now - firstRefusalAt) / 1_000_000);
    g.replyTo()
        .tell(new View(states, awaitingStep, missing(), waited, List.copyOf(refused), r, heldBy));
    return this;
  }
}
