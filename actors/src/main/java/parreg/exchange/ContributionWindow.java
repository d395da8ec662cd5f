package parreg.exchange;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import parreg.device.LocalSums;

/**
 * The peer actor's contributions by step: the sets being gathered for the steps not yet committed,
 * the sets of the last {@code windowSteps} committed steps (served to a peer catching up from
 * memory), the committed sets peers sent along with their contributions (this node's recorded entry
 * is checked by the training actor), and the step this node waits on, since when.
 *
 * <p>Not thread-safe: the peer actor owns it.
 */
final class ContributionWindow {
  private final int me;
  private final int participants;
  private final int windowSteps;
  private final TreeMap<Long, LocalSums[]> window = new TreeMap<>();
  private final Map<Long, LocalSums[]> recordedSets = new HashMap<>();
  private long awaitingStep = -1;
  private long awaitingSince;

  ContributionWindow(int me, int participants, int windowSteps) {
    this.me = me;
    this.participants = participants;
    this.windowSteps = windowSteps;
  }

  private LocalSums[] slot(long step) {
    return window.computeIfAbsent(step, k -> new LocalSums[participants]);
  }

  /** Our own contribution to {@code step}: from now on this node waits on that step. */
  void publish(long step, LocalSums sums, long nowNanos) {
    slot(step)[me] = sums;
    if (step != awaitingStep) {
      awaitingStep = step;
      awaitingSince = nowNanos;
    }
  }

  /**
   * A peer's contribution to a step not committed here, with the set it committed for that step
   * (null: none). Returns how many seconds this node had waited for it: 0 when it came before our
   * own, NaN when it was here already.
   */
  double put(long step, int participant, LocalSums sums, LocalSums[] committedSet, long nowNanos) {
    LocalSums[] slot = slot(step);
    double waited =
        slot[participant] != null
            ? Double.NaN
            : step == awaitingStep ? (nowNanos - awaitingSince) / 1e9 : 0;
    slot[participant] = sums;
    if (committedSet != null) {
      recordedSets.put(step, committedSet);
    }
    return waited;
  }

  /** Step {@code step}'s set (gathered or committed; null: none here). */
  LocalSums[] get(long step) {
    return window.get(step);
  }

  /** This node's contribution to {@code step}, or null. */
  LocalSums own(long step) {
    LocalSums[] set = window.get(step);
    return set == null ? null : set[me];
  }

  /** Step {@code step}'s set once every participant's contribution is in, else null. */
  LocalSums[] complete(long step) {
    LocalSums[] set = window.get(step);
    if (set == null) {
      return null;
    }
    for (LocalSums s : set) {
      if (s == null) {
        return null;
      }
    }
    return set;
  }

  /** This node's entry in the set a peer recorded for {@code step} (null: none sent). */
  LocalSums recordedOwn(long step) {
    LocalSums[] recorded = recordedSets.get(step);
    return recorded == null ? null : recorded[me];
  }

  /** Step {@code step} committed with {@code set}: kept, and older steps out of the window. */
  void committed(long step, LocalSums[] set) {
    window.put(step, set);
    recordedSets.remove(step);
    while (!window.isEmpty() && window.firstKey() <= step - windowSteps) {
      window.pollFirstEntry();
    }
    recordedSets.keySet().removeIf(s -> s <= step);
    if (awaitingStep <= step) {
      awaitingStep = -1;
    }
  }

  /** The step this node waits on (-1: none). */
  long awaitingStep() {
    return awaitingStep;
  }

  /** How long this node has waited on {@link #awaitingStep} (0 when it waits on none). */
  long waitedMillis(long nowNanos) {
    return awaitingStep > 0 ? (nowNanos - awaitingSince) / 1_000_000 : 0;
  }

  /** The participants whose contribution to the awaited step is missing (none while none). */
  List<Integer> missing() {
    List<Integer> out = new ArrayList<>();
    if (awaitingStep < 0) {
      return out;
    }
    LocalSums[] set = window.get(awaitingStep);
    for (int p = 0; p < participants; p++) {
      if (set == null || set[p] == null) {
        out.add(p);
      }
    }
    return out;
  }
}
