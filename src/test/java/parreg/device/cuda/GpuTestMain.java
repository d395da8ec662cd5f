package parreg.device.cuda;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * Runs the GPU tests where there is no Maven (the device machine; see docs/GPU.md): the package
 * parreg.device.cuda and the CPU golden test, or the classes (or methods, {@code
 * parreg.device.cuda.CudaParityTest#widePlansMatchTheReference(int,int,java.lang.String)}) named as
 * arguments. Prints one line per test and a summary; exits 0 only if nothing failed.
 */
public final class GpuTestMain {
  private GpuTestMain() {}

  public static void main(String[] args) {
    List<DiscoverySelector> selectors = new ArrayList<>();
    if (args.length == 0) {
      for (Class<?> c :
          new Class<?>[] {
            CudaBackendWithoutGpuTest.class,
            CudaBindingTest.class,
            CudaGoldenTrajectoryTest.class,
            CudaParityTest.class,
            PtxMatchesSourceTest.class
          }) {
        selectors.add(selectClass(c));
      }
      selectors.add(selectClass("parreg.device.GoldenTrajectoryTest"));
    } else {
      for (String a : args) {
        selectors.add(a.contains("#") ? selectMethod(a) : selectClass(a));
      }
    }
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
    Launcher launcher = LauncherFactory.create();
    SummaryGeneratingListener summary = new SummaryGeneratingListener();
    TestExecutionListener lines =
        new TestExecutionListener() {
          private final java.util.Map<String, Long> started =
              new java.util.concurrent.ConcurrentHashMap<>();

          @Override
          public void executionStarted(TestIdentifier id) {
            started.put(id.getUniqueId(), System.nanoTime());
          }

          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            System.out.println("SKIP " + id.getDisplayName() + ": " + reason);
          }

          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest()) {
              return;
            }
            long ms =
                (System.nanoTime() - started.getOrDefault(id.getUniqueId(), System.nanoTime()))
                    / 1_000_000;
            String parent =
                id.getParentId().map(p -> p.replaceAll(".*class:([^\\]]*)\\].*", "$1")).orElse("");
            String name = parent.substring(parent.lastIndexOf('.') + 1) + " " + id.getDisplayName();
            switch (result.getStatus()) {
              case SUCCESSFUL -> System.out.println("PASS " + name + " (" + ms + " ms)");
              case ABORTED ->
                  System.out.println(
                      "SKIP "
                          + name
                          + ": "
                          + result.getThrowable().map(Throwable::getMessage).orElse(""));
              case FAILED ->
                  System.out.println(
                      "FAIL "
                          + name
                          + ": "
                          + result.getThrowable().map(Throwable::toString).orElse(""));
            }
          }
        };
    launcher.execute(request, summary, lines);
    summary.getSummary().printTo(new PrintWriter(System.out));
    summary.getSummary().printFailuresTo(new PrintWriter(System.out), 25);
    System.out.flush();
    long bad = summary.getSummary().getTotalFailureCount();
    System.exit(bad == 0 && summary.getSummary().getTestsSucceededCount() > 0 ? 0 : 1);
  }
}
