package parreg.exchange;

import com.typesafe.config.Config;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.metrics.StartupTrace;
import parreg.metrics.StepTrace;
import parreg.persistence.KryoSerializable;
import parreg.persistence.KryoSerializer;
import parreg.settings.NodeSettings;

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
 *
 * <p>The actor handles the messages and runs the exchange; its helpers hold the other roles: {@link
 * PeerRoster} (handshake, admission, refusals, what each peer last said), {@link
 * ContributionWindow} (the sets by step, the step waited on) and {@link StepServer} (committed
 * steps for a peer catching up, from memory or the journal).
 */
public final class PeerActor extends AbstractBehavior<PeerActor.Command> {

  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "parreg-peer");

  public interface Command {}

  // ---- wire protocol (between nodes) ----

  /**
   * A message that crosses a process boundary: registered with a fixed Kryo id in {@code
   * kryo-registrations.conf} (see {@code parreg.protocol} for the journal's types).
   */
  public interface Wire extends Command, KryoSerializable {}

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
      implements Wire {}

  /**
   * One participant's contribution to a step. {@code committedSet}, when not null, is the full set
   * the sender committed for that step (served to a peer catching up, which checks its own entry).
   */
  public record Contribution(
      String run, long step, int participant, LocalSums sums, LocalSums[] committedSet)
      implements Wire {}

  /**
   * Part {@code index} of {@code count} of a contribution too large for one frame ({@link
   * ContributionParts}): {@code bytes} is that slice of the contribution's encoding, {@code
   * transfer} tells one sending of it from another.
   */
  public record ContributionPart(
      String run, long step, int participant, long transfer, int index, int count, byte[] bytes)
      implements Wire {}

  /** Asks a peer for its contribution to a step. */
  public record ContributionRequest(String run, long step, int requester, ActorRef<Command> replyTo)
      implements Wire {}

  /** Heartbeat: a participant's committed step and the last step durable in its journal. */
  public record Progress(String run, int participant, long committed, long durable)
      implements Wire {}

  // ---- local protocol (training actor, admin) ----

  /** What this actor delivers to the training actor it is attached to. */
  public interface Delivery {}

  /** Every participant's partition is known. */
  public record RosterComplete(PartitionInfo[] roster) implements Delivery {}

  /**
   * The full set of contributions to {@code step}; {@code recordedOwn} is this node's contribution
   * as a peer recorded it (when catching up), checked against ours.
   */
  public record StepReady(long step, LocalSums[] contributions, LocalSums recordedOwn)
      implements Delivery {}

  /** From the training actor after recovery: where to deliver, the recorded roster (or null). */
  public record Attach(ActorRef<Delivery> training, PartitionInfo[] roster, long committed)
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

  /**
   * The run ends at {@code step}, before its step limit (a standardized descent converged there):
   * the target the peers are told about at once. Local to the node.
   */
  public record EndsAt(long step) implements Command {}

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

  /** A step read back from this node's journal for a peer ({@link StepServer}). */
  record JournalAnswer(long step, LocalSums[] set, ActorRef<Command> replyTo) implements Command {}

  private enum Tick implements Command {
    INSTANCE
  }

  private final NodeSettings settings;
  private final int me;
  private final String run;
  private final PeerRoster roster;
  private final ContributionWindow window;
  private final StepServer server;
  private final ContributionParts parts;
  private ActorRef<Delivery> training;
  private long committed;
  private long durable;
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
    this.run = settings.contract().digest();
    this.roster = new PeerRoster(ctx, settings, a.roster());
    this.window =
        new ContributionWindow(me, settings.contract().participants(), settings.peerWindow());
    this.parts = parts(ctx);
    this.server = new StepServer(ctx, settings, window, parts);
    this.training = a.training();
    this.committed = a.committed();
    this.durable = a.committed();
    maybeRosterComplete();
  }

  /**
   * Large contributions in parts of {@code parreg.peer.part-bytes}, encoded by the serializer the
   * wire uses (so a part's bytes are exactly what one whole message would carry).
   */
  private static ContributionParts parts(ActorContext<Command> ctx) {
    Config config = ctx.getSystem().settings().config();
    long partBytes = config.hasPath(PART_BYTES) ? config.getBytes(PART_BYTES) : DEFAULT_PART_BYTES;
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(ctx.getSystem()));
    return new ContributionParts(
        (int) Math.min(Integer.MAX_VALUE, partBytes),
        c -> serialization.serialize(c).get(),
        bytes ->
            (Contribution) serialization.deserialize(bytes, KryoSerializer.IDENTIFIER, "").get());
  }

  static final String PART_BYTES = "parreg.peer.part-bytes";
  static final long DEFAULT_PART_BYTES = 1L << 20;

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Attach.class, this::onReattach)
        .onMessage(ListingChanged.class, this::onListing)
        .onMessage(Hello.class, this::onHello)
        .onMessage(Publish.class, this::onPublish)
        .onMessage(Contribution.class, this::onContribution)
        .onMessage(ContributionPart.class, this::onPart)
        .onMessage(ContributionRequest.class, this::onRequest)
        .onMessage(JournalAnswer.class, this::onJournalAnswer)
        .onMessage(Committed.class, this::onCommitted)
        .onMessage(Durable.class, this::onDurable)
        .onMessage(EndsAt.class, this::onEndsAt)
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

  private Behavior<Command> onListing(ListingChanged l) {
    roster.greet(l.listing(), committed);
    return this;
  }

  private Behavior<Command> onHello(Hello h) {
    PeerRoster.Admission admission = roster.admit(h, committed);
    if (admission == PeerRoster.Admission.REFUSED) {
      return this;
    }
    if (admission == PeerRoster.Admission.NEW) {
      // What this node has committed and made durable, at once: a peer whose run is done exits as
      // soon as it knows every participant's target is durable, and may not wait for a heartbeat.
      h.from().tell(new Progress(run, me, committed, durable));
    }
    long awaiting = window.awaitingStep();
    if (admission == PeerRoster.Admission.NEW && awaiting > 0 && window.own(awaiting) != null) {
      // A peer that (re)joined may have missed our contribution to the step we wait on.
      parts.send(
          h.from(),
          new Contribution(run, awaiting, me, window.own(awaiting), null),
          System.nanoTime());
    }
    maybeRosterComplete();
    return this;
  }

  private void maybeRosterComplete() {
    if (rosterSent) {
      return;
    }
    PartitionInfo[] complete = roster.complete();
    if (complete != null) {
      rosterSent = true;
      training.tell(new RosterComplete(complete));
    }
  }

  private Behavior<Command> onPublish(Publish p) {
    StepTrace.stamp(4, p.step());
    window.publish(p.step(), p.sums(), System.nanoTime());
    StartupTrace.once("first own contribution published");
    parts.sendAll(
        roster.refs(), new Contribution(run, p.step(), me, p.sums(), null), System.nanoTime());
    maybeDeliver(p.step());
    return this;
  }

  private Behavior<Command> onContribution(Contribution c) {
    if (!run.equals(c.run())) {
      roster.refuse(
          "contribution for another run ("
              + c.run().substring(0, 12)
              + "...) from participant "
              + c.participant()
              + " ignored");
      return this;
    }
    StartupTrace.once("first peer contribution received");
    PeerRoster.Peer peer = roster.get(c.participant());
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
    double waited = window.put(c.step(), c.participant(), c.sums(), c.committedSet(), now);
    if (!Double.isNaN(waited)) {
      // how long this step waited for this peer: 0 when it came before our own publish
      peer.exchangeWait.observe(waited);
    }
    maybeDeliver(c.step());
    return this;
  }

  private Behavior<Command> onPart(ContributionPart p) {
    if (!run.equals(p.run())) {
      return this; // its whole contribution would be refused, naming the run
    }
    PeerRoster.Peer peer = roster.get(p.participant());
    long now = System.nanoTime();
    if (peer != null) {
      peer.heardAt = now;
    }
    if (p.step() <= committed && peer != null) {
      return this; // nothing to wait for; a fresh one was answered when its first part was whole
    }
    Contribution whole = parts.receive(p, now);
    return whole == null ? this : onContribution(whole);
  }

  private void maybeDeliver(long step) {
    if (step != committed + 1 || step <= delivered) {
      return;
    }
    LocalSums[] set = window.complete(step);
    if (set == null) {
      return;
    }
    delivered = step;
    StepTrace.stamp(6, step);
    training.tell(new StepReady(step, set.clone(), window.recordedOwn(step)));
  }

  private Behavior<Command> onRequest(ContributionRequest r) {
    if (run.equals(r.run()) && !parts.recentlySent(r.replyTo(), r.step(), System.nanoTime())) {
      server.serve(r, committed);
    }
    return this;
  }

  private Behavior<Command> onJournalAnswer(JournalAnswer a) {
    server.answer(a);
    return this;
  }

  private Behavior<Command> onCommitted(Committed c) {
    committed = c.step();
    window.committed(c.step(), c.set());
    parts.dropUpTo(c.step());
    maybeDeliver(committed + 1);
    return this;
  }

  /** The step the run ends at: the step limit, or an earlier one ({@link EndsAt}). */
  private long endStep = Long.MAX_VALUE;

  private Behavior<Command> onEndsAt(EndsAt e) {
    long target = Math.min(settings.targetSteps(), endStep);
    endStep = e.step();
    if (durable < target && durable >= e.step()) {
      sendProgress();
    }
    return this;
  }

  private Behavior<Command> onDurable(Durable d) {
    long target = Math.min(settings.targetSteps(), endStep);
    boolean reachesTarget = durable < target && d.step() >= target;
    durable = d.step();
    if (reachesTarget) {
      // Tell the peers at once that the target is durable here: a peer run with --exit-when-done
      // waits for this, and the periodic heartbeat alone may come after that peer has gone.
      sendProgress();
    }
    return this;
  }

  private void sendProgress() {
    roster.tellAll(new Progress(run, me, committed, durable));
  }

  private Behavior<Command> onProgress(Progress p) {
    if (run.equals(p.run())) {
      roster.heard(p);
    }
    return this;
  }

  private Behavior<Command> onTick() {
    ticks++;
    long awaiting = window.awaitingStep();
    if (awaiting > 0
        && window.waitedMillis(System.nanoTime()) >= settings.retryInterval().toMillis()) {
      long now = System.nanoTime();
      for (int p : window.missing()) {
        PeerRoster.Peer peer = roster.get(p);
        if (peer != null && !parts.arriving(p, awaiting, now)) {
          peer.ref.tell(new ContributionRequest(run, awaiting, me, getContext().getSelf()));
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
    long now = System.nanoTime();
    g.replyTo()
        .tell(
            new View(
                roster.states(now),
                window.awaitingStep(),
                window.missing(),
                window.waitedMillis(now),
                roster.refused(),
                roster.refusal(committed, now),
                roster.heldBy()));
    return this;
  }
}
