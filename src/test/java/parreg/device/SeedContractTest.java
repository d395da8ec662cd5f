package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Seed fidelity (issue 13 item 9): the seed run's contract carries the seed's exact byte strings
 * (seed/000_83ef71b44b40d253.txt lines 46-48), they are part of its identity, and they must agree
 * with the contract's own rate and initial weight.
 */
class SeedContractTest {
  static final RunContract SEED = RunContract.seed(2, 0);

  @Test
  void theSeedContractCarriesTheSeedsBytes() {
    Map<String, String> f = SEED.fields();
    assertEquals("sample-mass-squared-error;rate=1/4;f32-gradient-f64-update", f.get("loss"));
    assertEquals("fixed-repeated-batch:x=1,1,2;y=0", f.get("dataset"));
    assertEquals("initial-natural-weight=3", f.get("initialization"));
    assertEquals("scalar-parameter-updates-batches-epoch/v1", f.get("checkpointContract"));
    assertEquals(
        SEED,
        RunContract.fromFields(f),
        "what a checkpoint stores reads back to the same contract");
  }

  @Test
  void aContractWithoutTheTermsIsAnotherRunAndTheFieldIsNamed() {
    RunContract bare =
        new RunContract(
            SEED.runName(),
            SEED.schema(),
            SEED.checkpointContract(),
            SEED.loss(),
            SEED.learningRate(),
            SEED.initialWeights(),
            SEED.features(),
            SEED.bias(),
            SEED.participants(),
            SEED.dataset(),
            SEED.batchSize(),
            SEED.reductionOrder());
    assertFalse(SEED.equals(bare));
    assertEquals(
        "initialization: expected 'initial-natural-weight=3' but found ''",
        SEED.firstDifference(bare).orElseThrow());
    assertEquals(
        "initialization: expected '' but found 'initial-natural-weight=3'",
        bare.firstDifference(SEED).orElseThrow());
  }

  @Test
  void theTermsMustAgreeWithTheRateAndTheInitialWeight() {
    IllegalArgumentException rate =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new RunContract(
                    SEED.runName(),
                    SEED.schema(),
                    SEED.checkpointContract(),
                    SEED.loss(),
                    "1/8",
                    SEED.initialWeights(),
                    SEED.initialization(),
                    1,
                    false,
                    2,
                    SEED.dataset(),
                    0,
                    SEED.reductionOrder()));
    assertTrue(rate.getMessage().contains("loss term"), rate.getMessage());
    IllegalArgumentException w =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new RunContract(
                    SEED.runName(),
                    SEED.schema(),
                    SEED.checkpointContract(),
                    SEED.loss(),
                    "1/4",
                    new double[] {2.5},
                    SEED.initialization(),
                    1,
                    false,
                    2,
                    SEED.dataset(),
                    0,
                    SEED.reductionOrder()));
    assertTrue(
        w.getMessage().contains("initialization term 'initial-natural-weight=3' does not match"),
        w.getMessage());
  }

  @Test
  void aSeedContractOfFormatV1ReadsAsTheSeedContract() {
    RunContract v1 =
        new RunContract(
            SEED.runName(),
            SEED.schema(),
            SEED.checkpointContract(),
            RunContract.LOSS,
            "1/4",
            new double[] {3.0},
            1,
            false,
            2,
            RunContract.LEGACY_SEED_DATASET,
            0,
            SEED.reductionOrder());
    assertEquals(SEED, v1.upgradeLegacySeed());
    RunContract file =
        new RunContract(
            "parreg-run",
            SEED.schema(),
            SEED.checkpointContract(),
            RunContract.LOSS,
            "1/4",
            new double[] {3.0},
            1,
            false,
            2,
            "files",
            0,
            SEED.reductionOrder());
    assertEquals(file, file.upgradeLegacySeed(), "any other contract is left as it is");
    assertFalse(
        file.fields().containsKey("initialization"),
        "a file run's fields (and digest) are what they were");
  }
}
