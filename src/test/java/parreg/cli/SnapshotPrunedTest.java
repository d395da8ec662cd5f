package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.persistence.JournalLocation;
import parreg.persistence.KryoCodec;
import parreg.persistence.RunEvents;

/**
 * {@code journal verify} on a journal whose node deletes an old snapshot while it is read (a live
 * PostgreSQL journal: the node keeps its two latest snapshots). The deletion is made to fall
 * between verify's first query and the next; before, verify listed the snapshots' sequence numbers
 * first and read each one later, and failed with {@code NoSuchElementException: No value present}.
 */
class SnapshotPrunedTest {
  @TempDir Path dir;

  @Test
  void aSnapshotDeletedWhileVerifyReadsDoesNotFailIt() throws Exception {
    Path j = Files.createDirectories(dir.resolve("golden"));
    try (var in = getClass().getResourceAsStream("/golden-journal-v1/node-1/journal.mv.db")) {
      Files.copy(in, j.resolve("journal.mv.db"));
    }
    JournalLocation location = JournalLocation.parse(j.toString());
    KryoCodec codec = KryoCodec.fromConfig(com.typesafe.config.ConfigFactory.load());
    try (Connection reader = location.openExistingConnection();
        Connection node = location.openExistingConnection()) {
      AtomicInteger statements = new AtomicInteger();
      Connection pruning =
          (Connection)
              Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")
                        && statements.incrementAndGet() == 2) {
                      // The node deletes its older snapshots between two of verify's reads.
                      node.createStatement().executeUpdate("DELETE FROM \"snapshot\"");
                    }
                    try {
                      return method.invoke(reader, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                  });
      String pid = Checkpoint.persistenceId(reader, codec, location, 1, null);
      JournalVerifier.Summary s =
          JournalVerifier.verify(RunEvents.of(pruning, codec, location), pid);
      assertEquals(201, s.events());
      assertEquals(2, s.snapshots());
    }
  }
}
