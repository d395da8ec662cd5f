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

  private StartupTrace() {}

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
