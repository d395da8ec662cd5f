package parreg.exchange;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import parreg.device.LocalSums;

/**
 * The peer actor's contributions by step: a set is complete once every participant's entry is in,
 * the exchange wait, the missing participants, a recorded set, and the memory window.
 */
class ContributionWindowTest {
  static final long MS = 1_000_000L;

  static LocalSums sums(double s) {
    return new LocalSums(new double[] {s}, s, 1);
  }

  @Test
  void aSetIsCompleteOnceEveryContributionIsIn() {
    ContributionWindow w = new ContributionWindow(0, 3, 4);
    assertEquals(List.of(), w.missing(), "waiting on no step");
    w.publish(1, sums(1), 10 * MS);
    assertEquals(1, w.awaitingStep());
    assertEquals(List.of(1, 2), w.missing());
    assertEquals(0.0, w.put(2, 1, sums(21), null, 12 * MS), "before our own: no wait");
    assertEquals(0.005, w.put(1, 1, sums(11), null, 15 * MS), 1e-12);
    assertTrue(Double.isNaN(w.put(1, 1, sums(11), null, 16 * MS)), "already here");
    assertNull(w.complete(1));
    assertEquals(List.of(2), w.missing());
    assertEquals(7, w.waitedMillis(17 * MS));
    LocalSums[] recorded = {sums(1), sums(11), sums(12)};
    w.put(1, 2, sums(12), recorded, 18 * MS);
    assertEquals(3, w.complete(1).length);
    assertSame(recorded[0], w.recordedOwn(1));
    assertNull(w.recordedOwn(2));
  }

  @Test
  void committedStepsStayForTheWindowOnly() {
    ContributionWindow w = new ContributionWindow(0, 2, 4);
    for (long k = 1; k <= 6; k++) {
      w.publish(k, sums(k), k * MS);
      w.committed(k, new LocalSums[] {sums(k), sums(10 + k)});
    }
    assertEquals(-1, w.awaitingStep(), "nothing awaited after the commit");
    assertEquals(0, w.waitedMillis(100 * MS));
    assertNull(w.get(2), "older than the window");
    assertArrayEquals(new LocalSums[] {w.own(3), w.get(3)[1]}, w.get(3));
    assertEquals(6.0, w.own(6).gradient()[0]);
  }
}
