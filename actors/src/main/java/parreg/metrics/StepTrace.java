package parreg.metrics;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Optional timestamps of each step's critical path, for performance work only (off unless the JVM
 * runs with {@code -Dparreg.step-trace=PREFIX}; then node P writes {@code PREFIXP} when its target
 * step is committed; {@code scripts/bench/step-trace.py PREFIX} prints the breakdown). Nodes on one
 * machine share {@link System#nanoTime}'s clock, so one node's send and the other's receive
 * compare.
 *
 * <p>Points, per step k: 0 step started (previous step durable), 1 GPU actor got Compute, 2 its
 * fence retired, 3 training actor got the result, 4 peer actor got Publish (and sent the
 * contribution), 5 peer actor got the other participant's contribution, 6 peer actor handed over
 * the full set, 7 training actor got it, 8 step committed in memory (its journal write follows
 * behind). The first line also gives the process CPU time per step from step 200 on (warm-up
 * excluded).
 */
public final class StepTrace {
  private static final String PREFIX = System.getProperty("parreg.step-trace");
  private static final int STEPS = 100_000;
  private static final int POINTS = 9;
  private static final long[][] STAMPS = PREFIX == null ? null : new long[POINTS][STEPS];
  private static long cpuAt200;
  private static long lastDurable;

  private StepTrace() {}

  public static void stamp(int point, long step) {
    if (STAMPS != null && step >= 0 && step < STEPS) {
      STAMPS[point][(int) step] = System.nanoTime();
      if (point == 8) {
        lastDurable = step;
        if (step == 200) {
          cpuAt200 = processCpuNanos();
        }
      }
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  public static synchronized void write(int participant) {
    if (STAMPS == null) {
      return;
    }
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(PREFIX + participant)))) {
      if (lastDurable > 200) {
        w.println(
            "# cpu_us_per_step " + (processCpuNanos() - cpuAt200) / 1000 / (lastDurable - 200));
      }
      for (int s = 0; s < STEPS; s++) {
        if (STAMPS[7][s] == 0) {
          continue;
        }
        StringBuilder b = new StringBuilder().append(s);
        for (int p = 0; p < POINTS; p++) {
          b.append(' ').append(STAMPS[p][s]);
        }
        w.println(b);
      }
    } catch (IOException e) {
      System.err.println("parreg: cannot write the step trace: " + e);
    }
  }
}
