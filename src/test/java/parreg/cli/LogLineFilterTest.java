package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The product's logback.xml drops Pekko's misleading start line, and only that line. */
class LogLineFilterTest {

  @Test
  void theSeedNodeAdviceIsDroppedAndTheClusterKeepsItsOtherLines() throws Exception {
    LoggerContext ctx = new LoggerContext();
    JoranConfigurator conf = new JoranConfigurator();
    conf.setContext(ctx);
    conf.doConfigure(LogLineFilterTest.class.getResource("/logback.xml"));
    ListAppender<ILoggingEvent> out = new ListAppender<>();
    out.setContext(ctx);
    out.start();
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(out);

    Logger cluster = ctx.getLogger("org.apache.pekko.cluster.Cluster");
    Logger other = ctx.getLogger("parreg.training.TrainingRecovery");
    String advice =
        "Cluster Node [pekko://parreg@127.0.0.1:25000] - No seed-nodes configured, manual cluster"
            + " join required, see https://pekko.apache.org/docs/pekko/current/typed/cluster.html";
    cluster.info("{}", advice); // as pekko-slf4j logs: the formatted message as the argument
    cluster.info(advice);
    cluster.info("{}", "Cluster Node [pekko://parreg@127.0.0.1:25000] - Started up successfully");
    other.info("{}", advice);

    assertEquals(
        List.of("Cluster Node [pekko://parreg@127.0.0.1:25000] - Started up successfully", advice),
        out.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
  }
}
