package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The shared journal's single-writer guard (issue 13 item 3): a second writer of one persistence id
 * is refused, naming the holder, while another id is free; closing the first frees it. Skipped,
 * with the reason, without PostgreSQL.
 */
class JournalWriterLockTest {
  static final String PID = JournalRuns.persistenceId("parreg-run", 0);

  @Test
  void aSecondWriterOfOnePersistenceIdIsRefusedUntilTheFirstLetsGo() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip()) {
      JournalLocation location = db.location();
      JournalWriterLock first =
          JournalWriterLock.acquire(location, PID, "parreg participant 0, port 2551 on a");
      try (JournalWriterLock other =
          JournalWriterLock.acquire(location, JournalRuns.persistenceId("parreg-run", 1), "b")) {
        JournalWriterLock.HeldException e =
            assertThrows(
                JournalWriterLock.HeldException.class,
                () ->
                    JournalWriterLock.acquire(
                        location, PID, "parreg participant 0, port 2561 on c"));
        assertTrue(
            e.getMessage()
                .startsWith(
                    "persistence id parreg|parreg-run|p0 in journal "
                        + db.url()
                        + " is being written by another node ('parreg participant 0, port 2551 on a', database session "),
            e.getMessage());
      } finally {
        first.close();
      }
      JournalWriterLock.acquire(location, PID, "c").close(); // free again
    }
  }

  // An advisory lock belongs to one database, but pg_locks lists those of every database on the
  // server: a node of another database holding the same key is no writer of this journal.
  @Test
  void theRefusalNamesOnlyTheHolderInThisDatabase() throws Exception {
    try (PostgresTestDatabase db = PostgresTestDatabase.createOrSkip();
        PostgresTestDatabase neighbourDb = PostgresTestDatabase.createOrSkip();
        JournalWriterLock neighbour =
            JournalWriterLock.acquire(
                neighbourDb.location(), PID, "parreg participant 0, port 2571 on neighbour");
        JournalWriterLock first =
            JournalWriterLock.acquire(db.location(), PID, "parreg participant 0, port 2551 on a")) {
      JournalWriterLock.HeldException e =
          assertThrows(
              JournalWriterLock.HeldException.class,
              () -> JournalWriterLock.acquire(db.location(), PID, "c"));
      assertTrue(
          e.getMessage()
              .contains(
                  "is being written by another node ('parreg participant 0, port 2551 on a',"
                      + " database session "),
          e.getMessage());
      assertFalse(e.getMessage().contains("neighbour"), e.getMessage());
    }
  }

  @Test
  void keysDifferPerPersistenceId() {
    assertTrue(
        JournalWriterLock.key(PID)
            != JournalWriterLock.key(JournalRuns.persistenceId("parreg-run", 1)));
    assertTrue(JournalWriterLock.key(PID) == JournalWriterLock.key("parreg|parreg-run|p0"));
  }
}
