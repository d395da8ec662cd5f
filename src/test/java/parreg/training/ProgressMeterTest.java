package parreg.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rate over the last interval, the ETA at that rate, and the progress line's words. */
class ProgressMeterTest {
  private static final long S = 1_000_000_000L;

  @Test
  void rateIsOverTheLastIntervalOnly() {
    ProgressMeter m = new ProgressMeter(100, 7 * S); // recovered at step 100: replay is no progress
    assertTrue(Double.isNaN(m.stepsPerSecond()), "no interval measured yet");
    assertTrue(Double.isNaN(m.etaSeconds(100, 1000)), "so no ETA");
    m.sample(600, 12 * S); // 500 steps in 5 s
    assertEquals(100.0, m.stepsPerSecond());
    assertEquals(4.0, m.etaSeconds(600, 1000));
    m.sample(610, 17 * S); // then 10 steps in 5 s: the ETA follows the recent rate
    assertEquals(2.0, m.stepsPerSecond());
    assertEquals(195.0, m.etaSeconds(610, 1000));
    m.sample(610, 22 * S); // waiting for a peer: no step
    assertEquals(0.0, m.stepsPerSecond());
    assertTrue(Double.isNaN(m.etaSeconds(610, 1000)), "no progress, no ETA");
    assertEquals(0.0, m.etaSeconds(1000, 1000), "reached");
  }

  @Test
  void theLineSaysStepTargetPercentRateEtaLossAndDurableStep() {
    ProgressMeter m = new ProgressMeter(0, 0);
    assertEquals(
        "progress: step 0/3000 (0.0%), ? steps/s, ETA ?, loss -, durable step 0",
        m.line(0, 3000, Double.NaN, 0, false));
    m.sample(1200, 5 * S);
    assertEquals(
        "progress: step 1200/3000 (40.0%), 240.0 steps/s, ETA 7.5 s, loss 1.2346e-04, durable step 1024",
        m.line(1200, 3000, 1.23456789e-4, 1024, false));
    m.sample(1200, 10 * S);
    assertEquals(
        "progress: step 1200/3000 (40.0%), 0.0 steps/s, ETA ?, loss 0, durable step 1200, waiting for a participant",
        m.line(1200, 3000, 0.0, 1200, true));
  }

  @Test
  void durationsReadAsSecondsMinutesOrHours() {
    assertEquals("7.5 s", ProgressMeter.duration(7.5));
    assertEquals("12m03s", ProgressMeter.duration(723));
    assertEquals("3h05m", ProgressMeter.duration(3 * 3600 + 5 * 60 + 10));
    assertEquals("?", ProgressMeter.duration(Double.NaN));
  }
}
