/**
 * The journal's format in one place: a journal holds {@link parreg.protocol.JournalEvent}s ({@link
 * parreg.protocol.RunStarted}, then one {@link parreg.protocol.StepCommitted} per step) and {@link
 * parreg.protocol.TrainingState} snapshots, each with a fixed Kryo id in {@code
 * cluster-config/kryo-registrations.conf}. The messages between nodes sit beside the actor that
 * receives them, marked {@code PeerActor.Wire} and {@code AdminActor.GetStatusJson}. A change to a
 * type here is a change of format: ids are never reused, and the golden journal tests replay a
 * journal written by an early version.
 *
 * <p>May depend on {@code parreg.device} and {@code parreg.persistence} only; every node package
 * and the CLI may depend on it.
 */
package parreg.protocol;
