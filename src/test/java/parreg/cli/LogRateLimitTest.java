package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;

/**
 * The log flood guard in isolation: a burst, then the trickle; loggers limited independently; the
 * drop reported.
 */
class LogRateLimitTest {

  @Test
  void aFloodingLoggerIsCutToTheBurstAndTheDropIsReported() {
    LoggerContext ctx = new LoggerContext();
    LogRateLimit limit = new LogRateLimit();
    limit.setBurst(50);
    limit.setPerSecond(1);
    limit.setContext(ctx);
    limit.start();
    ctx.addTurboFilter(limit);
    ListAppender<ILoggingEvent> out = new ListAppender<>();
    out.setContext(ctx);
    out.start();
    Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.DEBUG);
    root.addAppender(out);

    Logger flood = ctx.getLogger("org.apache.pekko.remote.artery.Decoder");
    for (int i = 0; i < 100_000; i++) {
      flood.warn(
          "Dropping message due to: {}", "java.lang.IndexOutOfBoundsException " + i); // text varies
    }
    long passed = out.list.stream().filter(e -> e.getLoggerName().equals(flood.getName())).count();
    assertTrue(passed >= 50 && passed <= 52, "the burst passes, then about 1 a second: " + passed);
    assertTrue(
        out.list.stream()
            .anyMatch(
                e ->
                    e.getLoggerName().equals(LogRateLimit.SELF)
                        && e.getFormattedMessage()
                            .startsWith(
                                "dropping messages of logger org.apache.pekko.remote.artery.Decoder")),
        "the drop is reported");

    Logger other = ctx.getLogger("parreg.training.TrainingActor");
    other.info("target step committed");
    assertEquals(
        "target step committed",
        out.list.get(out.list.size() - 1).getFormattedMessage(),
        "other loggers are not limited");
    for (int i = 0; i < 1000; i++) {
      flood.debug("debug is not limited {}", i);
    }
    assertEquals(1000, out.list.stream().filter(e -> e.getLevel() == Level.DEBUG).count());
  }
}
