package parreg.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Marker;

/**
 * A logback turbo filter that limits every logger to a burst of {@code burst} messages (INFO and
 * above) and then {@code perSecond} a second (a token bucket per logger), drops the rest, and says
 * so at the first drop and then every {@link #REPORT_EVERY_NANOS 10 s} how many it dropped.
 *
 * <p>Why: bytes from outside can make a library log in a loop. Pekko 1.7.0's Artery TCP framing,
 * sent 9 bytes ({@code AKKA}, version 2, a negative frame length), logs "Dropping message due to:
 * IndexOutOfBoundsException" about 170,000 times a second for ever (STACK.md): tens of MB of log a
 * second, a full disk within the hour. With this filter such a loop adds a few lines a second,
 * whatever the message; a repeated message and a flood whose text varies are limited alike. A
 * node's own loggers write a few lines per run (start, recovery, roster, peers, done), far below
 * the burst. DEBUG and TRACE pass: they are on only when asked for. Configured in logback.xml.
 */
public final class LogRateLimit extends TurboFilter {
  /**
   * The logger of the filter's own "suppressed" lines; never limited (one line per 10 s per flooded
   * logger).
   */
  static final String SELF = LogRateLimit.class.getName();

  static final long REPORT_EVERY_NANOS = 10_000_000_000L;

  private int burst = 200;
  private double perSecond = 2;
  private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

  /** One logger's tokens and what it had dropped since the last report. */
  private static final class Bucket {
    double tokens;
    long lastNanos;
    long dropped;
    long lastReportNanos;

    Bucket(double tokens, long now) {
      this.tokens = tokens;
      this.lastNanos = now;
      this.lastReportNanos = now - REPORT_EVERY_NANOS; // the first drop is reported at once
    }
  }

  public void setBurst(int burst) {
    this.burst = burst;
  }

  public void setPerSecond(double perSecond) {
    this.perSecond = perSecond;
  }

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (format == null && t == null) {
      return FilterReply.NEUTRAL; // an isEnabled() probe, not a message
    }
    if (!level.isGreaterOrEqual(Level.INFO) || logger.getName().equals(SELF)) {
      return FilterReply.NEUTRAL;
    }
    long now = System.nanoTime();
    long report = 0;
    FilterReply reply;
    Bucket b = buckets.computeIfAbsent(logger.getName(), k -> new Bucket(burst, now));
    synchronized (b) {
      b.tokens = Math.min(burst, b.tokens + (now - b.lastNanos) * perSecond / 1e9);
      b.lastNanos = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        reply = FilterReply.NEUTRAL;
      } else {
        b.dropped++;
        reply = FilterReply.DENY;
      }
      if (b.dropped > 0 && now - b.lastReportNanos >= REPORT_EVERY_NANOS) {
        report = b.dropped;
        b.dropped = 0;
        b.lastReportNanos = now;
      }
    }
    if (report > 0) {
      logger
          .getLoggerContext()
          .getLogger(SELF)
          .warn(
              "dropping messages of logger {} (more than {} at once, then {} a second): {} dropped"
                  + " since the last count; a count follows every 10 s while it lasts",
              logger.getName(),
              burst,
              perSecond,
              report);
    }
    return reply;
  }
}
