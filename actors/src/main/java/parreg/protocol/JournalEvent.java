package parreg.protocol;

import parreg.persistence.KryoSerializable;

/**
 * An event of a participant's journal: the run's opening {@link RunStarted}, then one {@link
 * StepCommitted} per step. {@link TrainingState#apply} replays them with checks.
 */
public sealed interface JournalEvent extends KryoSerializable permits RunStarted, StepCommitted {}
