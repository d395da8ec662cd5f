package parreg.device.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.stream.IntStream;
import parreg.device.Partition;

/**
 * Writes synthetic linear-regression partitions from known true weights, reproducibly from a seed.
 *
 * <p>From {@code new SplittableRandom(seed)}, in this order: the true weights {@code w_j} (uniform
 * in [-2, 2], rounded to multiples of 1/1024 so they are exact in binary32 and short in decimal),
 * then the bias {@code b} (uniform in [-1, 1], same rounding) when enabled; then the rows,
 * partition after partition, in blocks of {@link #BLOCK_ROWS} rows, each block drawing from its own
 * generator split from the seed's in block order ({@code parreg-generate/v2}; v1 drew every row
 * from the one generator, which left all but one core idle): {@code x_ij} standard normal rounded
 * to binary32, and {@code y_i = (float) (sum_j w_j * x_ij + b + sigma * z_i)} with the sum in
 * binary64 in index order and {@code z_i} standard normal. The same seed and shape give the same
 * files, bit for bit, on any number of threads.
 *
 * <p>{@code rows} are spread over the partitions as evenly as possible (the first {@code rows mod
 * P} partitions get one more). Partition {@code p} is written to {@code part-p.csv} or {@code
 * part-p.prb}; the truth (weights, bias, noise, seed, and each file's rows and digest) to {@code
 * truth.json} beside them. No existing file is overwritten: if any target exists nothing is
 * written.
 */
public final class DatasetGenerator {
  public static final String TRUTH_FILE = "truth.json";

  /**
   * Rows drawn from one split generator: small enough to spread over the cores, large enough that
   * splitting costs nothing.
   */
  static final int BLOCK_ROWS = 1 << 16;

  private DatasetGenerator() {}

  /** What to generate. */
  public record Spec(
      long rows,
      int features,
      int partitions,
      double noise,
      long seed,
      boolean bias,
      PartitionFiles.Format format) {
    public Spec {
      if (features < 1) {
        throw new IllegalArgumentException("--features must be >= 1, got " + features);
      }
      if (partitions < 1) {
        throw new IllegalArgumentException("--partitions must be >= 1, got " + partitions);
      }
      if (rows < partitions) {
        throw new IllegalArgumentException(
            "--rows must be at least the number of partitions (" + partitions + "), got " + rows);
      }
      if (!(noise >= 0) || Double.isInfinite(noise)) {
        throw new IllegalArgumentException("--noise must be a finite number >= 0, got " + noise);
      }
      long largest = (rows + partitions - 1) / partitions;
      if (largest * features > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            largest
                + " rows of d="
                + features
                + " per partition exceed one partition's limit of "
                + (Integer.MAX_VALUE - 8)
                + " values: use more partitions");
      }
    }

    public long rowsOf(int partition) {
      return rows / partitions + (partition < rows % partitions ? 1 : 0);
    }
  }

  /** What was written. */
  public record Result(
      List<Path> files,
      List<String> digests,
      double[] weights,
      double bias,
      boolean hasBias,
      Path truth) {
    /** The true model in one line, e.g. {@code w = [0.5, -1.25], b = 0.125}. */
    public String describeModel() {
      StringBuilder sb = new StringBuilder("w = [");
      for (int j = 0; j < weights.length; j++) {
        sb.append(j == 0 ? "" : ", ").append(weights[j]);
      }
      sb.append(']');
      if (hasBias) {
        sb.append(", b = ").append(bias);
      }
      return sb.toString();
    }
  }

  public static Result generate(Spec spec, Path outDir) throws IOException {
    return generate(spec, outDir, null);
  }

  /**
   * As {@link #generate(Spec, Path)}, filling the rows on {@code pool} (null: the common pool). The
   * files do not depend on the pool.
   */
  static Result generate(Spec spec, Path outDir, ForkJoinPool pool) throws IOException {
    Files.createDirectories(outDir);
    List<Path> files = new ArrayList<>();
    for (int p = 0; p < spec.partitions(); p++) {
      files.add(outDir.resolve("part-" + p + spec.format().extension()));
    }
    Path truth = outDir.resolve(TRUTH_FILE);
    List<Path> all = new ArrayList<>(files);
    all.add(truth);
    for (Path f : all) {
      if (Files.exists(f)) {
        throw new FileAlreadyExistsException(f.toString(), null, "exists; refusing to overwrite");
      }
    }

    final SplittableRandom rnd = new SplittableRandom(spec.seed());
    int d = spec.features();
    double[] w = new double[d];
    for (int j = 0; j < d; j++) {
      w[j] = Math.rint(rnd.nextDouble(-2.0, 2.0) * 1024) / 1024;
    }
    final double b = spec.bias() ? Math.rint(rnd.nextDouble(-1.0, 1.0) * 1024) / 1024 : 0.0;

    List<String> digests = new ArrayList<>();
    for (int p = 0; p < spec.partitions(); p++) {
      int n = (int) spec.rowsOf(p);
      float[] x = new float[n * d];
      float[] y = new float[n];
      // One generator per block, split from the seed's in block order before any block runs, so
      // the rows do not depend on how many threads fill them.
      int blocks = (int) ((n + BLOCK_ROWS - 1) / BLOCK_ROWS);
      SplittableRandom[] streams = new SplittableRandom[blocks];
      for (int k = 0; k < blocks; k++) {
        streams[k] = rnd.split();
      }
      double noise = spec.noise();
      Runnable fill =
          () ->
              IntStream.range(0, blocks)
                  .parallel()
                  .forEach(
                      k -> {
                        SplittableRandom r = streams[k];
                        int end = (int) Math.min(n, (k + 1L) * BLOCK_ROWS);
                        for (int i = k * BLOCK_ROWS; i < end; i++) {
                          double dot = 0.0;
                          for (int j = 0; j < d; j++) {
                            float v = (float) r.nextGaussian();
                            x[j * n + i] = v;
                            dot += w[j] * v;
                          }
                          y[i] = (float) (dot + b + noise * r.nextGaussian());
                        }
                      });
      if (pool == null) {
        fill.run();
      } else {
        pool.submit(fill).join();
      }
      Partition part = new Partition(n, d, x, y);
      PartitionFiles.write(part, files.get(p));
      digests.add(part.digest());
    }

    String json = truthJson(spec, w, b, files, digests);
    AtomicFiles.writeNew(
        truth, ch -> ch.write(java.nio.ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8))));
    return new Result(List.copyOf(files), List.copyOf(digests), w, b, spec.bias(), truth);
  }

  private static String truthJson(
      Spec spec, double[] w, double b, List<Path> files, List<String> digests) {
    StringBuilder sb = new StringBuilder();
    sb.append("{\n");
    sb.append("  \"generator\": \"parreg-generate/v2\",\n");
    sb.append("  \"rows\": ").append(spec.rows()).append(",\n");
    sb.append("  \"features\": ").append(spec.features()).append(",\n");
    sb.append("  \"partitions\": ").append(spec.partitions()).append(",\n");
    sb.append("  \"noise\": ").append(spec.noise()).append(",\n");
    sb.append("  \"seed\": ").append(spec.seed()).append(",\n");
    sb.append("  \"format\": \"")
        .append(spec.format() == PartitionFiles.Format.BINARY ? "bin" : "csv")
        .append("\",\n");
    sb.append("  \"weights\": [");
    for (int j = 0; j < w.length; j++) {
      sb.append(j == 0 ? "" : ", ").append(w[j]);
    }
    sb.append("],\n");
    sb.append("  \"bias\": ").append(spec.bias() ? Double.toString(b) : "null").append(",\n");
    sb.append("  \"files\": [\n");
    for (int p = 0; p < files.size(); p++) {
      sb.append("    {\"participant\": ")
          .append(p)
          .append(", \"file\": \"")
          .append(files.get(p).getFileName())
          .append('"')
          .append(", \"rows\": ")
          .append(spec.rowsOf(p))
          .append(", \"sha256\": \"")
          .append(digests.get(p))
          .append("\"}")
          .append(p + 1 < files.size() ? ",\n" : "\n");
    }
    sb.append("  ]\n}\n");
    return sb.toString();
  }
}
