package parreg.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import parreg.device.Partition;
import parreg.device.data.PartitionFiles;

/**
 * Partition loading speed: reads each file given (CSV or {@code .prb}) with {@link
 * PartitionFiles#read} and prints rows, file bytes, the first and the best time (a fresh JVM's first read includes JIT
 * warm-up; a node reads its partition once), rows per second and MB of file per second at the best and MB of file per
 * second, and the heap in use after the load. Peak process memory is measured from outside
 * ({@code /usr/bin/time -v}, see {@code scripts/bench-load.sh}).
 *
 * <p>Usage: {@code DataLoadBench [--reps R] FILE...}; the best of R reads is printed (the first
 * read of a file may come from disk, later ones from the page cache).
 */
public final class DataLoadBench {
  private DataLoadBench() {}

  public static void main(String[] args) throws Exception {
    int reps = 1;
    int a = 0;
    if (args.length > 1 && args[0].equals("--reps")) {
      reps = Integer.parseInt(args[1]);
      a = 2;
    }
    for (; a < args.length; a++) {
      Path f = Path.of(args[a]);
      long size = Files.size(f);
      double best = Double.MAX_VALUE;
      double first = 0;
      Partition p = null;
      for (int k = 0; k < reps; k++) {
        p = null;
        long t0 = System.nanoTime();
        p = PartitionFiles.read(f);
        double s = (System.nanoTime() - t0) / 1e9;
        if (k == 0) {
          first = s;
        }
        best = Math.min(best, s);
      }
      Runtime rt = Runtime.getRuntime();
      long heap = rt.totalMemory() - rt.freeMemory();
      System.out.printf(Locale.ROOT, "load %-40s format=%-6s rows=%10d d=%4d file_bytes=%11d binary32_bytes=%11d first_s=%7.3f best_s=%7.3f rows/s=%11.0f MB/s=%7.1f heap_after_MB=%6.0f%n",
          f.getFileName(), PartitionFiles.formatOf(f), p.samples(), p.features(), size,
          4L * p.samples() * (p.features() + 1), first, best, p.samples() / best, size / best / 1e6, heap / 1e6);
    }
  }
}
