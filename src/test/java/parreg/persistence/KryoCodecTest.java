package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KryoCodecTest {

  /** A record with the field kinds parreg messages use. */
  public record Sample(
      String name,
      long step,
      int participant,
      double loss,
      Double boxed,
      double[] weights,
      long[] masses,
      String[] tags,
      Part[] parts,
      Object anything) {}

  public record Part(int participant, double value) {}

  /** Counts its constructions, to prove that a refused payload creates none. */
  public record Tripwire(String note) {
    static final AtomicInteger CONSTRUCTED = new AtomicInteger();

    public Tripwire {
      CONSTRUCTED.incrementAndGet();
    }
  }

  /** A class that is never registered anywhere. */
  public record Unregistered(int x) {}

  static final List<KryoCodec.Entry> TABLE =
      List.of(
          new KryoCodec.Entry(100, Sample.class.getName()),
          new KryoCodec.Entry(101, Part.class.getName()),
          new KryoCodec.Entry(102, Part.class.getName() + "[]"));

  static final long ODD_NAN_BITS = 0x7ff8_0000_0000_0123L;

  static Sample sample() {
    return new Sample(
        "seed",
        42L,
        1,
        Double.longBitsToDouble(ODD_NAN_BITS),
        -0.0,
        new double[] {0.1, -0.0, Double.longBitsToDouble(ODD_NAN_BITS), Double.MIN_VALUE},
        new long[] {3, Long.MAX_VALUE},
        new String[] {"a", null, "ü"},
        new Part[] {new Part(0, 1.5), new Part(1, -2.25)},
        new long[] {7});
  }

  static void assertSameSample(Sample a, Sample b) {
    assertEquals(a.name(), b.name());
    assertEquals(a.step(), b.step());
    assertEquals(a.participant(), b.participant());
    assertEquals(Double.doubleToRawLongBits(a.loss()), Double.doubleToRawLongBits(b.loss()));
    assertEquals(Double.doubleToRawLongBits(a.boxed()), Double.doubleToRawLongBits(b.boxed()));
    assertEquals(a.weights().length, b.weights().length);
    for (int i = 0; i < a.weights().length; i++) {
      assertEquals(
          Double.doubleToRawLongBits(a.weights()[i]),
          Double.doubleToRawLongBits(b.weights()[i]),
          "bits of weight " + i);
    }
    assertArrayEquals(a.masses(), b.masses());
    assertArrayEquals(a.tags(), b.tags());
    assertArrayEquals(a.parts(), b.parts());
    assertArrayEquals((long[]) a.anything(), (long[]) b.anything());
  }

  @Test
  void roundTripsRecordsArraysAndRawFloatingPointBits() {
    KryoCodec codec = KryoCodec.create(TABLE);
    Sample s = sample();
    byte[] bytes = codec.encode(s);
    assertEquals(KryoCodec.FORMAT_VERSION, bytes[0]);
    assertSameSample(s, codec.decode(bytes, Sample.class));
  }

  @Test
  void roundTripsJdkTypes() {
    KryoCodec codec = KryoCodec.create(List.of());
    List<Object> values = new ArrayList<>();
    values.add("text");
    values.add(7L);
    values.add(3);
    values.add(true);
    values.add(new byte[] {1, 2});
    values.add(new int[] {1, 2});
    values.add(new boolean[] {true});
    values.add(new String[] {"x"});
    values.add(new double[][] {{1.0}, {2.0, 3.0}});
    values.add(new ArrayList<>(List.of("a", 1L)));
    values.add(java.util.UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
    values.add(java.time.Instant.ofEpochSecond(1, 2));
    for (Object v : values) {
      Object back = codec.decode(codec.encode(v));
      if (v.getClass().isArray()) {
        assertTrue(java.util.Objects.deepEquals(v, back), "array " + v.getClass());
      } else {
        assertEquals(v, back);
      }
    }
    assertNull(codec.decode(codec.encode(null)));
  }

  /**
   * The bytes of a fixed value, pinned: journals keep these bytes forever, so a change of Kryo
   * version, field order or built-in table that alters them must be a conscious format change.
   */
  @Test
  void encodingIsStable() {
    KryoCodec codec = KryoCodec.create(TABLE);
    Sample s =
        new Sample(
            "g",
            1L,
            2,
            0.5,
            1.0,
            new double[] {1.0},
            new long[] {9},
            new String[] {"t"},
            new Part[] {new Part(1, 2.0)},
            null);
    assertEquals(GOLDEN_HEX, HexFormat.of().formatHex(codec.encode(s)));
  }

  static final String GOLDEN_HEX =
      "01660001000000000000f03f000000000000e03f021282670402010200000000000000400202827402000000000000f03f";

  @Test
  void unknownClassIdIsRejectedWithoutInstantiation() {
    KryoCodec writer =
        KryoCodec.create(List.of(new KryoCodec.Entry(150, Tripwire.class.getName())));
    KryoCodec reader = KryoCodec.create(TABLE); // knows nothing of id 150
    byte[] bytes = writer.encode(new Tripwire("boom"));
    int before = Tripwire.CONSTRUCTED.get();

    KryoCodecException e = assertThrows(KryoCodecException.class, () -> reader.decode(bytes));
    assertTrue(e.getMessage().contains("unregistered class ID: 150"), e.getMessage());
    assertEquals(before, Tripwire.CONSTRUCTED.get(), "a refused payload must create nothing");

    // The same bytes do construct a Tripwire where id 150 is known: the counter works.
    assertInstanceOf(Tripwire.class, writer.decode(bytes));
    assertEquals(before + 1, Tripwire.CONSTRUCTED.get());
  }

  @Test
  void craftedUnknownIdIsRejected() {
    KryoCodec codec = KryoCodec.create(TABLE);
    // format 1, class id 4242 as Kryo writes it (varint of id + 2), then junk
    byte[] crafted = {1, (byte) 0x94, 0x21, 0, 0, 0};
    KryoCodecException e = assertThrows(KryoCodecException.class, () -> codec.decode(crafted));
    assertTrue(e.getMessage().contains("unregistered class ID: 4242"), e.getMessage());
  }

  @Test
  void classGivenByNameIsRejected() {
    KryoCodec codec = KryoCodec.create(TABLE);
    // format 1, marker 1 (= class by name), then a name id and an ASCII name
    byte[] name = "java.lang.ProcessBuilder".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    byte[] crafted = new byte[3 + name.length];
    crafted[0] = 1;
    crafted[1] = 1;
    crafted[2] = 1;
    System.arraycopy(name, 0, crafted, 3, name.length);
    crafted[crafted.length - 1] |= (byte) 0x80; // Kryo's ASCII end marker
    KryoCodecException e = assertThrows(KryoCodecException.class, () -> codec.decode(crafted));
    assertTrue(e.getMessage().contains("refused"), e.getMessage());
  }

  @Test
  void unknownFormatVersionIsRejected() {
    KryoCodec codec = KryoCodec.create(TABLE);
    byte[] bytes = codec.encode(sample());
    bytes[0] = 2;
    KryoCodecException e = assertThrows(KryoCodecException.class, () -> codec.decode(bytes));
    assertTrue(e.getMessage().contains("format version 2"), e.getMessage());
    assertThrows(KryoCodecException.class, () -> codec.decode(new byte[0]));
  }

  @Test
  void truncatedTrailingAndOversizedPayloadsAreRejected() {
    KryoCodec codec = KryoCodec.create(TABLE);
    byte[] bytes = codec.encode(sample());
    byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 3);
    assertThrows(KryoCodecException.class, () -> codec.decode(truncated));
    byte[] trailing = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    KryoCodecException e = assertThrows(KryoCodecException.class, () -> codec.decode(trailing));
    assertTrue(e.getMessage().contains("unexpected bytes"), e.getMessage());
    // double[] (id 15) claiming 2^28 elements in a 10-byte payload: refused before allocation
    byte[] huge = {1, 17, (byte) 0x81, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1, 0, 0, 0};
    e = assertThrows(KryoCodecException.class, () -> codec.decode(huge));
    assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
  }

  @Test
  void unregisteredClassIsNotWritten() {
    KryoCodec codec = KryoCodec.create(TABLE);
    KryoCodecException e =
        assertThrows(KryoCodecException.class, () -> codec.encode(new Unregistered(1)));
    assertTrue(e.getMessage().contains(Unregistered.class.getName()), e.getMessage());
    // nor inside a registered record
    Sample s = sample();
    Sample bad =
        new Sample(
            s.name(),
            1,
            1,
            0,
            0.0,
            s.weights(),
            s.masses(),
            s.tags(),
            s.parts(),
            new Unregistered(2));
    assertThrows(KryoCodecException.class, () -> codec.encode(bad));
  }

  @Test
  void actorRefNeedsAnActorSystem() {
    KryoCodec codec = KryoCodec.create(List.of());
    assertEquals(
        KryoCodec.ACTOR_REF_ID,
        codec.table().stream()
            .filter(
                r -> r.className().equals(org.apache.pekko.actor.typed.ActorRef.class.getName()))
            .findFirst()
            .orElseThrow()
            .id());
    // format 1, class id 20 (varint 22), the string "x" (UTF-8 flag | length + 1, 'x')
    byte[] crafted = {1, 22, (byte) 0x82, 'x'};
    KryoCodecException e = assertThrows(KryoCodecException.class, () -> codec.decode(crafted));
    assertTrue(e.getMessage().contains("ActorSystem"), e.getMessage());
  }

  @Test
  void badTablesAreRejected() {
    String name = Part.class.getName();
    assertThrows(
        KryoCodecException.class, () -> KryoCodec.create(List.of(new KryoCodec.Entry(99, name))));
    assertThrows(
        KryoCodecException.class,
        () ->
            KryoCodec.create(
                List.of(
                    new KryoCodec.Entry(100, name), new KryoCodec.Entry(100, "java.lang.Thread"))));
    assertThrows(
        KryoCodecException.class,
        () ->
            KryoCodec.create(
                List.of(new KryoCodec.Entry(100, name), new KryoCodec.Entry(101, name))));
    KryoCodecException e =
        assertThrows(
            KryoCodecException.class,
            () -> KryoCodec.create(List.of(new KryoCodec.Entry(100, "parreg.NoSuchClass"))));
    assertTrue(e.getMessage().contains("parreg.NoSuchClass"), e.getMessage());
  }

  @Test
  void tableIsReadFromConfig() {
    var config =
        ConfigFactory.parseString(
            "parreg.serialization.kryo-registrations = [\n"
                + "  { id = 100, class = \""
                + Sample.class.getName()
                + "\" }\n"
                + "  { id = 101, class = \""
                + Part.class.getName()
                + "\" }\n"
                + "  { id = 102, class = \"[L"
                + Part.class.getName()
                + ";\" }\n"
                + "]");
    assertEquals(3, KryoCodec.registrationsFromConfig(config).size());
    KryoCodec codec = KryoCodec.fromConfig(config);
    assertSameSample(sample(), codec.decode(codec.encode(sample()), Sample.class));
    assertEquals(List.of(), KryoCodec.registrationsFromConfig(ConfigFactory.empty()));
    assertThrows(
        KryoCodecException.class,
        () ->
            KryoCodec.registrationsFromConfig(
                ConfigFactory.parseString("parreg.serialization.kryo-registrations = [ 1 ]")));
  }

  /** The application's own table (kryo-registrations.conf via application.conf) is valid. */
  @Test
  void applicationTableLoads() {
    var config = ConfigFactory.load();
    List<KryoCodec.Entry> entries = KryoCodec.registrationsFromConfig(config);
    KryoCodec codec = KryoCodec.fromConfig(config);
    assertEquals(KryoCodec.BUILT_IN.size() + entries.size(), codec.table().size());
  }

  @Test
  void isThreadSafe() throws Exception {
    KryoCodec codec = KryoCodec.create(TABLE);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 500; i++) {
                    Sample s = sample();
                    assertSameSample(s, codec.decode(codec.encode(s), Sample.class));
                  }
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
