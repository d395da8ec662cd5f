package parreg.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Locale;
import parreg.device.Partition;
import parreg.device.PartitionDigest;
import parreg.device.Workers;
import parreg.device.cuda.ResidentLayout;
import parreg.device.data.BinaryPartitionFormat;
import parreg.device.data.PartitionFiles;

/**
 * Partition loading speed, phase by phase, on the host: what a node does between reading its {@code
 * --data} file and handing the partition to the card.
 *
 * <ul>
 *   <li>{@code read}: {@link PartitionFiles#read} (a {@code .prb}: mapped, every block's CRC32C
 *       checked, copied out, every value checked finite; on the load threads);
 *   <li>{@code digest}: the partition's SHA-256 ({@link PartitionDigest}) computed on the load
 *       threads, and on one ({@code digest1});
 *   <li>{@code cached}: a read whose digest comes from the file's sidecar (the second read of a
 *       {@code .prb}: a restart);
 *   <li>{@code layout}: the conversion to the card's resident layout (quad layout padded to 64
 *       features a slice, the spec plan's at d &le; 64; else the plan's width) into a 32 MiB
 *       staging buffer, chunk after chunk, as the CUDA backend's upload does, minus the copy.
 * </ul>
 *
 * Each phase prints its first time (in a fresh JVM the first read also grows the heap and warms the
 * JIT: what a node pays once) and the best of {@code --reps}, and MB/s of binary32 partition (4 (d
 * + 1) N bytes; the layout: of x) at the best. Peak process memory is measured from outside ({@code
 * /usr/bin/time -v}, see {@code scripts/bench/load.sh}).
 *
 * <p>Usage: {@code DataLoadBench [--reps R] [--threads T] [--phases
 * read,digest,digest1,cached,layout] FILE...} (threads default: {@link Workers#defaultThreads()}).
 */
public final class DataLoadBench {
  private DataLoadBench() {}

  public static void main(String[] args) throws Exception {
    int reps = 1;
    int threads = Workers.defaultThreads();
    String phases = "read,digest,digest1,cached,layout";
    int a = 0;
    for (; a < args.length && args[a].startsWith("--"); a += 2) {
      switch (args[a]) {
        case "--reps" -> reps = Integer.parseInt(args[a + 1]);
        case "--threads" -> threads = Integer.parseInt(args[a + 1]);
        case "--phases" -> phases = args[a + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[a]);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "# DataLoadBench threads=%d reps=%d cores=%d%n",
        threads,
        reps,
        Runtime.getRuntime().availableProcessors());
    for (; a < args.length; a++) {
      Path f = Path.of(args[a]);
      Partition p = null;
      for (String phase : phases.split(",")) {
        double best = Double.MAX_VALUE;
        double first = 0;
        String note = "";
        for (int k = 0; k < reps; k++) {
          long t0 = System.nanoTime();
          switch (phase) {
            case "read" -> {
              p =
                  PartitionFiles.formatOf(f) == PartitionFiles.Format.BINARY
                      ? BinaryPartitionFormat.read(f, 0, threads).partition()
                      : PartitionFiles.read(f);
            }
            case "digest" -> note = PartitionDigest.sha256(p, threads).substring(0, 16);
            case "digest1" -> note = PartitionDigest.sha256(p, 1).substring(0, 16);
            case "cached" -> {
              p = PartitionFiles.read(f);
              note =
                  p.digest()
                      .substring(
                          0, 16); // from the sidecar where it matches, else computed (and stored)
            }
            case "layout" -> note = layout(p, threads);
            default -> throw new IllegalArgumentException("unknown phase " + phase);
          }
          double sec = (System.nanoTime() - t0) / 1e9;
          first = k == 0 ? sec : first;
          best = Math.min(best, sec);
        }
        long bytes =
            phase.equals("layout")
                ? 4L * p.samples() * p.features()
                : 4L * p.samples() * (p.features() + 1);
        System.out.printf(
            Locale.ROOT,
            "load %-24s %-8s rows=%10d d=%4d bytes=%11d first_s=%7.3f best_s=%7.3f MB/s(best)=%8.1f %s%n",
            f.getFileName(),
            phase,
            p.samples(),
            p.features(),
            bytes,
            first,
            best,
            bytes / best / 1e6,
            note);
      }
    }
  }

  /** The upload's conversion without the card: every chunk of x into one 32 MiB staging buffer. */
  static String layout(Partition p, int threads) {
    int d = p.features();
    int width = d <= 16 ? d : d <= 64 ? 64 : d <= 128 ? 128 : d <= 192 ? 192 : d <= 256 ? 256 : d;
    boolean quads = d > 16 && d <= 256;
    ResidentLayout layout = new ResidentLayout(d, width, quads);
    long slices = ResidentLayout.slices(p.samples());
    int chunk = (int) Math.max(1, Math.min(slices, (32L << 20) / (4L * layout.sliceFloats())));
    FloatBuffer stage =
        ByteBuffer.allocateDirect(4 * chunk * layout.sliceFloats())
            .order(ByteOrder.nativeOrder())
            .asFloatBuffer();
    for (long s0 = 0; s0 < slices; s0 += chunk) {
      layout.fill(p, s0, (int) Math.min(chunk, slices - s0), stage, threads);
    }
    return (quads ? "quad" : "plain") + width;
  }
}
