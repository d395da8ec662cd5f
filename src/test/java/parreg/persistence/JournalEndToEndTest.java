package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real EventSourcedBehavior through pekko-persistence-jdbc with parreg's configuration and
 * KryoSerializer: persists, recovers in a new ActorSystem, and the rows read back with plain JDBC.
 */
class JournalEndToEndTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  @TempDir Path tmp;

  static Config config(JournalLocation location) {
    return location
        .persistenceConfig()
        .withFallback(ConfigFactory.parseResources("persistence-test.conf"))
        .resolve();
  }

  @Test
  void h2JournalSurvivesRestartAndReadsBackWithPlainJdbc() throws Exception {
    scenario(JournalLocation.parse(tmp.resolve("journal").toString()));
  }

  @Test
  void postgresJournalSurvivesRestartAndReadsBackWithPlainJdbc() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip()) {
      scenario(db.location());
    }
  }

  private void scenario(JournalLocation location) throws Exception {
    location.createSchema();
    Config config = config(location);
    String pid = "test-counter|" + UUID.randomUUID();

    // First life: five steps.
    ActorTestKit first = ActorTestKit.create("persist-1", config);
    try {
      assertActorRefsTravel(first);
      ActorRef<TestCounter.Command> counter = first.spawn(TestCounter.create(pid));
      TestProbe<TestCounter.Added> acks = first.createTestProbe();
      for (int i = 1; i <= 5; i++) {
        counter.tell(new TestCounter.Add(i, new double[] {i, -0.0, 1.0 / i}, acks.ref()));
        assertEquals(i, acks.receiveMessage(WAIT).step());
      }
    } finally {
      first.shutdownTestKit();
    }

    KryoCodec codec = KryoCodec.fromConfig(config); // no ActorSystem, as the CLI
    try (Connection c = location.openExistingConnection()) {
      JournalRows rows = new JournalRows(c, codec);
      assertEquals(5, rows.countEvents(pid));
      assertEquals(Map.of(pid, 5L), rows.countEventsPerPersistenceId());
      assertEquals(5, rows.highestSequenceNr(pid));

      var snapshot = rows.latestSnapshot(pid).orElseThrow();
      assertEquals(3, snapshot.sequenceNr());
      TestCounter.State state = assertInstanceOf(TestCounter.State.class, snapshot.snapshot());
      assertEquals(3, state.steps());
      assertEquals(6, state.total());

      List<JournalRows.EventRow> after = rows.eventsAfter(pid, snapshot.sequenceNr());
      assertEquals(List.of(4L, 5L), after.stream().map(JournalRows.EventRow::sequenceNr).toList());
      TestCounter.Added fifth = (TestCounter.Added) after.get(1).event();
      assertEquals(5, fifth.step());
      assertArrayEquals(new double[] {5, -0.0, 1.0 / 5}, fifth.values());
      assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(fifth.values()[1]));
      assertEquals(5, rows.eventsAfter(pid, 0).size());

      // What the plugin wrote: our serializer id, no manifest.
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT DISTINCT \"event_ser_id\", \"event_ser_manifest\" FROM \"event_journal\"")) {
        assertTrue(rs.next());
        assertEquals(KryoSerializer.IDENTIFIER, rs.getInt(1));
        assertEquals("", rs.getString(2));
        assertTrue(!rs.next());
      }
    }

    // Second life: recovery from snapshot 3 and events 4..5, then one more step.
    ActorTestKit second = ActorTestKit.create("persist-2", config);
    try {
      ActorRef<TestCounter.Command> counter = second.spawn(TestCounter.create(pid));
      TestProbe<TestCounter.State> states = second.createTestProbe();
      counter.tell(new TestCounter.Get(states.ref()));
      TestCounter.State recovered = states.receiveMessage(WAIT);
      assertEquals(5, recovered.steps());
      assertEquals(15, recovered.total());
      TestProbe<TestCounter.Added> acks = second.createTestProbe();
      counter.tell(new TestCounter.Add(6, new double[] {6}, acks.ref()));
      assertEquals(6, acks.receiveMessage(WAIT).step());
    } finally {
      second.shutdownTestKit();
    }

    try (Connection c = location.openExistingConnection()) {
      JournalRows rows = new JournalRows(c, codec);
      List<JournalRows.EventRow> all = rows.eventsAfter(pid, 0);
      assertEquals(
          List.of(1L, 2L, 3L, 4L, 5L, 6L),
          all.stream().map(JournalRows.EventRow::sequenceNr).toList());
      for (JournalRows.EventRow row : all) {
        assertEquals(
            row.sequenceNr(),
            ((TestCounter.Added) row.event()).step(),
            "step journaled once, in order");
      }
      assertEquals(6, rows.latestSnapshot(pid).orElseThrow().sequenceNr());
    }
  }

  /** Messages holding typed ActorRefs go through KryoSerializer and resolve back. */
  private static void assertActorRefsTravel(ActorTestKit kit) throws Exception {
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(kit.system()));
    TestProbe<TestCounter.Added> probe = kit.createTestProbe();
    TestCounter.Add add = new TestCounter.Add(1, new double[] {0.5}, probe.ref());
    Serializer serializer = serialization.findSerializerFor(add);
    assertInstanceOf(KryoSerializer.class, serializer);
    assertEquals(KryoSerializer.IDENTIFIER, serializer.identifier());
    TestCounter.Add back =
        (TestCounter.Add)
            serialization.deserialize(serializer.toBinary(add), serializer.identifier(), "").get();
    assertEquals(probe.ref(), back.replyTo());
    assertArrayEquals(add.values(), back.values());
    back.replyTo().tell(new TestCounter.Added(9, 9, new double[0]));
    assertEquals(9, probe.receiveMessage().step());
    assertSame(serializer, serialization.serializerFor(TestCounter.State.class));
  }
}
