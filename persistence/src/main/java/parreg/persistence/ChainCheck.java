package parreg.persistence;

/**
 * Follows one persistence id's events in sequence order and refuses the first that breaks the chain
 * ({@link JournalEnvelope}): a sequence number skipped, an event whose link is not the chain hash
 * of the event before it (one removed, reordered or changed), or a version-1 payload after
 * version-2 ones. Used by every reader: {@link JournalRows}, the training actor's recovery, and a
 * peer serving a step.
 *
 * <p>The chain is known from the start of a persistence id (the first event links to {@link
 * JournalEnvelope#GENESIS}) or from a version-2 snapshot (its link); after a version-1 snapshot it
 * is unknown until the first event read. The link of the first version-2 event after version-1
 * events (a journal written by an older version and resumed) is not checked: the chain starts
 * there.
 */
public final class ChainCheck {
  private final String persistenceId;
  private long lastSeq;
  private boolean headKnown;
  private long head;
  private boolean previousLinked;
  private boolean sawLinked;

  private ChainCheck(String persistenceId, long afterSeq, boolean headKnown, long head) {
    this.persistenceId = persistenceId;
    this.lastSeq = afterSeq;
    this.headKnown = headKnown;
    this.head = head;
    this.previousLinked = true;
  }

  /** From the first event of {@code persistenceId}. */
  public static ChainCheck fromStart(String persistenceId) {
    return new ChainCheck(persistenceId, 0, true, JournalEnvelope.GENESIS);
  }

  /** From the events after snapshot {@code snapshot} (of any version). */
  public static ChainCheck afterSnapshot(String persistenceId, long snapshotSeq, Chained snapshot) {
    ChainCheck c = new ChainCheck(persistenceId, snapshotSeq, snapshot.linked(), snapshot.link());
    c.previousLinked = snapshot.linked();
    c.sawLinked = snapshot.linked();
    return c;
  }

  /** From the event after {@code afterSeq}, with no knowledge of the chain before it. */
  public static ChainCheck unknownAfter(String persistenceId, long afterSeq) {
    ChainCheck c = new ChainCheck(persistenceId, afterSeq, false, 0);
    c.previousLinked = false;
    return c;
  }

  /**
   * Checks the next event read; {@code seq} may be -1 where the reader does not see sequence
   * numbers (recovery), which then counts them.
   *
   * @throws JournalReadException naming the first bad sequence number
   */
  public void next(long seq, Chained event) {
    long expected = lastSeq + 1;
    if (seq >= 0 && seq != expected) {
      throw new JournalReadException(
          "event "
              + persistenceId
              + " #"
              + expected
              + " is missing: the next event stored is #"
              + seq,
          expected,
          null);
    }
    if (event.linked()) {
      // The first checksummed event after version-1 ones: its writer could not know the stored
      // bytes of the one before it (a version-1 value may re-encode differently, as an upgraded
      // layout), so its link is not checked; every later one is.
      boolean ok = !headKnown || !previousLinked || event.link() == head;
      if (!ok) {
        throw new JournalReadException(
            String.format(
                "event %s #%d does not follow #%d: it links to %016x, the chain hash of #%d is %016x"
                    + " (an event removed, reordered or changed)",
                persistenceId, expected, lastSeq, event.link(), lastSeq, head),
            expected,
            null);
      }
      sawLinked = true;
    } else if (sawLinked) {
      throw new JournalReadException(
          "event "
              + persistenceId
              + " #"
              + expected
              + " carries no checksum (format version "
              + event.version()
              + ") after checksummed events",
          expected,
          null);
    }
    head = event.hash();
    headKnown = true;
    previousLinked = event.linked();
    lastSeq = expected;
  }

  /**
   * Checks that {@code snapshot}, taken at {@code seq} where this check stands, links to the event
   * there (a version-1 snapshot has no link to check).
   *
   * @throws JournalReadException naming the snapshot's sequence number
   */
  public void snapshot(long seq, Chained snapshot) {
    if (snapshot.linked() && headKnown && lastSeq == seq && snapshot.link() != head) {
      throw new JournalReadException(
          String.format(
              "snapshot %s #%d links to %016x, the chain hash of event #%d is %016x",
              persistenceId, seq, snapshot.link(), seq, head),
          seq,
          null);
    }
  }

  /** The chain hash of the last event checked (what the next event must link to). */
  public long head() {
    return head;
  }

  /** Whether {@link #head()} is known (an event or a version-2 snapshot was seen). */
  public boolean headKnown() {
    return headKnown;
  }

  /** The sequence number of the last event checked (or the starting point). */
  public long lastSeq() {
    return lastSeq;
  }
}
