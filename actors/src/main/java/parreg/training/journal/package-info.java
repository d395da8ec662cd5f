/**
 * How the training actor's events reach the journal: {@link parreg.training.journal.StepJournal}
 * (the event-sourced child that persists and replays them), {@link
 * parreg.training.journal.WriteBehind} (committed steps written behind, in groups, within a bounded
 * lag), {@link parreg.training.journal.StepLogWriter} (an embedded journal's step log), {@link
 * parreg.training.journal.JournalChain} (each record's checksum and link to the one before), and
 * {@link parreg.training.journal.JournalSetup} (what a journal holds, read before a start is
 * admitted, and its creation).
 *
 * <p>May depend on {@code parreg.protocol}, {@code parreg.settings}, {@code parreg.metrics}, {@code
 * parreg.device} and {@code parreg.persistence}.
 */
package parreg.training.journal;
