package parreg.persistence;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * A minimal event-sourced behaviour for the persistence tests: each {@link Add} persists one {@link
 * Added} (numbered from 1), a snapshot every 3 events.
 */
public final class TestCounter
    extends EventSourcedBehavior<TestCounter.Command, TestCounter.Event, TestCounter.State> {

  public interface Command extends KryoSerializable {}

  public record Add(long amount, double[] values, ActorRef<Added> replyTo) implements Command {}

  public record Get(ActorRef<State> replyTo) implements Command {}

  public interface Event extends KryoSerializable {}

  public record Added(long step, long amount, double[] values) implements Event {}

  public record State(long steps, long total, double[] last) implements KryoSerializable {}

  public static Behavior<Command> create(String persistenceId) {
    return new TestCounter(PersistenceId.ofUniqueId(persistenceId));
  }

  private TestCounter(PersistenceId persistenceId) {
    super(persistenceId);
  }

  @Override
  public State emptyState() {
    return new State(0, 0, new double[0]);
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Add.class, this::onAdd)
        .onCommand(Get.class, (state, get) -> Effect().reply(get.replyTo(), state))
        .build();
  }

  private org.apache.pekko.persistence.typed.javadsl.Effect<Event, State> onAdd(
      State state, Add add) {
    Added added = new Added(state.steps() + 1, add.amount(), add.values());
    return Effect().persist(added).thenReply(add.replyTo(), s -> added);
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(
            Added.class,
            (state, e) -> new State(e.step(), state.total() + e.amount(), e.values().clone()))
        .build();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(3, 2);
  }
}
