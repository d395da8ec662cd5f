/**
 * Durable storage and wire format of parreg (SPEC section 7).
 *
 * <ul>
 *   <li>{@link parreg.persistence.KryoCodec}: the one binary format of every message, event and
 *       snapshot (a format-version byte, then Kryo with registration required and fixed class ids).
 *       Usable without an ActorSystem, so that the CLI can read journals with plain JDBC.
 *   <li>{@link parreg.persistence.KryoSerializer}: the Pekko serializer over that codec, bound to
 *       the marker {@link parreg.persistence.KryoSerializable} in {@code serialization.conf}.
 *   <li>{@link parreg.persistence.JournalLocation}: the {@code --journal DIR-or-JDBC-URL} value,
 *       turned into the pekko-persistence-jdbc configuration and into plain JDBC connections;
 *       {@link parreg.persistence.JournalUrl} splits a URL into its parts and builds the one form
 *       that is shown (its secrets left out), {@link parreg.persistence.JournalPassword} finds a
 *       PostgreSQL journal's password (URL, file, {@code PGPASSWORD}, {@code ~/.pgpass}).
 *   <li>{@link parreg.persistence.JournalSchema}: owned, idempotent creation of the tables that
 *       pekko-persistence-jdbc 1.1.1 expects, on H2 and PostgreSQL, errors surfaced.
 *   <li>{@link parreg.persistence.JournalRows}: plain-JDBC reading of a persistence id's snapshot
 *       and events, decoded through the codec.
 *   <li>{@link parreg.persistence.StepLog} (written), {@link parreg.persistence.StepLogScan} (read)
 *       and {@link parreg.persistence.StepLogDrain} (moved into the journal at a start): the step
 *       log beside an embedded H2 journal: it acknowledges a step under {@code --sync-commit} and,
 *       by default, guards each journal write.
 *   <li>{@link parreg.persistence.RunEvents}: the one reader of a run's events, the journal's and
 *       then its step log's.
 * </ul>
 *
 * <p>May depend on Pekko, JDBC drivers, Kryo and {@code parreg.device}; must not depend on the
 * node's packages or on {@code parreg.cli} (enforced by {@code ArchitectureTest}). Application
 * classes reach the codec only by name, through the registration table in configuration.
 */
package parreg.persistence;
