package parreg.training;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import parreg.admin.AdminActor;
import parreg.device.LocalSums;
import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.device.SeedData;
import parreg.exchange.PeerActor;
import parreg.gpu.GpuActor;
import parreg.persistence.KryoCodec;
import parreg.persistence.KryoCodecException;
import parreg.persistence.KryoSerializable;
import parreg.persistence.KryoSerializer;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;

/**
 * Every message, event and snapshot type goes through the one Kryo serializer and comes back equal.
 */
class ProtocolSerializationTest {
  static ActorTestKit kit;

  @BeforeAll
  static void start() {
    kit =
        ActorTestKit.create(
            "ser",
            ConfigFactory.parseString("pekko.actor.provider = local")
                .withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  static final LocalSums A = new LocalSums(new double[] {3.0, -0.0, Double.MIN_VALUE}, 4.5, 1);
  static final LocalSums B =
      new LocalSums(new double[] {15.0, Math.scalb(1.0, -149), 0.0}, 22.5, 2);
  static final RunContract C = RunContract.seed(2, 0);
  static final PartitionInfo[] ROSTER = {
    SeedData.partition(0).info(0), SeedData.partition(1).info(1)
  };

  List<Object> samples(TestProbe<PeerActor.Command> probe) {
    return List.of(
        C,
        ROSTER[0],
        ROSTER,
        A,
        new LocalSums[] {A, B},
        new TrainingState(C, ROSTER, 7, new double[] {0.5}, 0.25),
        TrainingState.empty(),
        new RunStarted(C, ROSTER),
        new StepCommitted(7, new LocalSums[] {A, B}, new double[] {0.5}, 0.25),
        new PeerActor.Hello(C, ROSTER[1], 12, 400, probe.getRef(), true),
        new PeerActor.Contribution(C.digest(), 8, 1, B, null),
        new PeerActor.Contribution(C.digest(), 8, 1, B, new LocalSums[] {A, B}),
        new PeerActor.ContributionRequest(C.digest(), 8, 0, probe.getRef()),
        new PeerActor.Progress(C.digest(), 1, 200, 180));
  }

  @Test
  void everyTypeRoundTripsThroughTheBoundSerializer() throws Exception {
    Serialization ser = SerializationExtension.get(kit.system());
    TestProbe<PeerActor.Command> probe = kit.createTestProbe();
    KryoSerializer kryo = null;
    for (Object o : samples(probe)) {
      if (!(o instanceof KryoSerializable)) {
        // Values nested inside messages (contract, sums, roster) go through the same codec.
        kryo = kryo != null ? kryo : (KryoSerializer) ser.serializerFor(TrainingState.class);
        assertEquals(
            describe(o),
            describe(kryo.codec().decode(kryo.codec().encode(o))),
            o.getClass().getName());
        continue;
      }
      Serializer s = ser.findSerializerFor(o);
      assertTrue(
          s instanceof KryoSerializer, o.getClass() + " is bound to the Kryo serializer, not " + s);
      byte[] bytes = s.toBinary(o);
      Object back = ser.deserialize(bytes, s.identifier(), "").get();
      assertEquals(describe(o), describe(back), o.getClass().getName());
    }
  }

  /** Records with array components compare by identity; compare their text instead. */
  static String describe(Object o) {
    if (o instanceof Object[] a) {
      return java.util.Arrays.deepToString(a);
    }
    if (o instanceof StepCommitted s) {
      return s.step()
          + java.util.Arrays.toString(s.contributions())
          + java.util.Arrays.toString(s.parameters())
          + s.loss();
    }
    if (o instanceof RunStarted r) {
      return r.contract() + java.util.Arrays.toString(r.roster());
    }
    if (o instanceof PeerActor.Contribution c) {
      return c.run()
          + c.step()
          + c.participant()
          + c.sums()
          + java.util.Arrays.toString(c.committedSet());
    }
    return o.toString();
  }

  @Test
  void bitsSurviveTheRoundTrip() {
    KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
    LocalSums odd =
        new LocalSums(
            new double[] {-0.0, Double.longBitsToDouble(0x7ff8000000000123L)},
            Double.MIN_VALUE,
            -1L);
    LocalSums back = (LocalSums) codec.decode(codec.encode(odd));
    assertTrue(odd.sameBits(back), "-0.0, NaN payloads, subnormals and u64 masses keep their bits");
  }

  @Test
  void everySerializableClassOfTheActorsIsRegistered() {
    KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
    Set<String> registered = new TreeSet<>();
    codec.table().forEach(e -> registered.add(e.className()));
    List<String> missing = new ArrayList<>();
    for (Class<?> owner :
        List.of(
            TrainingActor.class,
            PeerActor.class,
            GpuActor.class,
            AdminActor.class,
            TrainingState.class)) {
      List<Class<?>> classes = new ArrayList<>(List.of(owner.getDeclaredClasses()));
      classes.add(owner);
      for (Class<?> c : classes) {
        if (KryoSerializable.class.isAssignableFrom(c)
            && !c.isInterface()
            && !registered.contains(c.getName())) {
          missing.add(c.getName());
        }
      }
    }
    assertEquals(List.of(), missing, "classes marked KryoSerializable but without a fixed id");
  }

  @Test
  void anUnknownIdIsRejected() {
    KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
    byte[] bytes = codec.encode(A);
    // Byte 0 is the format version; the class id follows as a Kryo varint (id + 2). Make it 0x7e.
    bytes[1] = 0x7e;
    assertThrows(KryoCodecException.class, () -> codec.decode(bytes));
    byte[] version = codec.encode(A);
    version[0] = 99;
    assertThrows(KryoCodecException.class, () -> codec.decode(version));
    assertArrayEquals(codec.encode(A), codec.encode(A), "encoding is deterministic");
  }
}
