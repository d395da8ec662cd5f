package parreg.protocol;

import parreg.device.LocalSums;

/** Step {@code step} committed with these contributions (by participant id) and this outcome. */
public record StepCommitted(long step, LocalSums[] contributions, double[] parameters, double loss)
    implements JournalEvent {}
