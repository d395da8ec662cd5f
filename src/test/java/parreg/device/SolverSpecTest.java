package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The contract's solver term: its canonical text, and a contract without one as it always was. */
class SolverSpecTest {
  static final SolverSpec EXACT = SolverSpec.exact("gram-tile256-dd/v1", "dd/v1", "0");

  @Test
  void textRoundTrips() {
    assertEquals(EXACT, SolverSpec.parse(EXACT.text()));
    assertEquals("exact;order=gram-tile256-dd/v1;solve=dd/v1;l2=0", EXACT.text());
    assertEquals(SolverSpec.GD, SolverSpec.parse(""));
    assertEquals("", SolverSpec.GD.text());
    assertEquals(1e-3, SolverSpec.parse("exact;order=o;solve=s;l2=0.001").l2Value());
  }

  @Test
  void malformedTermsAreNamed() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> SolverSpec.parse("newton"))
            .getMessage()
            .contains("'newton'"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> SolverSpec.parse("exact;order=o;solve=s;l2=-1"))
            .getMessage()
            .contains(">= 0"));
    assertThrows(IllegalArgumentException.class, () -> SolverSpec.parse("exact;order=o;l2=0"));
    assertThrows(
        IllegalArgumentException.class, () -> SolverSpec.parse("exact;order=o;solve=s;l2=x"));
  }

  @Test
  void aContractWithoutASolverKeepsItsFieldsAndDigest() {
    RunContract seed = RunContract.seed(2, 0);
    assertFalse(seed.fields().containsKey("solver"));
    // the seed run's digest is part of its persistence ids: it must never move
    assertEquals(RunContract.digestOf(seed.fields()), seed.digest());
    RunContract exact = seed.withSolver(EXACT);
    assertEquals(EXACT.text(), exact.fields().get("solver"));
    assertNotEquals(seed.digest(), exact.digest());
    assertTrue(seed.firstDifference(exact).orElseThrow().startsWith("solver:"));
    assertEquals(exact, RunContract.fromFields(exact.fields()));
    assertEquals(seed, RunContract.fromFields(seed.fields()));
    assertEquals(exact, exact.withRunName("other").withRunName(exact.runName()));
  }
}
