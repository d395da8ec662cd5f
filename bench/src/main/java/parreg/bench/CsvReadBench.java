package parreg.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import parreg.device.Partition;
import parreg.device.data.CsvColumns;
import parreg.device.data.PartitionFiles;
import parreg.device.data.RowSlice;

/**
 * CSV parse speed: the product's reader against candidate libraries on the same file, in MB/s of
 * CSV text and rows/s.
 *
 * <ul>
 *   <li>{@code product}: {@link PartitionFiles#read} of the whole file (the reader {@code node},
 *       {@code convert} and {@code evaluate} use: its passes, the checks, the partition built);
 *   <li>{@code split}, {@code split-first}: the same for the last and the first participant's slice
 *       of {@code --parts} ({@code --split}: only the slice is parsed);
 *   <li>{@code fastcsv}, {@code fastcsv-record}, {@code jackson}, {@code commons}: one pass of a
 *       library over the file, every field parsed by the product's decimal parser ({@link
 *       CsvCandidates}).
 * </ul>
 *
 * Each reader prints its first time (a fresh JVM: the JIT warms up on it), the best of {@code
 * --reps} in wall time and in the thread's CPU time (which other processes on a shared machine
 * disturb less), and a checksum of the values' bits (the same for every reader that reads the whole
 * file).
 *
 * <p>Usage: {@code CsvReadBench [--reps R] [--parts P] [--readers
 * product,split,split-first,fastcsv,fastcsv-record,jackson,commons] FILE...}; {@code
 * scripts/bench/csv.sh} generates a file and runs it.
 */
public final class CsvReadBench {
  private static final java.lang.management.ThreadMXBean CPU =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private CsvReadBench() {}

  public static void main(String[] args) throws Exception {
    int reps = 3;
    int parts = 2;
    String readers = "product,split,split-first,fastcsv,fastcsv-record,jackson,commons";
    int a = 0;
    for (; a < args.length && args[a].startsWith("--"); a += 2) {
      switch (args[a]) {
        case "--reps" -> reps = Integer.parseInt(args[a + 1]);
        case "--parts" -> parts = Integer.parseInt(args[a + 1]);
        case "--readers" -> readers = args[a + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[a]);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "# CsvReadBench reps=%d parts=%d cores=%d java=%s%n",
        reps,
        parts,
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"));
    for (; a < args.length; a++) {
      Path f = Path.of(args[a]);
      long bytes = Files.size(f);
      for (String reader : readers.split(",")) {
        double best = Double.MAX_VALUE;
        double bestCpu = Double.MAX_VALUE;
        double first = 0;
        CsvCandidates.Result r = null;
        for (int k = 0; k < reps; k++) {
          long c0 = CPU.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          r = run(reader, f, parts);
          double sec = (System.nanoTime() - t0) / 1e9;
          first = k == 0 ? sec : first;
          best = Math.min(best, sec);
          bestCpu = Math.min(bestCpu, (CPU.getCurrentThreadCpuTime() - c0) / 1e9);
        }
        System.out.printf(
            Locale.ROOT,
            "csv %-14s %-14s rows=%8d bytes=%10d first_s=%6.3f best_s=%6.3f MB/s=%6.1f"
                + " Mrows/s=%5.3f cpu_s=%6.3f MB/s(cpu)=%6.1f Mrows/s(cpu)=%5.3f checksum=%016x%n",
            f.getFileName(),
            reader,
            r.rows(),
            bytes,
            first,
            best,
            bytes / best / 1e6,
            r.rows() / best / 1e6,
            bestCpu,
            bytes / bestCpu / 1e6,
            r.rows() / bestCpu / 1e6,
            r.checksum());
      }
    }
  }

  private static CsvCandidates.Result run(String reader, Path f, int parts) throws Exception {
    return switch (reader) {
      case "product" -> summary(PartitionFiles.read(f));
      case "split" ->
          summary(PartitionFiles.read(f, 0, CsvColumns.DEFAULT, new RowSlice(parts - 1, parts)));
      case "split-first" ->
          summary(PartitionFiles.read(f, 0, CsvColumns.DEFAULT, new RowSlice(0, parts)));
      default -> CsvCandidates.named(reader).run(f);
    };
  }

  private static CsvCandidates.Result summary(Partition p) {
    long sum = 0;
    for (float v : p.featureMajor()) {
      sum += Float.floatToRawIntBits(v);
    }
    for (float v : p.targets()) {
      sum += Float.floatToRawIntBits(v);
    }
    return new CsvCandidates.Result(p.samples(), sum);
  }
}
