package parreg.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * A logback turbo filter that drops one logger's lines containing a given text (in the format or in
 * an argument: Pekko logs through SLF4J as {@code "{}"} and the formatted message), and nothing
 * else of that logger. Configured in logback.xml.
 *
 * <p>Why: every node start logged Pekko's INFO line "No seed-nodes configured, manual cluster join
 * required", which is wrong advice here. A node's actor system starts without seed nodes on purpose
 * (it joins through them once its journal is prepared: {@code ClusterJoin}); the cluster's other
 * INFO lines (joining, Up, leader) stay, operators read them.
 */
public final class LogLineFilter extends TurboFilter {
  private String logger = "";
  private String contains = "";

  public void setLogger(String logger) {
    this.logger = logger;
  }

  public void setContains(String contains) {
    this.contains = contains;
  }

  @Override
  public void start() {
    if (logger.isEmpty() || contains.isEmpty()) {
      addError("LogLineFilter needs both <logger> and <contains>");
      return;
    }
    super.start();
  }

  @Override
  public FilterReply decide(
      Marker marker, Logger log, Level level, String format, Object[] params, Throwable t) {
    if (!isStarted() || log == null || !log.getName().equals(logger)) {
      return FilterReply.NEUTRAL;
    }
    if (format != null && format.contains(contains)) {
      return FilterReply.DENY;
    }
    if (params != null) {
      for (Object p : params) {
        if (p != null && String.valueOf(p).contains(contains)) {
          return FilterReply.DENY;
        }
      }
    }
    return FilterReply.NEUTRAL;
  }
}
