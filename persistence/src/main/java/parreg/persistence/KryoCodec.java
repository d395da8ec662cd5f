package parreg.persistence;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.serializers.TimeSerializers;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.Pool;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The binary format of every parreg message, event and snapshot: one format-version byte ({@link
 * #FORMAT_VERSION}), then one Kryo object written with its class id ({@code writeClassAndObject}).
 * Nothing else: no class names, no manifest.
 *
 * <p>Class ids are fixed and explicit. Ids below {@link #FIRST_APPLICATION_ID} are this class's own
 * table of JDK and Pekko types ({@link #BUILT_IN}, plus Kryo's own ids 0–9 for primitives, their
 * boxes and {@code String}); ids from {@link #FIRST_APPLICATION_ID} up come from the application's
 * table ({@code parreg.serialization.kryo-registrations}, see {@link #registrationsFromConfig}).
 * Once a journal holds an id, that id must keep meaning the same class with the same fields: ids
 * are never reused or renumbered; a change of layout needs a new id or a new format version.
 *
 * <p>Reading refuses, with a {@link KryoCodecException} and before any object of that class is
 * created: an unknown format version, an unknown class id, a class given by name, bytes left over
 * after the object, and arrays longer than the payload could hold (for the array types registered
 * here).
 *
 * <p>{@code double} and {@code float} values (boxed, primitive, in arrays) are written with their
 * raw bits ({@link Double#doubleToRawLongBits}), so every NaN payload survives: the numerical
 * policy is bit-exact.
 *
 * <p>A typed {@link ActorRef} (any implementation) is written as its {@link ActorRefResolver}
 * string. That needs an ActorSystem; a codec made without one refuses to write or read actor
 * references and handles everything else.
 *
 * <p>Thread-safe: Kryo instances are taken from a {@link Pool}.
 */
public final class KryoCodec {

  /** The format-version byte written in front of every payload. */
  public static final byte FORMAT_VERSION = 1;

  /** The lowest id an application registration may use; lower ids are reserved for this class. */
  public static final int FIRST_APPLICATION_ID = 100;

  /** Configuration path of the application's registration table. */
  public static final String REGISTRATIONS_PATH = "parreg.serialization.kryo-registrations";

  /** Nesting depth at which reading (and writing) gives up, against hostile or runaway payloads. */
  public static final int MAX_DEPTH = 64;

  /** Id of the typed {@link ActorRef} registration (any implementation class). */
  public static final int ACTOR_REF_ID = 20;

  /**
   * One row of a registration table: a fixed class id and the class's binary name. An array class
   * may be written either as the JVM name ({@code [Lparreg.protocol.Foo;}) or as {@code
   * parreg.protocol.Foo[]}.
   */
  public record Entry(int id, String className) {
    public Entry {
      Objects.requireNonNull(className, "className");
    }
  }

  /**
   * The built-in table, ids 10 to 99 (Kryo itself holds 0–9: int, String, float, boolean, byte,
   * char, short, long, double, void and their boxes). Append only.
   */
  public static final List<Entry> BUILT_IN =
      List.of(
          new Entry(10, "byte[]"),
          new Entry(11, "boolean[]"),
          new Entry(12, "int[]"),
          new Entry(13, "long[]"),
          new Entry(14, "float[]"),
          new Entry(15, "double[]"),
          new Entry(16, "java.lang.String[]"),
          new Entry(17, "java.lang.Object[]"),
          new Entry(18, "double[][]"),
          new Entry(19, "long[][]"),
          new Entry(ACTOR_REF_ID, ActorRef.class.getName()),
          new Entry(21, ArrayList.class.getName()),
          new Entry(22, HashMap.class.getName()),
          new Entry(23, LinkedHashMap.class.getName()),
          new Entry(24, UUID.class.getName()),
          new Entry(25, Instant.class.getName()),
          new Entry(26, Duration.class.getName()));

  private final List<ResolvedEntry> table;
  private final Supplier<ActorRefResolver> resolver;
  private final Pool<Kryo> pool;

  private record ResolvedEntry(int id, Class<?> type) {}

  private KryoCodec(
      List<Entry> application, ClassLoader loader, Supplier<ActorRefResolver> resolver) {
    this.table = resolve(application, loader);
    this.resolver = resolver;
    this.pool =
        new Pool<>(true, false, 64) {
          @Override
          protected Kryo create() {
            return newKryo();
          }
        };
    // Fail now, not on the first message, if the table cannot be registered.
    pool.free(pool.obtain());
  }

  /**
   * A codec without an ActorSystem (the CLI reading a journal): actor references are refused.
   *
   * @param application the application's table, ids {@code >= FIRST_APPLICATION_ID}
   * @throws KryoCodecException if the table is not valid (duplicate id or class, reserved id, class
   *     not found)
   */
  public static KryoCodec create(List<Entry> application) {
    return new KryoCodec(application, KryoCodec.class.getClassLoader(), null);
  }

  /** The classpath resource that holds the application's registration table. */
  public static final String REGISTRATIONS_RESOURCE = "kryo-registrations.conf";

  /**
   * {@link #create} with the table of {@link #REGISTRATIONS_RESOURCE} alone, for a reader that must
   * not wait for the whole configuration (a node's start-up journal check runs while it loads).
   */
  public static KryoCodec fromRegistrationsResource() {
    return fromConfig(
        com.typesafe.config.ConfigFactory.parseResources(
            KryoCodec.class.getClassLoader(),
            REGISTRATIONS_RESOURCE,
            com.typesafe.config.ConfigParseOptions.defaults().setAllowMissing(false)));
  }

  /** {@link #create} with the table read from {@code config} at {@link #REGISTRATIONS_PATH}. */
  public static KryoCodec fromConfig(Config config) {
    return create(registrationsFromConfig(config));
  }

  /**
   * A codec that writes and resolves typed actor references through {@code system}'s {@link
   * ActorRefResolver} (looked up on first use, not here).
   */
  public static KryoCodec create(
      List<Entry> application, ActorSystem<?> system, ClassLoader classLoader) {
    Objects.requireNonNull(system, "system");
    return create(application, classLoader, () -> ActorRefResolver.get(system));
  }

  /**
   * The general form: application classes loaded through {@code classLoader}; actor references
   * through the resolver that {@code resolver} gives on first use (memoised), or refused when
   * {@code resolver} is null.
   */
  public static KryoCodec create(
      List<Entry> application, ClassLoader classLoader, Supplier<ActorRefResolver> resolver) {
    return new KryoCodec(application, classLoader, resolver == null ? null : new Memo<>(resolver));
  }

  /**
   * Reads the table at {@link #REGISTRATIONS_PATH}: a list of objects {@code { id = 100, class =
   * "parreg.training.TrainingActor$StepCommitted" }}. A missing path is an empty table.
   *
   * @throws KryoCodecException if an element is not such an object
   */
  public static List<Entry> registrationsFromConfig(Config config) {
    if (!config.hasPath(REGISTRATIONS_PATH)) {
      return List.of();
    }
    List<Entry> entries = new ArrayList<>();
    try {
      for (Config element : config.getConfigList(REGISTRATIONS_PATH)) {
        entries.add(new Entry(element.getInt("id"), element.getString("class")));
      }
    } catch (ConfigException e) {
      throw new KryoCodecException(
          REGISTRATIONS_PATH + " must be a list of { id = N, class = \"...\" }: " + e.getMessage(),
          e);
    }
    return List.copyOf(entries);
  }

  /** The full table in use, built-in entries first, as (id, class name) rows. */
  public List<Entry> table() {
    List<Entry> rows = new ArrayList<>();
    for (ResolvedEntry e : table) {
      rows.add(new Entry(e.id(), e.type().getName()));
    }
    return List.copyOf(rows);
  }

  /**
   * Encodes {@code value}: the format-version byte, then the Kryo payload.
   *
   * @throws KryoCodecException if {@code value} or something it holds is of an unregistered class
   */
  public byte[] encode(Object value) {
    Kryo kryo = pool.obtain();
    try {
      Output output = new Output(256, -1);
      output.writeByte(FORMAT_VERSION);
      kryo.writeClassAndObject(output, value);
      return output.toBytes();
    } catch (RuntimeException e) {
      throw new KryoCodecException("cannot encode " + describe(value) + ": " + e.getMessage(), e);
    } finally {
      kryo.reset();
      pool.free(kryo);
    }
  }

  /**
   * Decodes a payload written by {@link #encode}.
   *
   * @throws KryoCodecException if the payload is empty, of another format version, names an unknown
   *     class id or a class by name, is truncated, or has bytes after the object
   */
  public Object decode(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    if (payload.length == 0) {
      throw new KryoCodecException("empty payload (expected a format-version byte)");
    }
    if (payload[0] != FORMAT_VERSION) {
      throw new KryoCodecException(
          "unsupported payload format version "
              + (payload[0] & 0xff)
              + " (this build reads version "
              + FORMAT_VERSION
              + ")");
    }
    Kryo kryo = pool.obtain();
    try {
      Input input = new Input(payload, 1, payload.length - 1);
      Object value = kryo.readClassAndObject(input);
      if (input.position() != input.limit()) {
        throw new KryoCodecException(
            (input.limit() - input.position()) + " unexpected bytes after the object");
      }
      return value;
    } catch (KryoCodecException e) {
      throw e;
    } catch (RuntimeException e) {
      // Kryo errors, and whatever a record's canonical constructor throws on bad values.
      throw new KryoCodecException("cannot decode payload: " + e.getMessage(), e);
    } finally {
      kryo.reset();
      pool.free(kryo);
    }
  }

  /** {@link #decode(byte[])}, checking that the result is a {@code type}. */
  public <T> T decode(byte[] payload, Class<T> type) {
    Object value = decode(payload);
    if (!type.isInstance(value)) {
      throw new KryoCodecException(
          "expected a " + type.getName() + " but the payload holds " + describe(value));
    }
    return type.cast(value);
  }

  private static String describe(Object value) {
    return value == null ? "null" : "a " + value.getClass().getName();
  }

  // ---------------------------------------------------------------------------------------------

  private static List<ResolvedEntry> resolve(List<Entry> application, ClassLoader loader) {
    List<ResolvedEntry> all = new ArrayList<>();
    Map<Integer, String> ids = new HashMap<>();
    Map<Class<?>, Integer> classes = new HashMap<>();
    for (Entry e : BUILT_IN) {
      add(all, ids, classes, e, loadClass(e.className(), KryoCodec.class.getClassLoader()));
    }
    for (Entry e : application) {
      if (e.id() < FIRST_APPLICATION_ID) {
        throw new KryoCodecException(
            "registration id "
                + e.id()
                + " for "
                + e.className()
                + " is reserved (application ids start at "
                + FIRST_APPLICATION_ID
                + ")");
      }
      add(all, ids, classes, e, loadClass(e.className(), loader));
    }
    return List.copyOf(all);
  }

  private static void add(
      List<ResolvedEntry> all,
      Map<Integer, String> ids,
      Map<Class<?>, Integer> classes,
      Entry e,
      Class<?> type) {
    String previous = ids.putIfAbsent(e.id(), e.className());
    if (previous != null) {
      throw new KryoCodecException(
          "registration id " + e.id() + " given twice: " + previous + " and " + e.className());
    }
    Integer previousId = classes.putIfAbsent(type, e.id());
    if (previousId != null) {
      throw new KryoCodecException(
          "class " + e.className() + " registered twice: ids " + previousId + " and " + e.id());
    }
    all.add(new ResolvedEntry(e.id(), type));
  }

  private static Class<?> loadClass(String name, ClassLoader loader) {
    String n = name.strip();
    int dims = 0;
    while (n.endsWith("[]")) {
      n = n.substring(0, n.length() - 2).strip();
      dims++;
    }
    try {
      Class<?> type =
          switch (n) {
            case "boolean" -> boolean.class;
            case "byte" -> byte.class;
            case "char" -> char.class;
            case "short" -> short.class;
            case "int" -> int.class;
            case "long" -> long.class;
            case "float" -> float.class;
            case "double" -> double.class;
            default -> Class.forName(n, false, loader);
          };
      for (int i = 0; i < dims; i++) {
        type = type.arrayType();
      }
      return type;
    } catch (ClassNotFoundException | LinkageError e) {
      throw new KryoCodecException("registered class not found: " + name, e);
    }
  }

  private Kryo newKryo() {
    StrictClassResolver classResolver = new StrictClassResolver();
    Kryo kryo = new Kryo(classResolver, null);
    kryo.setRegistrationRequired(true);
    kryo.setReferences(false);
    kryo.setMaxDepth(MAX_DEPTH);
    // Raw bits for every floating-point value (Kryo's defaults canonicalise NaN).
    kryo.register(double.class, new RawDoubleSerializer());
    kryo.register(float.class, new RawFloatSerializer());
    for (ResolvedEntry e : table) {
      Class<?> type = e.type();
      Registration registration;
      if (type == ActorRef.class) {
        registration =
            kryo.register(new Registration(type, new ActorRefSerializer(resolver), e.id()));
        classResolver.actorRefRegistration = registration;
      } else if (type == double[].class) {
        kryo.register(type, new RawDoubleArraySerializer(), e.id());
      } else if (type == float[].class) {
        kryo.register(type, new RawFloatArraySerializer(), e.id());
      } else if (type == parreg.device.RunContract.class) {
        kryo.register(type, new RunContractSerializer(), e.id()); // two layouts: see there
      } else if (type == UUID.class) {
        kryo.register(type, new DefaultSerializers.UUIDSerializer(), e.id());
      } else if (type == Instant.class) {
        kryo.register(type, new TimeSerializers.InstantSerializer(), e.id());
      } else if (type == Duration.class) {
        kryo.register(type, new TimeSerializers.DurationSerializer(), e.id());
      } else {
        kryo.register(type, e.id());
      }
    }
    return kryo;
  }

  /**
   * Registration required, no class names on the wire, and every implementation of the typed {@link
   * ActorRef} mapped to the one actor-reference registration.
   */
  private static final class StrictClassResolver extends DefaultClassResolver {
    Registration actorRefRegistration;

    @Override
    @SuppressWarnings("rawtypes")
    public Registration getRegistration(Class type) {
      Registration r = super.getRegistration(type);
      if (r == null
          && actorRefRegistration != null
          && type != null
          && ActorRef.class.isAssignableFrom(type)) {
        return actorRefRegistration;
      }
      return r;
    }

    @Override
    protected Registration readName(Input input) {
      throw new KryoException("payload names a class instead of a registered class id: refused");
    }
  }

  private static final class ActorRefSerializer extends Serializer<ActorRef<?>> {
    private final Supplier<ActorRefResolver> resolver;

    ActorRefSerializer(Supplier<ActorRefResolver> resolver) {
      super(false, true);
      this.resolver = resolver;
    }

    private ActorRefResolver resolver() {
      if (resolver == null) {
        throw new KryoException("an actor reference needs a codec made with an ActorSystem");
      }
      return resolver.get();
    }

    @Override
    public void write(Kryo kryo, Output output, ActorRef<?> ref) {
      output.writeString(resolver().toSerializationFormat(ref));
    }

    @Override
    public ActorRef<?> read(Kryo kryo, Input input, Class<? extends ActorRef<?>> type) {
      String path = input.readString();
      if (path == null) {
        throw new KryoException("actor reference without a path");
      }
      return resolver().resolveActorRef(path);
    }
  }

  private static final class RawDoubleSerializer extends Serializer<Double> {
    RawDoubleSerializer() {
      super(false, true);
    }

    @Override
    public void write(Kryo kryo, Output output, Double value) {
      output.writeLong(Double.doubleToRawLongBits(value));
    }

    @Override
    public Double read(Kryo kryo, Input input, Class<? extends Double> type) {
      return Double.longBitsToDouble(input.readLong());
    }
  }

  private static final class RawFloatSerializer extends Serializer<Float> {
    RawFloatSerializer() {
      super(false, true);
    }

    @Override
    public void write(Kryo kryo, Output output, Float value) {
      output.writeInt(Float.floatToRawIntBits(value));
    }

    @Override
    public Float read(Kryo kryo, Input input, Class<? extends Float> type) {
      return Float.intBitsToFloat(input.readInt());
    }
  }

  /** Length + 1 as a varint (0 for null), as Kryo's own array serializers, then raw bits. */
  private static int readLength(Input input, int elementBytes) {
    int n = input.readVarInt(true);
    if (n == 0) {
      return -1;
    }
    int length = n - 1;
    long remaining = (long) input.limit() - input.position();
    if ((long) length * elementBytes > remaining) {
      throw new KryoException(
          "array of " + length + " elements does not fit in the " + remaining + " bytes left");
    }
    return length;
  }

  private static final class RawDoubleArraySerializer extends Serializer<double[]> {
    RawDoubleArraySerializer() {
      super(true);
    }

    @Override
    public void write(Kryo kryo, Output output, double[] values) {
      if (values == null) {
        output.writeVarInt(0, true);
        return;
      }
      output.writeVarInt(values.length + 1, true);
      for (double v : values) {
        output.writeLong(Double.doubleToRawLongBits(v));
      }
    }

    @Override
    public double[] read(Kryo kryo, Input input, Class<? extends double[]> type) {
      int length = readLength(input, Long.BYTES);
      if (length < 0) {
        return null;
      }
      double[] values = new double[length];
      for (int i = 0; i < length; i++) {
        values[i] = Double.longBitsToDouble(input.readLong());
      }
      return values;
    }

    @Override
    public double[] copy(Kryo kryo, double[] original) {
      return original.clone();
    }
  }

  private static final class RawFloatArraySerializer extends Serializer<float[]> {
    RawFloatArraySerializer() {
      super(true);
    }

    @Override
    public void write(Kryo kryo, Output output, float[] values) {
      if (values == null) {
        output.writeVarInt(0, true);
        return;
      }
      output.writeVarInt(values.length + 1, true);
      for (float v : values) {
        output.writeInt(Float.floatToRawIntBits(v));
      }
    }

    @Override
    public float[] read(Kryo kryo, Input input, Class<? extends float[]> type) {
      int length = readLength(input, Integer.BYTES);
      if (length < 0) {
        return null;
      }
      float[] values = new float[length];
      for (int i = 0; i < length; i++) {
        values[i] = Float.intBitsToFloat(input.readInt());
      }
      return values;
    }

    @Override
    public float[] copy(Kryo kryo, float[] original) {
      return original.clone();
    }
  }

  /** A thread-safe lazy value. */
  private static final class Memo<T> implements Supplier<T> {
    private final Supplier<T> source;
    private volatile T value;

    Memo(Supplier<T> source) {
      this.source = source;
    }

    @Override
    public T get() {
      T v = value;
      if (v == null) {
        synchronized (this) {
          v = value;
          if (v == null) {
            v = source.get();
            value = v;
          }
        }
      }
      return v;
    }
  }
}
