/**
 * The journal and wire formats of a node in one place: every class with a fixed Kryo id in {@code
 * cluster-config/kryo-registrations.conf} (besides {@code parreg.device}'s contract and sums). A
 * journal holds {@link parreg.protocol.JournalEvent}s ({@link parreg.protocol.RunStarted}, then one
 * {@link parreg.protocol.StepCommitted} per step) and {@link parreg.protocol.TrainingState}
 * snapshots; peers exchange {@link parreg.protocol.PeerWire} messages; {@code status --cluster}
 * asks with {@link parreg.protocol.StatusQuery}. A change to a type here is a change of format: ids
 * are never reused, the golden journal tests replay a journal written by an early version.
 *
 * <p>May depend on {@code parreg.device} and {@code parreg.persistence} only; every node package
 * and the CLI may depend on it.
 */
package parreg.protocol;
