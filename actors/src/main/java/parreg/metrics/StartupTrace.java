package parreg.metrics;

/**
 * Start-up milestones of a node on stderr, relative to the process start, when the environment
 * variable {@code PARREG_STARTUP_TRACE} is set (scripts/bench/restart.sh; logging is not up yet
 * when most of them happen).
 */
public final class StartupTrace {
  private static final boolean ON = System.getenv("PARREG_STARTUP_TRACE") != null;
  private static final long START_MS = ON ? processStartMillis() : 0L;
  private static final java.util.Set<String> SEEN =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private StartupTrace() {}

  /**
   * When this process started, to about 10 ms: now minus (the system's uptime minus the process's
   * start in clock ticks after boot, /proc). {@code ProcessHandle}'s start instant counts from the
   * boot time in whole seconds (/proc/stat btime), so every milestone read up to a second late
   * (0.4-0.6 s here: "main" at +900 ms where it was at +400).
   */
  private static long processStartMillis() {
    long now = System.currentTimeMillis();
    try {
      String uptime = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"));
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      // Fields after "(comm)": state is field 3, starttime field 22.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long startTicks = Long.parseLong(f[19]);
      double uptimeS = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
      return now - Math.round(uptimeS * 1000) + startTicks * 1000 / CLOCK_TICKS_PER_SECOND;
    } catch (java.io.IOException | RuntimeException e) {
      return ProcessHandle.current()
          .info()
          .startInstant()
          .map(java.time.Instant::toEpochMilli)
          .orElse(now);
    }
  }

  /** USER_HZ: 100 on every Linux ABI parreg runs on (x86-64, arm64). */
  private static final long CLOCK_TICKS_PER_SECOND = 100;

  /** Whether milestones are printed (callers that build a message can skip the work). */
  public static boolean on() {
    return ON;
  }

  /**
   * {@link #mark}, the first time only: milestones on the step path (first contribution sent, first
   * committed step) cost one volatile read afterwards, and nothing when tracing is off.
   */
  public static void once(String what) {
    if (ON && SEEN.add(what)) {
      mark(what);
    }
  }

  public static void mark(String what) {
    if (ON) {
      System.err.println(
          "startup +"
              + (System.currentTimeMillis() - START_MS)
              + " ms: "
              + what
              + " ["
              + Thread.currentThread().getName()
              + "]");
    }
  }
}
