package parreg.persistence;

/**
 * Marker for every message, event and snapshot state that travels or is stored through {@link
 * KryoSerializer}. Bound to the serializer in {@code serialization.conf}; the concrete class must
 * also have a fixed id in {@code parreg.serialization.kryo-registrations}, or writing it fails.
 */
public interface KryoSerializable {}
