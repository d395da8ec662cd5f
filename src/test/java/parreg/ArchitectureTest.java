package parreg;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages' dependency rules (each package-info states its own), checked by ArchUnit on the
 * compiled product classes: {@code solver} is plain Java that knows nothing of parreg's other
 * packages; {@code device} knows nothing of Pekko or of the layers above it; {@code persistence}
 * nothing of the node or the CLI; {@code net} nothing of Pekko or of parreg; the node's packages
 * form layers whose arrows point one way, from {@code parreg.node} down to {@code parreg.protocol};
 * the product never reaches into the benchmarks.
 */
class ArchitectureTest {
  private static final String[] NODE = {
    "parreg.net..",
    "parreg.protocol..",
    "parreg.settings..",
    "parreg.metrics..",
    "parreg.cluster..",
    "parreg.gpu..",
    "parreg.exchange..",
    "parreg.training..",
    "parreg.admin..",
    "parreg.node.."
  };

  private static JavaClasses product;

  @BeforeAll
  static void importProduct() {
    product =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("parreg");
  }

  static ArchRule deviceRule() {
    return noClasses()
        .that()
        .resideInAPackage("parreg.device..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            concat(
                NODE,
                "org.apache.pekko..",
                "com.typesafe..",
                "scala..",
                "parreg.persistence..",
                "parreg.cli..",
                "parreg.bench.."));
  }

  @Test
  void deviceKnowsNothingOfPekkoOrTheLayersAbove() {
    deviceRule().check(product);
  }

  @Test
  void solverIsPlainJava() {
    noClasses()
        .that()
        .resideInAPackage("parreg.solver..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            concat(
                NODE,
                "org.apache.pekko..",
                "com.typesafe..",
                "scala..",
                "parreg.device..",
                "parreg.persistence..",
                "parreg.cli..",
                "parreg.bench.."))
        .check(product);
  }

  @Test
  void persistenceKnowsNothingOfTheNodeOrTheCli() {
    noClasses()
        .that()
        .resideInAPackage("parreg.persistence..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(concat(NODE, "parreg.cli..", "parreg.bench.."))
        .check(product);
  }

  @Test
  void netKnowsNothingOfPekkoOrParreg() {
    noClasses()
        .that()
        .resideInAPackage("parreg.net..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.pekko..",
            "com.typesafe..",
            "scala..",
            "parreg.device..",
            "parreg.persistence..",
            "parreg.protocol..",
            "parreg.settings..",
            "parreg.metrics..",
            "parreg.cluster..",
            "parreg.gpu..",
            "parreg.exchange..",
            "parreg.training..",
            "parreg.admin..",
            "parreg.node..",
            "parreg.cli..",
            "parreg.bench..")
        .check(product);
  }

  @Test
  void theProductNeverReachesIntoTheBenchmarks() {
    noClasses()
        .that()
        .resideOutsideOfPackage("parreg.bench..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("parreg.bench..")
        .check(product);
  }

  @Test
  void theNodesPackagesAreLayered() {
    layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer("Net")
        .definedBy("parreg.net..")
        .layer("Protocol")
        .definedBy("parreg.protocol..")
        .layer("Settings")
        .definedBy("parreg.settings..")
        .layer("Metrics")
        .definedBy("parreg.metrics..")
        .layer("Cluster")
        .definedBy("parreg.cluster..")
        .layer("Gpu")
        .definedBy("parreg.gpu..")
        .layer("Exchange")
        .definedBy("parreg.exchange..")
        .layer("Journal")
        .definedBy("parreg.training.journal..")
        .layer("Training")
        .definedBy("parreg.training")
        .layer("Admin")
        .definedBy("parreg.admin..")
        .layer("Node")
        .definedBy("parreg.node..")
        .layer("Cli")
        .definedBy("parreg.cli..")
        .whereLayer("Cli")
        .mayNotBeAccessedByAnyLayer()
        .whereLayer("Node")
        .mayOnlyBeAccessedByLayers("Cli")
        .whereLayer("Admin")
        .mayOnlyBeAccessedByLayers("Node", "Cli")
        .whereLayer("Training")
        .mayOnlyBeAccessedByLayers("Admin", "Node", "Cli")
        .whereLayer("Journal")
        .mayOnlyBeAccessedByLayers("Training", "Node", "Cli")
        .whereLayer("Exchange")
        .mayOnlyBeAccessedByLayers("Training", "Admin", "Node", "Cli")
        .whereLayer("Gpu")
        .mayOnlyBeAccessedByLayers("Training", "Admin", "Node", "Cli")
        .whereLayer("Cluster")
        .mayOnlyBeAccessedByLayers("Exchange", "Admin", "Node", "Cli")
        .whereLayer("Metrics")
        .mayOnlyBeAccessedByLayers(
            "Cluster", "Gpu", "Exchange", "Journal", "Training", "Admin", "Node", "Cli")
        .whereLayer("Net")
        .mayOnlyBeAccessedByLayers("Cluster", "Admin", "Node", "Cli")
        .whereLayer("Settings")
        .mayOnlyBeAccessedByLayers(
            "Metrics", "Cluster", "Gpu", "Exchange", "Journal", "Training", "Admin", "Node", "Cli")
        .check(product);
  }

  @Test
  void noPackageCycles() {
    slices()
        .matching("parreg.(**)")
        .should()
        .beFreeOfCycles()
        .check(product.that(JavaClass.Predicates.resideOutsideOfPackage("parreg.bench..")));
  }

  @Test
  void theRulesCanFail() {
    // The CLI does use the node's packages: the same rule written for it must find violations.
    ArchRule cliRule =
        noClasses()
            .that()
            .resideInAPackage("parreg.cli..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(NODE);
    assertTrue(cliRule.evaluate(product).hasViolation());
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
