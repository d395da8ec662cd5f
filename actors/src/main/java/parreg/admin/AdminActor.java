package parreg.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;
import parreg.cluster.Membership;
import parreg.device.Bits;
import parreg.exchange.PeerActor;
import parreg.gpu.GpuActor;
import parreg.persistence.KryoSerializable;
import parreg.training.TrainingActor;
import parreg.training.ValidationActor;

/**
 * Answers state queries (SPEC section 3): asks the training, GPU and peer actors, adds the
 * cluster's members and their reachability, and replies with one {@link Status}.
 */
public final class AdminActor extends AbstractBehavior<AdminActor.Command> {

  public static final String NAME = "admin";

  public interface Command {}

  public record GetStatus(ActorRef<Status> replyTo) implements Command {}

  /**
   * {@link GetStatus} from another node ({@code status --cluster}, {@link ClusterStatus}): the
   * answer is the status as JSON text, the same document {@code /status} serves, so that it crosses
   * the wire as one string rather than as a dozen registered classes.
   */
  public record GetStatusJson(ActorRef<StatusJson> replyTo) implements Command, KryoSerializable {}

  public record StatusJson(String json) implements KryoSerializable {}

  /** Every node's admin actor registers under this key; {@link ClusterStatus} finds them by it. */
  public static final ServiceKey<Command> SERVICE_KEY =
      ServiceKey.create(Command.class, "parreg-admin");

  /** A member of the cluster as this node sees it. */
  public record MemberState(String address, String status, boolean reachable, List<String> roles) {}

  /**
   * The node's whole state; field names are the JSON of {@code parreg status --json}. {@code
   * address} is the node's own cluster address, as its peers see it. {@code startedAt}: when this
   * node (this incarnation) started, its journal replayed, ISO-8601 UTC; {@code stepsPerSecond}:
   * committed steps per second over the last rate interval ({@code parreg.progress-interval}), null
   * before the first; {@code etaSeconds}: time to the target at that rate, 0 once reached, null
   * while unknown (no rate yet, or no step in the last interval). {@code validationRmse}, {@code
   * validationR2}: hold-out RMSE and R² ({@code node --validation}) of the parameters of committed
   * step {@code validationStep}; null without a validation file, before the first evaluation, and
   * (R²) when every hold-out target is the same. {@code membership}: in one line, members being
   * downed or downed and waited for, or this node removed from the cluster or rejoining it ({@link
   * Membership}); null while none is. {@code precision}: the precision the run's data are held in,
   * {@code f32} or {@code f64} (from the contract's numerical policy).
   */
  public record Status(
      int participant,
      String address,
      long committedStep,
      long durableStep,
      long recoveredStep,
      long targetSteps,
      long epoch,
      long batches,
      int batchesPerEpoch,
      double[] weights,
      String[] weightBits,
      Double loss,
      String lossBits,
      String state,
      String startedAt,
      Double stepsPerSecond,
      Double etaSeconds,
      String backend,
      Map<String, String> device,
      Map<String, Object> launches,
      List<MemberState> members,
      String membership,
      List<PeerActor.PeerState> peers,
      List<Integer> waitingFor,
      long waitingMillis,
      List<String> refusedPeers,
      Map<String, Object> journal,
      Map<String, String> contract,
      String contractDigest,
      String precision,
      Double validationRmse,
      Double validationR2,
      Long validationStep,
      Map<String, Object> summary) {}

  private static final Duration ASK = Duration.ofSeconds(3);

  private final ActorRef<TrainingActor.Command> training;
  private final ActorRef<GpuActor.Command> gpu;
  private final ActorRef<PeerActor.Command> peer;
  private final ActorRef<ValidationActor.Command> validation;

  public static Behavior<Command> create(
      ActorRef<TrainingActor.Command> training,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer) {
    return create(training, gpu, peer, null);
  }

  /**
   * @param validation the hold-out evaluation, or null when the node has none
   */
  public static Behavior<Command> create(
      ActorRef<TrainingActor.Command> training,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<ValidationActor.Command> validation) {
    return Behaviors.setup(
        ctx -> {
          ctx.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, ctx.getSelf()));
          return new AdminActor(ctx, training, gpu, peer, validation);
        });
  }

  private AdminActor(
      ActorContext<Command> ctx,
      ActorRef<TrainingActor.Command> training,
      ActorRef<GpuActor.Command> gpu,
      ActorRef<PeerActor.Command> peer,
      ActorRef<ValidationActor.Command> validation) {
    super(ctx);
    this.training = training;
    this.gpu = gpu;
    this.peer = peer;
    this.validation = validation;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(GetStatus.class, g -> onGetStatus(g.replyTo()::tell))
        .onMessage(
            GetStatusJson.class,
            g ->
                onGetStatus(
                    s -> {
                      try {
                        g.replyTo()
                            .tell(new StatusJson(AdminHttpServer.JSON.writeValueAsString(s)));
                      } catch (JsonProcessingException e) {
                        getContext()
                            .getLog()
                            .warn("status could not be written as JSON: {}", e.toString());
                      }
                    }))
        .build();
  }

  private Behavior<Command> onGetStatus(Consumer<Status> replyTo) {
    var system = getContext().getSystem();
    List<MemberState> members = new ArrayList<>();
    var cs = Cluster.get(system).state();
    java.util.Set<Member> unreachable = new java.util.HashSet<>();
    cs.getUnreachable().forEach(unreachable::add);
    for (Member m : cs.getMembers()) {
      members.add(
          new MemberState(
              m.address().toString(),
              m.status().toString(),
              !unreachable.contains(m),
              new ArrayList<>(m.getRoles())));
    }
    CompletionStage<TrainingActor.View> t =
        AskPattern.ask(training, TrainingActor.GetState::new, ASK, system.scheduler());
    CompletionStage<GpuActor.Telemetry> d =
        AskPattern.ask(gpu, GpuActor.GetTelemetry::new, ASK, system.scheduler());
    CompletionStage<PeerActor.View> p =
        AskPattern.ask(peer, PeerActor.GetView::new, ASK, system.scheduler());
    CompletableFuture<TrainingActor.View> tf = t.toCompletableFuture();
    CompletableFuture<GpuActor.Telemetry> df = d.toCompletableFuture();
    CompletableFuture<PeerActor.View> pf = p.toCompletableFuture();
    CompletableFuture<ValidationActor.Result> vf =
        validation == null
            ? CompletableFuture.completedFuture(ValidationActor.Result.NONE)
            : AskPattern.<ValidationActor.Command, ValidationActor.Result>ask(
                    validation, ValidationActor.GetResult::new, ASK, system.scheduler())
                .toCompletableFuture();
    CompletableFuture.allOf(tf, df, pf, vf)
        .whenComplete(
            (ok, failure) -> {
              if (failure == null) {
                replyTo.accept(
                    compose(
                        system.address().toString(),
                        tf.join(),
                        df.join(),
                        pf.join(),
                        members,
                        Membership.get(system).line(),
                        vf.join()));
              } else {
                getContext().getLog().warn("status query failed: {}", failure.toString());
              }
            });
    return this;
  }

  /**
   * Whom this node waits for: the participants whose contribution to the step in flight is missing,
   * or, before the run can start, every participant not admitted yet (a node started alone waits
   * for all the others).
   */
  static List<Integer> waitingFor(
      TrainingActor.Phase phase, PeerActor.View p, int participants, int me) {
    if (phase != TrainingActor.Phase.STARTING) {
      return p.waitingFor();
    }
    java.util.Set<Integer> admitted = new java.util.HashSet<>();
    p.peers().forEach(s -> admitted.add(s.participant()));
    List<Integer> missing = new ArrayList<>();
    for (int q = 0; q < participants; q++) {
      if (q != me && !admitted.contains(q)) {
        missing.add(q);
      }
    }
    return missing;
  }

  static Status compose(
      String address,
      TrainingActor.View t,
      GpuActor.Telemetry d,
      PeerActor.View p,
      List<MemberState> members,
      String membership,
      ValidationActor.Result v) {
    Map<String, String> device = new LinkedHashMap<>();
    device.put("name", d.info().deviceName());
    device.put("uuid", d.info().deviceUuid());
    device.put("detail", d.info().detail());
    device.put("selection", d.selection());
    Map<String, Object> launches = new LinkedHashMap<>();
    launches.put("issued", d.launchesIssued());
    launches.put("retired", d.launchesRetired());
    launches.put("lastFenceWaitMillis", d.lastFenceWaitMillis());
    launches.put("maxFenceWaitMillis", d.maxFenceWaitMillis());
    launches.put("totalFenceWaitMillis", d.totalFenceWaitMillis());
    launches.put(
        "lastDeviceMillis", Double.isNaN(d.lastDeviceMillis()) ? null : d.lastDeviceMillis());
    launches.put("lastStep", d.lastStep());
    launches.put("lastResultBits", d.lastResultBits());
    Map<String, Object> journal = new LinkedHashMap<>();
    journal.put("location", t.journal());
    journal.put("position", t.journalPosition());
    journal.put("lastSnapshot", t.lastSnapshot());
    journal.put("stepsNotDurable", t.journalLag());
    journal.put("writes", t.journalWrites());
    String state = t.phase().label();
    if (t.phase() == TrainingActor.Phase.TRAINING
        && !p.waitingFor().isEmpty()
        && p.waitingMillis() > 1000) {
      state = TrainingActor.Phase.WAITING.label();
    }
    return new Status(
        t.participant(),
        address,
        t.committedStep(),
        t.durableStep(),
        t.recoveredStep(),
        t.targetSteps(),
        t.epoch(),
        t.batches(),
        t.batchesPerEpoch(),
        t.parameters(),
        Bits.hex(t.parameters()),
        Double.isNaN(t.loss()) ? null : t.loss(),
        Double.isNaN(t.loss()) ? null : Bits.hex(t.loss()),
        state,
        java.time.Instant.ofEpochMilli(t.startedAtMillis()).toString(),
        Double.isNaN(t.stepsPerSecond()) ? null : t.stepsPerSecond(),
        Double.isNaN(t.etaSeconds()) ? null : t.etaSeconds(),
        d.info().backend(),
        device,
        launches,
        members,
        membership,
        p.peers(),
        waitingFor(t.phase(), p, t.contract().participants(), t.participant()),
        t.phase() == TrainingActor.Phase.STARTING
            ? Math.max(0, System.currentTimeMillis() - t.startedAtMillis())
            : p.waitingMillis(),
        p.refused(),
        journal,
        t.contract().fields(),
        t.contract().digest(),
        t.contract().precision().flag(),
        v.step() < 0 ? null : v.rmse(),
        v.step() < 0 || Double.isNaN(v.r2()) ? null : v.r2(),
        v.step() < 0 ? null : v.step(),
        t.summary());
  }
}
