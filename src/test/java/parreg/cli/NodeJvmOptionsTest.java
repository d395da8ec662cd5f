package parreg.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which node processes run C1 only: runs of many short gradient steps do; the exact solver's nodes
 * keep C2, without which its SIMD lanes run as Java objects (about 175 times slower).
 */
class NodeJvmOptionsTest {
  @Test
  void gradientRunsAreC1OnlyAndTheRestKeepC2() {
    assertTrue(NodeProcess.gradientSteps(List.of("node", "--data", "seed", "--port", "1")));
    assertTrue(NodeProcess.gradientSteps(List.of("node", "--solver", "gd", "--data", "f.csv")));
    assertTrue(NodeProcess.gradientSteps(List.of("node", "--solver=gd")));
    assertFalse(NodeProcess.gradientSteps(List.of("node", "--data", "f.csv", "--solver", "auto")));
    assertFalse(NodeProcess.gradientSteps(List.of("node", "--data", "f.csv")));
    assertTrue(
        NodeProcess.command(List.of("node", "--data", "seed")).contains("-XX:TieredStopAtLevel=1"));
    assertFalse(
        NodeProcess.command(List.of("node", "--data", "x.csv"))
            .contains("-XX:TieredStopAtLevel=1"));
  }
}
