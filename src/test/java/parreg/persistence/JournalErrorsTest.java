package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import org.junit.jupiter.api.Test;

/**
 * A full disk is recognised in the failures the journal reports (issue 13 item 8), without a full
 * disk: the chains below are shaped as H2 2.x and PostgreSQL report them (seen on a 1.5 MB tmpfs,
 * see the class comment of {@link JournalErrors}).
 */
class JournalErrorsTest {
  @Test
  void h2sClosedDatabaseCausedByNoSpaceLeftOnDevice() {
    IOException enospc = new IOException("No space left on device");
    RuntimeException mvstore =
        new IllegalStateException(
            "Writing to sun.nio.ch.FileChannelImpl@1 failed; length 4096 at 1527808 [2.5.252/2]",
            enospc);
    SQLException general =
        new SQLException("General error: \"" + mvstore + "\" [50000-252]", "HY000", 50000, mvstore);
    mvstore.addSuppressed(general); // H2's chains refer back to themselves
    SQLException closed =
        new SQLNonTransientConnectionException(
            "The database has been closed [90098-252]", "90098", 90098, mvstore);
    RuntimeException recovery =
        new RuntimeException(
            "Exception during recovery from snapshot. PersistenceId [p]. " + closed.getMessage(),
            closed);
    assertTrue(JournalErrors.isDiskFull(recovery));
  }

  @Test
  void postgresDiskFullBySqlState() {
    SQLException pg =
        new SQLException(
            "ERROR: could not extend file \"base/16384/16390\"", JournalErrors.POSTGRES_DISK_FULL);
    assertTrue(JournalErrors.isDiskFull(new RuntimeException("Failed to persist event", pg)));
    SQLException next = new SQLException("batch entry 0 was aborted");
    next.setNextException(new SQLException("ERROR: could not write to file", "53100"));
    assertTrue(JournalErrors.isDiskFull(next), "the batch's next exception is looked at too");
  }

  @Test
  void otherFailuresAreNotDiskFull() {
    SQLException closed =
        new SQLNonTransientConnectionException(
            "The database has been closed [90098-252]", "90098", 90098);
    assertFalse(JournalErrors.isDiskFull(new RuntimeException("recovery failed", closed)));
    assertFalse(JournalErrors.isDiskFull(new IOException("Permission denied")));
    assertFalse(JournalErrors.isDiskFull(new SQLException("Connection refused", "08001")));
    assertFalse(JournalErrors.isDiskFull(null));
  }

  @Test
  void aMissingOrForbiddenJournalFileIsDescribedWithItsReason() {
    // The JDK's message of these is the bare path, which is all a node said before.
    String gone =
        JournalErrors.describe(
            new java.nio.file.NoSuchFileException("/j/journal.steplog/1.steplog"));
    assertTrue(
        gone.startsWith("/j/journal.steplog/1.steplog: no such file or directory (the journal"),
        gone);
    String denied = JournalErrors.describe(new java.nio.file.AccessDeniedException("/j/x"));
    assertTrue(denied.startsWith("/j/x: permission denied"), denied);
    String readOnly =
        JournalErrors.describe(
            new java.nio.file.FileSystemException("/j/x", null, "Read-only file system"));
    assertTrue(readOnly.equals("/j/x: Read-only file system"), readOnly);
  }
}
