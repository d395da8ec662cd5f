package parreg.protocol;

import parreg.device.PartitionInfo;
import parreg.device.RunContract;
import parreg.persistence.JournalRuns;

/** The run started with this contract and roster (the first event of every journal). */
public record RunStarted(RunContract contract, PartitionInfo[] roster)
    implements JournalEvent, JournalRuns.Opening {}
