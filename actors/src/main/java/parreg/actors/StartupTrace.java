package parreg.actors;

/**
 * Start-up milestones of a node on stderr, relative to the process start, when the environment
 * variable {@code PARREG_STARTUP_TRACE} is set (scripts/bench-restart.sh; logging is not up yet
 * when most of them happen).
 */
public final class StartupTrace {
  private static final boolean ON = System.getenv("PARREG_STARTUP_TRACE") != null;
  private static final long START_MS =
      ON
          ? ProcessHandle.current()
              .info()
              .startInstant()
              .map(java.time.Instant::toEpochMilli)
              .orElse(0L)
          : 0L;

  private static final java.util.Set<String> SEEN =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private StartupTrace() {}

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
