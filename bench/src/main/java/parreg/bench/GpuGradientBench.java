package parreg.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.ReferenceKernel;
import parreg.device.cuda.CudaBackend;

/**
 * GPU gradient benchmark (issue 3): one step's local sums with the partition resident, as bytes of
 * X and y read per second, for the ordered kernels (the product) and their unordered atomic
 * variants (benchmark only), at N*d about 4*10^8.
 *
 * <p>Usage: {@code GpuGradientBench [--device 0] [--values 400000000] [--d 1,16,256] [--reps 50]
 * [--plans | --plan-list quad2,flow2,...] [--default-last] [--verify] [--out FILE.tsv]}. {@code
 * --plans} also times every plan that fits each d; {@code --plan-list} times the default choice and
 * the listed plans only; {@code --default-last} times the default choice after the listed plans
 * rather than before them (the other order). Time is the median over the repetitions of the kernels
 * alone (CUDA events around the kernels and the tile tree); "step" adds the parameter upload and
 * the result read-back.
 */
public final class GpuGradientBench {
  /**
   * The comparison kernels (comparison_sums.cu beside it): the unordered variants and the plans the
   * product never picks. The product's kernels come from the product's own PTX.
   */
  public static final String COMPARISON_PTX = "/parreg/bench/kernels/comparison_sums.ptx";

  private GpuGradientBench() {}

  public static void main(String[] args) throws Exception {
    String device = "0";
    long values = 400_000_000L;
    int[] ds = {1, 16, 256};
    int reps = 50;
    boolean plans = false;
    List<String> only = null;
    boolean verify = false;
    boolean defaultLast = false;
    String out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--device" -> device = args[++i];
        case "--values" -> values = Long.parseLong(args[++i]);
        case "--d" ->
            ds = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
        case "--reps" -> reps = Integer.parseInt(args[++i]);
        case "--plans" -> plans = true;
        case "--plan-list" -> only = Arrays.asList(args[++i].split(","));
        case "--verify" -> verify = true;
        case "--default-last" -> defaultLast = true;
        case "--out" -> out = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    List<String> rows = new ArrayList<>();
    rows.add(
        "d\tN\tbytes\tplan\tvariant\tkernel_ms_median\tkernel_ms_min\tstep_ms_median\tTB_per_s\tcheck");
    System.out.println("# GpuGradientBench " + String.join(" ", args));
    for (int d : ds) {
      int n = (int) (values / d);
      Partition p = randomPartition(n, d, 42 + d);
      long bytes = 4L * n * d + 4L * n;
      double[] params = new double[d];
      SplittableRandom r = new SplittableRandom(d);
      for (int j = 0; j < d; j++) {
        params[j] = r.nextDouble() - 0.5;
      }
      LocalSums ref = verify ? ReferenceKernel.compute(p, 0, n, params, false) : null;
      List<String> planList = new ArrayList<>();
      planList.add(null);
      if (only != null) {
        planList.addAll(only);
      } else if (plans) {
        if (d <= 16) {
          planList.add("small");
        }
        if (d > 16 && d <= 48) {
          planList.add("narrow");
        }
        if (d > 16 && d <= 256) {
          planList.add("spec");
        }
        if (d > 64 && d <= 256) {
          planList.add("quad2");
        }
        if (d <= 256) {
          planList.add("flow2");
          planList.add("flow1");
          planList.add("pipe1");
          planList.add("pipe2");
          planList.add("large2");
        }
        if (d > 256 && d <= 1024) {
          planList.add("wide");
        }
        if (d > 1024) {
          planList.add("deep");
        }
        planList.add("twopass");
      }
      if (defaultLast) {
        planList.remove(0);
        planList.add(null);
      }
      List<String> seen = new ArrayList<>();
      for (String plan : planList) {
        // why the plan did not fit, said once where neither variant (ordered, unordered) ran: most
        // forced plans have no unordered variant
        String skipped = null;
        boolean ran = false;
        for (boolean ordered : new boolean[] {true, false}) {
          CudaBackend b;
          try {
            b = CudaBackend.openForBenchmark(device, COMPARISON_PTX, ordered, plan);
          } catch (Exception e) {
            System.out.println("cannot open: " + e.getMessage());
            return;
          }
          try (b) {
            try {
              b.load(p, false);
            } catch (IllegalArgumentException e) {
              skipped = e.getMessage();
              continue; // plan does not fit
            }
            ran = true;
            String key = b.plan() + (ordered ? "o" : "a");
            if (seen.contains(key)) {
              continue;
            }
            seen.add(key);
            if (seen.size() == 1) { // the card line before the first row
              System.out.println(
                  "# card: "
                      + b.info().deviceName()
                      + " "
                      + b.info().deviceUuid()
                      + " ("
                      + b.info().detail()
                      + ")");
            }
            double[] kms = new double[reps];
            double[] sms = new double[reps];
            LocalSums last = null;
            for (int w = 0; w < 5; w++) {
              last = b.launch(params, 0, n).await();
            }
            for (int k = 0; k < reps; k++) {
              CudaBackend.CudaLaunch l = b.launch(params, 0, n);
              last = l.await();
              kms[k] = l.kernelMillis();
              sms[k] = l.deviceMillis();
            }
            String check =
                ref == null
                    ? "-"
                    : (last.sameBits(ref)
                        ? "bits=ref"
                        : (ordered ? "MISMATCH" : "differs(unordered)"));
            double km = median(kms);
            double tbs = bytes / (km * 1e-3) / 1e12;
            String row =
                String.format(
                    Locale.ROOT,
                    "%d\t%d\t%d\t%s\t%s\t%.4f\t%.4f\t%.4f\t%.3f\t%s",
                    d,
                    n,
                    bytes,
                    b.plan(),
                    ordered ? "ordered" : "atomic",
                    km,
                    Arrays.stream(kms).min().orElse(0),
                    median(sms),
                    tbs,
                    check);
            rows.add(row);
            System.out.println(row);
          }
        }
        if (!ran && skipped != null) {
          System.out.println("# plan " + plan + " skipped at d=" + d + ": " + skipped);
        }
      }
    }
    if (out != null) {
      try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(out)))) {
        rows.forEach(w::println);
      } catch (IOException e) {
        System.out.println("cannot write " + out + ": " + e);
      }
    }
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  /** Uniform values in [-1, 1), generated in parallel (deterministic for the seed). */
  static Partition randomPartition(int n, int d, long seed) {
    float[] x = new float[Math.multiplyExact(n, d)];
    float[] y = new float[n];
    int chunk = 1 << 20;
    int chunks = (int) ((x.length + (long) chunk - 1) / chunk);
    IntStream.range(0, chunks)
        .parallel()
        .forEach(
            c -> {
              SplittableRandom r = new SplittableRandom(seed * 7919L + c);
              int end = (int) Math.min(x.length, (long) (c + 1) * chunk);
              for (int i = c * chunk; i < end; i++) {
                x[i] = (float) (r.nextDouble() * 2 - 1);
              }
            });
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < n; i++) {
      y[i] = (float) (r.nextDouble() * 2 - 1);
    }
    return new Partition(n, d, x, y);
  }
}
