package parreg.persistence;

import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.JSerializer;

/**
 * The one Pekko serializer of parreg: every {@link KryoSerializable} message, event and snapshot,
 * on the wire and in the journal, through {@link KryoCodec}. Configured in {@code
 * serialization.conf}; the class-id table is read from {@code
 * parreg.serialization.kryo-registrations} of the ActorSystem's configuration.
 *
 * <p>Journal rows from format version 2 on are {@link JournalEnvelope}s (checksum and chain link),
 * written from and read back as {@link Chained}; messages between nodes stay version 1.
 *
 * <p>No manifest: the class id is inside the payload, so journal rows carry {@code ser_id = }
 * {@link #IDENTIFIER} and an empty manifest.
 */
public final class KryoSerializer extends JSerializer {

  /**
   * The serializer identifier, stored in the journal's {@code event_ser_id} and {@code
   * snapshot_ser_id}.
   */
  public static final int IDENTIFIER = 7100;

  private final KryoCodec codec;

  /** Called by Pekko's serialization extension. */
  public KryoSerializer(ExtendedActorSystem system) {
    this.codec =
        KryoCodec.create(
            KryoCodec.registrationsFromConfig(system.settings().config()),
            system.dynamicAccess().classLoader(),
            () -> ActorRefResolver.get(Adapter.toTyped(system)));
  }

  /** The codec this serializer delegates to (same table, with actor-reference support). */
  public KryoCodec codec() {
    return codec;
  }

  @Override
  public int identifier() {
    return IDENTIFIER;
  }

  @Override
  public boolean includeManifest() {
    return false;
  }

  /** A {@link Chained} event or snapshot is stored as sealed by the journal's writer. */
  @Override
  public byte[] toBinary(Object o) {
    return o instanceof Chained c ? c.payload() : codec.encode(o);
  }

  /**
   * A version-2 (journal) payload comes back as a {@link Chained}, its checksum checked; the reader
   * (the training actor's journal, a peer serving a step) checks its link.
   */
  @Override
  public Object fromBinaryJava(byte[] bytes, Class<?> manifest) {
    return bytes.length > 0 && bytes[0] == JournalEnvelope.VERSION
        ? JournalEnvelope.open(codec, bytes)
        : codec.decode(bytes);
  }
}
