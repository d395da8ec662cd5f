package parreg.persistence;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Recognises, in the exception a journal failure carries, the causes an operator can act on. The
 * interesting cause is deep: H2 reports a full disk as "The database has been closed", caused by an
 * {@code MVStoreException} ("Writing to ... failed"), caused by the {@code IOException} "No space
 * left on device"; H2's chains also refer back to themselves (suppressed exceptions).
 */
public final class JournalErrors {
  /**
   * PostgreSQL's SQLSTATE for disk_full (class 53, insufficient resources): what a write gets when
   * a table or index file cannot grow ("could not extend file ...: No space left on device",
   * PostgresDiskFullTest). The rest of class 53 is not the disk: 53000 insufficient_resources (the
   * class's generic code), 53200 out_of_memory, 53300 too_many_connections, 53400
   * configuration_limit_exceeded; a full write-ahead-log disk stops the whole server instead.
   */
  static final String POSTGRES_DISK_FULL = "53100";

  private JournalErrors() {}

  /**
   * Whether {@code failure} was caused by a full disk (ENOSPC or a disk quota on the journal's file
   * system, or PostgreSQL's disk_full), anywhere in its causes and suppressed exceptions.
   */
  public static boolean isDiskFull(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Deque<Throwable> todo = new ArrayDeque<>();
    if (failure != null) {
      todo.push(failure);
    }
    while (!todo.isEmpty()) {
      Throwable t = todo.pop();
      if (!seen.add(t)) {
        continue;
      }
      if (t instanceof SQLException s && POSTGRES_DISK_FULL.equals(s.getSQLState())) {
        return true;
      }
      String m = t.getMessage();
      if (m != null
          && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
        return true;
      }
      if (t.getCause() != null) {
        todo.push(t.getCause());
      }
      for (Throwable s : t.getSuppressed()) {
        todo.push(s);
      }
      if (t instanceof SQLException s && s.getNextException() != null) {
        todo.push(s.getNextException());
      }
    }
    return false;
  }

  /**
   * A file failure in words: the file and what happened to it. The JDK's own message of a missing
   * or forbidden file is the bare path ({@code NoSuchFileException}, {@code
   * AccessDeniedException}), which says nothing of why.
   */
  public static String describe(java.io.IOException e) {
    if (e instanceof java.nio.file.FileSystemException f) {
      String file = f.getFile() == null ? String.valueOf(f.getMessage()) : f.getFile();
      if (f instanceof java.nio.file.NoSuchFileException) {
        return file + ": no such file or directory (the journal directory was deleted or moved?)";
      }
      if (f instanceof java.nio.file.AccessDeniedException) {
        return file + ": permission denied (the journal directory is not writable)";
      }
      if (f.getReason() != null) {
        return file + ": " + f.getReason();
      }
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
