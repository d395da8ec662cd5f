package parreg.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import parreg.device.CpuBackend;
import parreg.device.LocalSums;
import parreg.device.Partition;
import parreg.device.PartitionDigest;
import parreg.device.Workers;
import parreg.device.cuda.CudaBackend;
import parreg.device.data.PartitionFiles;

/**
 * Start-up of a GPU node, phase by phase, from a {@code .prb} file in the page cache to a backend
 * ready to launch (issue 10, part 3): read (mapped, checksummed, checked, on the load threads), the
 * digest as a node gets it (from the file's sidecar where it matches, else computed), the digest
 * computed anyway (what a file without a valid sidecar costs), opening the card, and loading the
 * partition (plan, allocation, conversion to the resident layout overlapped with the pinned,
 * double-buffered upload). Prints seconds and GB/s of binary32 partition (4 (d + 1) N bytes) per
 * phase, and "ready", the sum a node waits for: read + digest + open + load.
 *
 * <p>{@code --verify} then launches the whole partition and a batch at an odd offset, with bias,
 * and compares the bits with the CPU backend (the oracle).
 *
 * <p>Usage: {@code GpuLoadBench [--device 0] [--threads T] [--verify] [--generate ROWS,D]
 * FILE.prb}. With {@code --generate}, a missing FILE is generated first (random values; written
 * with its digest sidecar, as {@code bin/parreg generate} writes its files).
 */
public final class GpuLoadBench {
  private GpuLoadBench() {}

  public static void main(String[] args) throws Exception {
    String device = "0";
    int threads = Workers.defaultThreads();
    boolean verify = false;
    String generate = null;
    Path file = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--device" -> device = args[++i];
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--verify" -> verify = true;
        case "--generate" -> generate = args[++i];
        default -> file = Path.of(args[i]);
      }
    }
    if (file == null) {
      throw new IllegalArgumentException(
          "usage: GpuLoadBench [--device 0] [--threads T] [--verify] [--generate ROWS,D] FILE.prb");
    }
    System.setProperty(Workers.THREADS_PROPERTY, Integer.toString(threads));
    if (generate != null && !Files.exists(file)) {
      String[] g = generate.split(",");
      long t0 = System.nanoTime();
      // uniform values in [-1, 1), generated in parallel; written as bin/parreg generate writes
      // (the file, then its digest sidecar)
      PartitionFiles.write(
          GpuGradientBench.randomPartition(Integer.parseInt(g[0]), Integer.parseInt(g[1]), 7),
          file);
      System.out.printf(
          Locale.ROOT, "# generated %s in %.1f s%n", file, (System.nanoTime() - t0) / 1e9);
    }
    System.out.printf(
        Locale.ROOT,
        "# GpuLoadBench %s threads=%d cores=%d%n",
        String.join(" ", args),
        threads,
        Runtime.getRuntime().availableProcessors());
    long t0 = System.nanoTime();
    Partition p = PartitionFiles.read(file);
    double read = since(t0);
    long bytes = 4L * p.samples() * (p.features() + 1);
    print("read", read, bytes, "rows=" + p.samples() + " d=" + p.features());
    t0 = System.nanoTime();
    String digest = p.digest();
    double dg = since(t0);
    print(
        "digest",
        dg,
        bytes,
        digest.substring(0, 16) + (dg < 0.05 ? " (sidecar)" : " (computed, sidecar written)"));
    t0 = System.nanoTime();
    String again = PartitionDigest.sha256(p, threads);
    print(
        "digest-computed",
        since(t0),
        bytes,
        again.equals(digest) ? "same value" : "DIFFERS " + again);
    t0 = System.nanoTime();
    try (CudaBackend b = CudaBackend.openForBenchmark(device, null, true, null)) {
      double open = since(t0);
      print("open", open, bytes, b.info().deviceName() + " " + b.info().deviceUuid());
      b.load(p, true);
      print(
          "load",
          b.loadSeconds(),
          bytes,
          "plan " + b.plan() + " (convert + pinned upload, overlapped)");
      print("ready", read + dg + open + b.loadSeconds(), bytes, "read + digest + open + load");
      if (verify) {
        CpuBackend cpu = new CpuBackend();
        cpu.load(p, true);
        double[] w = new double[p.features() + 1];
        for (int j = 0; j < w.length; j++) {
          w[j] = (j % 7 - 3) * 0.125;
        }
        int n = p.samples();
        for (int[] batch : new int[][] {{0, n}, {n / 3 + 1, n - n / 3 - 7}}) {
          LocalSums want = cpu.launch(w, batch[0], batch[1]).await();
          LocalSums got = b.launch(w, batch[0], batch[1]).await();
          System.out.printf(
              Locale.ROOT,
              "verify batch [%d, +%d): %s%n",
              batch[0],
              batch[1],
              got.sameBits(want) ? "bits=cpu" : "MISMATCH");
        }
        cpu.close();
      }
    }
  }

  private static double since(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static void print(String phase, double s, long bytes, String note) {
    System.out.printf(
        Locale.ROOT, "load %-16s %8.3f s %7.2f GB/s  %s%n", phase, s, bytes / s / 1e9, note);
  }
}
