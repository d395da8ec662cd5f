// Floor of the product's persist path (BENCHMARKS.md, "Seed run"): one ActorSystem with the node's
// own configuration (application.conf from parreg.jar: persistence.conf, serialization,
// dispatchers; the journal's database keys from JournalLocation, as `parreg node --journal DIR`
// builds them) but a local actor provider (no cluster, no remoting), the journal prepared as a node
// prepares it (JournalSchema on one H2 connection that stays open), and one typed
// EventSourcedBehavior that persists the seed run's StepCommitted events (Kryo, ~60 bytes) strictly
// one after another: the next persist is issued from the previous one's thenRun, as the training
// actor does. Snapshots every 100 events, two kept, as the training actor (TrainingState of the
// seed run) unless "nosnap".
//
// usage: java -cp 'target/parreg.jar:target/lib/*' scripts/bench/java/PersistFloor.java DIR N [PAYLOAD [snap|nosnap [URL_SETTINGS]]]
//   PAYLOAD: schema (default: the tables as JournalSchema creates them), blob or varbinary
//   (the H2 tables created first from JournalSchema's DDL with every payload column of that type;
//   JournalSchema then only checks them). Three rounds of N persists; prints persists/s and the
//   process CPU per persist (all threads: actors, Slick, H2, JIT, GC) of each round.
//   URL_SETTINGS: H2 settings appended to the journal's URL, e.g. ";PAGE_SIZE=4096" (the journal is
//   then given to JournalLocation as jdbc:h2:file:DIR/journal;DB_CLOSE_ON_EXIT=FALSE...).
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import parreg.settings.NodeSettings;
import parreg.training.TrainingActor.StepCommitted;
import parreg.training.TrainingState;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.persistence.JournalDialect;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalSchema;

public class PersistFloor {
  sealed interface Cmd {}
  record Run(int n, ActorRef<Long> done) implements Cmd {}
  enum Next implements Cmd { INSTANCE }

  static final RunContract CONTRACT = RunContract.seed(2, 0);

  static final class Writer extends EventSourcedBehavior<Cmd, StepCommitted, TrainingState> {
    final ActorContext<Cmd> ctx; final boolean snapshots;
    int left; ActorRef<Long> done;
    Writer(ActorContext<Cmd> ctx, String pid, boolean snapshots) {
      super(PersistenceId.ofUniqueId(pid)); this.ctx = ctx; this.snapshots = snapshots;
    }
    @Override public TrainingState emptyState() {
      return new TrainingState(CONTRACT, new PartitionInfo[] {new PartitionInfo(0, "d0", 1, 1), new PartitionInfo(1, "d1", 2, 1)},
          0, CONTRACT.initialWeights(), Double.NaN);
    }
    @Override public RetentionCriteria retentionCriteria() {
      return snapshots ? RetentionCriteria.snapshotEvery(100, 2) : RetentionCriteria.disabled();
    }
    @Override public CommandHandler<Cmd, StepCommitted, TrainingState> commandHandler() {
      return newCommandHandlerBuilder().forAnyState()
          .onCommand(Run.class, (s, r) -> { left = r.n(); done = r.done(); return step(s); })
          .onCommand(Next.class, (s, n) -> step(s))
          .build();
    }
    Effect<StepCommitted, TrainingState> step(TrainingState s) {
      if (left == 0) { done.tell(s.committed()); return Effect().none(); }
      left--;
      long k = s.committed() + 1;
      double w = s.parameters()[0] * 0.75 + 1e-3 * (k % 7);
      StepCommitted e = new StepCommitted(k,
          new LocalSums[] {new LocalSums(new double[] {w * 0.5}, w * w, 1), new LocalSums(new double[] {w * 1.5}, 2 * w * w, 2)},
          new double[] {w}, w * w / 3);
      return Effect().persist(e).thenRun(t -> ctx.getSelf().tell(Next.INSTANCE));
    }
    @Override public EventHandler<TrainingState, StepCommitted> eventHandler() {
      return newEventHandlerBuilder().forAnyState()
          .onEvent(StepCommitted.class, (s, e) -> new TrainingState(s.contract(), s.roster(), e.step(), e.parameters(), e.loss()))
          .build();
    }
  }

  public static void main(String[] a) throws Exception {
    String dir = a[0]; int n = Integer.parseInt(a[1]);
    String payload = a.length > 2 ? a[2] : "schema";
    boolean snapshots = !(a.length > 3 && a[3].equals("nosnap"));
    java.nio.file.Path d = java.nio.file.Path.of(dir);
    if (java.nio.file.Files.exists(d)) {
      try (var files = java.nio.file.Files.list(d)) { for (var f : files.toList()) java.nio.file.Files.delete(f); }
    }
    String urlSettings = a.length > 4 ? a[4] : "";
    JournalLocation location = urlSettings.isEmpty() ? JournalLocation.parse(dir)
        : JournalLocation.parse("jdbc:h2:file:" + d.toAbsolutePath().resolve(JournalLocation.H2_DATABASE_NAME) + ";DB_CLOSE_ON_EXIT=FALSE" + urlSettings);
    Connection keeper = location.openConnection(); // kept open, as JournalSetup does for a node
    if (!payload.equals("schema")) {
      String type = switch (payload) { case "blob" -> "BLOB"; case "varbinary" -> "VARBINARY"; default -> throw new IllegalArgumentException(payload); };
      try (Statement st = keeper.createStatement()) {
        for (String sql : JournalSchema.statements(JournalDialect.H2)) st.execute(sql.replaceAll("\\b(BLOB|VARBINARY|BINARY VARYING)(\\(\\d+\\))?", type));
      }
    }
    JournalSchema.createIfNotExists(keeper, JournalDialect.H2);
    StringBuilder types = new StringBuilder();
    try (Statement st = keeper.createStatement(); ResultSet rs = st.executeQuery(
        "SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS WHERE COLUMN_NAME IN ('event_payload','snapshot_payload')")) {
      while (rs.next()) types.append(rs.getString(1)).append('.').append(rs.getString(2)).append(' ').append(rs.getString(3)).append("; ");
    }
    Config cfg = ConfigFactory.parseString("pekko.actor.provider = local\npekko.loglevel = WARNING\n")
        .withFallback(location.databaseConfig())
        .withFallback(ConfigFactory.load())
        .resolve();
    String pid = NodeSettings.persistenceId(CONTRACT, 0);
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ActorSystem<Cmd> system = ActorSystem.create(
        Behaviors.setup(ctx -> new Writer(ctx, pid, snapshots)), "PersistFloor", cfg);
    try {
      for (int round = 0; round < 3; round++) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        ActorRef<Long> reply = system.systemActorOf(Behaviors.receiveMessage(m -> { done.complete(m); return Behaviors.stopped(); }),
            "reply-" + round, org.apache.pekko.actor.typed.Props.empty());
        long t0 = System.nanoTime(); long c0 = os.getProcessCpuTime();
        system.tell(new Run(n, reply));
        long last = done.get(600, TimeUnit.SECONDS);
        long dt = System.nanoTime() - t0; long dc = os.getProcessCpuTime() - c0;
        System.out.printf("round %d: %d persists (to seq %d) in %.1f ms => %.0f persists/s, %.3f ms each, process cpu %.0f us each%n",
            round, n, last, dt / 1e6, n * 1e9 / dt, dt / 1e6 / n, dc / 1e3 / n);
      }
      System.out.println("payload columns: " + types + "snapshots " + (snapshots ? "every 100, 2 kept" : "off") + "; " + location.jdbcUrl());
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      keeper.close();
    }
  }
}
