package parreg.training;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import parreg.device.Partition;
import parreg.metrics.NodeMetrics;

/**
 * The hold-out evaluation: asks the training actor for commits, answers with the newest result,
 * hand-checked.
 */
class ValidationActorTest {
  static ActorTestKit kit;

  @BeforeAll
  static void start() {
    // a cluster provider (not joined): the metrics the actor records read cluster membership
    kit =
        ActorTestKit.create(
            "validation",
            ConfigFactory.parseString(
                    "pekko.actor.provider = cluster\npekko.remote.artery.canonical.port = 0\npekko.cluster.seed-nodes = []")
                .withFallback(ConfigFactory.load()));
  }

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void evaluatesTheCommittedParametersItIsGiven() throws Exception {
    // y = 2x + 1 predicts 1, 3, 5, 7; targets 0, 2, 4, 10: SSE = 12, RMSE = sqrt(3), SST = 56, R² =
    // 1 - 12/56.
    Partition holdOut =
        Partition.ofRows(new float[][] {{0}, {1}, {2}, {3}}, new float[] {0, 2, 4, 10});
    TestProbe<TrainingActor.Command> training = kit.createTestProbe();
    ActorRef<ValidationActor.Command> v =
        kit.spawn(ValidationActor.create(holdOut, true, 50, training.getRef()));
    TrainingActor.WatchCommits watch =
        training.expectMessageClass(TrainingActor.WatchCommits.class);
    assertEquals(50, watch.every());

    TestProbe<ValidationActor.Result> answers = kit.createTestProbe();
    v.tell(new ValidationActor.GetResult(answers.getRef()));
    assertEquals(ValidationActor.Result.NONE, answers.receiveMessage());

    watch.replyTo().tell(new TrainingActor.CommittedParameters(50, new double[] {2, 1}));
    ValidationActor.Result r =
        answers.awaitAssert(
            Duration.ofSeconds(5),
            () -> {
              v.tell(new ValidationActor.GetResult(answers.getRef()));
              ValidationActor.Result got = answers.receiveMessage();
              assertEquals(50, got.step());
              return got;
            });
    assertEquals(4, r.n());
    assertEquals(Math.sqrt(3.0), r.rmse());
    assertEquals(1.0 - 12.0 / 56.0, r.r2());
    // and in /metrics
    java.io.ByteArrayOutputStream scraped = new java.io.ByteArrayOutputStream();
    NodeMetrics.get(kit.system()).scrape(scraped);
    String text = scraped.toString(java.nio.charset.StandardCharsets.UTF_8);
    org.junit.jupiter.api.Assertions.assertTrue(text.contains("parreg_validation_step 50"), text);
    org.junit.jupiter.api.Assertions.assertTrue(
        text.contains("parreg_validation_rmse " + Math.sqrt(3.0)), text);
  }
}
