package parreg.persistence;

/**
 * Marker for every message, event and snapshot that crosses a process boundary or reaches the
 * journal; bound to the Kryo serializer in {@code serialization.conf}.
 */
public interface KryoSerializable {}
