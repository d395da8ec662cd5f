package parreg.training;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import parreg.device.Partition;
import parreg.device.RegressionMetrics;
import parreg.device.UpdateRule;
import parreg.metrics.NodeMetrics;

/**
 * Hold-out evaluation ({@code node --validation FILE}): RMSE and R² of the committed parameters on
 * a validation set, every {@code every} committed steps (and at the target step), off the step
 * path. The training actor only hands over the parameters of those steps (a reference to an array
 * it never changes, {@link TrainingActor.WatchCommits}); the rows are walked on {@value
 * #DISPATCHER}, a thread of its own, so neither the training actor nor the device thread waits for
 * it. While one evaluation runs, only the newest request waits (older ones are dropped): a slow
 * evaluation lowers its own rate, never the step rate.
 *
 * <p>The numbers are those of {@code parreg evaluate} on the same file at that step, to the bit:
 * each row's binary32 values widened to binary64, {@link UpdateRule#predict}, {@link
 * RegressionMetrics} in row order.
 */
public final class ValidationActor extends AbstractBehavior<ValidationActor.Command> {
  public static final String DISPATCHER = "parreg.validation-dispatcher";

  public interface Command {}

  public record GetResult(ActorRef<Result> replyTo) implements Command {}

  /**
   * The latest evaluation: at committed step {@code step} (-1: none yet), over {@code n} rows;
   * {@code r2} is NaN when every target is the same.
   */
  public record Result(long step, long n, double rmse, double r2) {
    public static final Result NONE = new Result(-1, 0, Double.NaN, Double.NaN);
  }

  private record Step(TrainingActor.CommittedParameters committed) implements Command {}

  private record Done(Result result) implements Command {}

  private final Partition data;
  private final boolean bias;
  private final Executor executor;
  private Result latest = Result.NONE;
  private boolean running;
  private TrainingActor.CommittedParameters waiting;

  /**
   * @param data the validation rows (the model's d features)
   * @param every evaluate at the committed steps that are multiples of this, and at the target
   */
  public static Behavior<Command> create(
      Partition data, boolean bias, long every, ActorRef<TrainingActor.Command> training) {
    return Behaviors.setup(
        ctx -> {
          training.tell(
              new TrainingActor.WatchCommits(
                  every, ctx.messageAdapter(TrainingActor.CommittedParameters.class, Step::new)));
          return new ValidationActor(ctx, data, bias);
        });
  }

  private ValidationActor(ActorContext<Command> ctx, Partition data, boolean bias) {
    super(ctx);
    this.data = data;
    this.bias = bias;
    this.executor = ctx.getSystem().dispatchers().lookup(DispatcherSelector.fromConfig(DISPATCHER));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(
            Step.class,
            s -> {
              if (running) {
                waiting = s.committed();
              } else {
                start(s.committed());
              }
              return this;
            })
        .onMessage(
            Done.class,
            d -> {
              running = false;
              if (d.result().step() > latest.step()) {
                if (latest.step() < 0) {
                  getContext()
                      .getLog()
                      .info(
                          "validation: first hold-out evaluation at step {}: RMSE {}, R2 {} over {} rows",
                          d.result().step(),
                          d.result().rmse(),
                          d.result().r2(),
                          d.result().n());
                }
                latest = d.result();
                NodeMetrics.get(getContext().getSystem())
                    .validated(latest.step(), latest.rmse(), latest.r2());
              }
              if (waiting != null) {
                TrainingActor.CommittedParameters next = waiting;
                waiting = null;
                start(next);
              }
              return this;
            })
        .onMessage(
            GetResult.class,
            g -> {
              g.replyTo().tell(latest);
              return this;
            })
        .build();
  }

  private void start(TrainingActor.CommittedParameters c) {
    running = true;
    ActorRef<Command> self = getContext().getSelf();
    CompletableFuture.supplyAsync(() -> evaluate(data, c.parameters(), bias, c.step()), executor)
        .whenComplete((r, failure) -> self.tell(new Done(failure == null ? r : Result.NONE)));
  }

  /**
   * RMSE and R² of {@code parameters} on {@code data}, as {@code parreg evaluate} computes them.
   */
  public static Result evaluate(Partition data, double[] parameters, boolean bias, long step) {
    int n = data.samples();
    int d = data.features();
    float[] x = data.featureMajor();
    float[] y = data.targets();
    double[] row = new double[d];
    RegressionMetrics m = new RegressionMetrics();
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < d; j++) {
        row[j] = x[j * n + i];
      }
      m.add(y[i], UpdateRule.predict(parameters, bias, row));
    }
    return new Result(step, m.n(), m.rmse(), m.r2());
  }
}
