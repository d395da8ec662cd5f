package parreg.training;

import java.util.Locale;

/**
 * A node's training rate and the progress line it logs (issue 12, item 1): steps per second over
 * the last interval, the time left at that rate, and the line itself. The training actor samples it
 * on a timer ({@code parreg.progress-interval}); a rate over the last interval rather than since
 * the start, because a run's rate changes (a peer restarting, the journal catching up) and an ETA
 * should follow what is happening now.
 *
 * <p>Not thread-safe: one actor owns it.
 */
public final class ProgressMeter {
  private long lastStep;
  private long lastNanos;
  private double stepsPerSecond = Double.NaN;

  /** Starts measuring at {@code step} (the recovered step: a restart's replay is no progress). */
  ProgressMeter(long step, long nowNanos) {
    this.lastStep = step;
    this.lastNanos = nowNanos;
  }

  /** Ends an interval at {@code step}: the rate becomes the steps committed over it per second. */
  void sample(long step, long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed <= 0) {
      return;
    }
    stepsPerSecond = (step - lastStep) * 1e9 / elapsed;
    lastStep = step;
    lastNanos = nowNanos;
  }

  /** Steps per second over the last interval; NaN before the first interval ended. */
  double stepsPerSecond() {
    return stepsPerSecond;
  }

  /**
   * Seconds until {@code target} at the last interval's rate: 0 once reached; NaN while unknown (no
   * interval measured yet, or none of its steps committed: a node waiting for a peer).
   */
  double etaSeconds(long committed, long target) {
    if (committed >= target) {
      return 0;
    }
    if (!(stepsPerSecond > 0)) {
      return Double.NaN;
    }
    return (target - committed) / stepsPerSecond;
  }

  /**
   * The progress line, e.g. {@code progress: step 1200/3000 (40.0%), 250.3 steps/s, ETA 7.2 s, loss
   * 1.2346e-04, durable step 1024}.
   */
  String line(long committed, long target, double loss, long durable, boolean waiting) {
    double rate = stepsPerSecond;
    double eta = etaSeconds(committed, target);
    return String.format(
        Locale.ROOT,
        "progress: step %d/%d (%.1f%%), %s steps/s, ETA %s, loss %s, durable step %d%s",
        committed,
        target,
        target == 0 ? 100.0 : 100.0 * committed / target,
        Double.isNaN(rate) ? "?" : String.format(Locale.ROOT, "%.1f", rate),
        duration(eta),
        Double.isNaN(loss) ? "-" : loss == 0 ? "0" : String.format(Locale.ROOT, "%.4e", loss),
        durable,
        waiting ? ", waiting for a participant" : "");
  }

  /** "7.2 s", "12m03s", "3h05m", or "?" when unknown. */
  public static String duration(double seconds) {
    if (Double.isNaN(seconds) || Double.isInfinite(seconds)) {
      return "?";
    }
    if (seconds < 60) {
      return String.format(Locale.ROOT, "%.1f s", seconds);
    }
    long s = Math.round(seconds);
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
  }
}
