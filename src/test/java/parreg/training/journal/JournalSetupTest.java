package parreg.training.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.node.ParregNode;

/**
 * The journal of a node is created while its actor system starts ({@link ParregNode#run}); a start
 * that fails after that removes what it created, and only that ({@link JournalSetup#undoCreate}).
 */
class JournalSetupTest {
  @TempDir Path dir;

  private static JournalSetup created(Path journal) {
    JournalSetup s = JournalSetup.open(journal.toString(), null, "test");
    s.create(Duration.ofSeconds(10), 1 << 20);
    return s;
  }

  private static List<Path> list(Path d) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      return s.toList();
    }
  }

  @Test
  void aFailedStartRemovesTheDirectoriesItCreated() {
    Path journal = dir.resolve("a/b/node-0");
    JournalSetup s = created(journal);
    assertTrue(Files.isRegularFile(journal.resolve("journal.mv.db")));
    assertTrue(s.undoable());
    s.undoCreate();
    assertFalse(Files.exists(dir.resolve("a")), "nothing of this start remains");
  }

  @Test
  void aFailedStartInAnExistingDirectoryRemovesOnlyItsFiles() throws Exception {
    Path journal = Files.createDirectories(dir.resolve("node-0"));
    Files.writeString(journal.resolve("notes.txt"), "the operator's");
    created(journal).undoCreate();
    assertEquals(List.of(journal.resolve("notes.txt")), list(journal));
  }

  @Test
  void aFailedRestartKeepsTheJournalItFound() throws Exception {
    Path journal = dir.resolve("node-0");
    created(journal).close(); // a journal of an earlier start
    long size = Files.size(journal.resolve("journal.mv.db"));
    created(journal).undoCreate();
    assertTrue(Files.isRegularFile(journal.resolve("journal.mv.db")));
    assertTrue(Files.size(journal.resolve("journal.mv.db")) >= size);
  }

  @Test
  void nothingIsRemovedWithoutACreate() throws Exception {
    Path journal = Files.createDirectories(dir.resolve("node-0"));
    created(journal).close();
    JournalSetup.open(journal.toString(), null, "test").undoCreate();
    assertTrue(Files.isRegularFile(journal.resolve("journal.mv.db")));
  }
}
