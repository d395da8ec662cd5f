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
    String up =
        "Cluster Node [pekko://parreg@127.0.0.1:25000] - Leader is moving node"
            + " [pekko://parreg@127.0.0.1:25000] to [Up]";
    cluster.info("{}", up);
    // Routine start and stop steps are left out too: a short run's log says what the run did.
    cluster.info("{}", "Cluster Node [pekko://parreg@127.0.0.1:25000] - Started up successfully");
    cluster.info("{}", "Cluster Node [pekko://parreg@127.0.0.1:25000] - Successfully shut down");
    ctx.getLogger("org.apache.pekko.actor.CoordinatedShutdown").info("Running CoordinatedShutdown");
    other.info("{}", advice);

    assertEquals(
        List.of(up, advice), out.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
  }
}
