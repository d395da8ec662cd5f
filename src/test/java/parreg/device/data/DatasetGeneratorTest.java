package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

class DatasetGeneratorTest {
  @TempDir Path dir;

  @Test
  void reproducibleFromTheSeedInBothFormats() throws Exception {
    DatasetGenerator.Spec csv =
        new DatasetGenerator.Spec(1001, 3, 3, 0.01, 42, true, PartitionFiles.Format.CSV);
    DatasetGenerator.Spec bin =
        new DatasetGenerator.Spec(1001, 3, 3, 0.01, 42, true, PartitionFiles.Format.BINARY);
    DatasetGenerator.Result a = DatasetGenerator.generate(csv, dir.resolve("a"));
    DatasetGenerator.Result b = DatasetGenerator.generate(csv, dir.resolve("b"));
    DatasetGenerator.Result c = DatasetGenerator.generate(bin, dir.resolve("c"));
    assertEquals(3, a.files().size());
    long rows = 0;
    for (int p = 0; p < 3; p++) {
      assertArrayEquals(Files.readAllBytes(a.files().get(p)), Files.readAllBytes(b.files().get(p)));
      Partition pa = PartitionFiles.read(a.files().get(p));
      Partition pc = PartitionFiles.read(c.files().get(p));
      assertEquals(pa.digest(), pc.digest(), "CSV and binary generation give the same rows");
      assertEquals(a.digests().get(p), pa.digest());
      rows += pa.samples();
    }
    assertEquals(1001, rows);
    assertEquals(334, PartitionFiles.read(a.files().get(0)).samples());
    assertArrayEquals(a.weights(), c.weights());
    String truth = Files.readString(a.truth());
    assertTrue(truth.contains("\"seed\": 42"), truth);
    assertTrue(truth.contains("\"sha256\": \"" + a.digests().get(2) + "\""), truth);
    assertTrue(truth.contains("\"bias\": " + a.bias()), truth);
  }

  @Test
  void theRowsDoNotDependOnTheThreads() throws Exception {
    // More rows than one block, so several blocks run at once on the wide pool.
    DatasetGenerator.Spec s =
        new DatasetGenerator.Spec(
            3L * DatasetGenerator.BLOCK_ROWS + 17,
            2,
            2,
            0.5,
            9,
            true,
            PartitionFiles.Format.BINARY);
    ForkJoinPool one = new ForkJoinPool(1);
    ForkJoinPool four = new ForkJoinPool(4);
    try {
      DatasetGenerator.Result a = DatasetGenerator.generate(s, dir.resolve("one"), one);
      DatasetGenerator.Result b = DatasetGenerator.generate(s, dir.resolve("four"), four);
      for (int p = 0; p < 2; p++) {
        assertArrayEquals(
            Files.readAllBytes(a.files().get(p)), Files.readAllBytes(b.files().get(p)));
      }
      assertEquals(a.digests(), b.digests());
    } finally {
      one.shutdown();
      four.shutdown();
    }
  }

  @Test
  void noiselessDataFollowsTheTrueWeights() throws Exception {
    DatasetGenerator.Result r =
        DatasetGenerator.generate(
            new DatasetGenerator.Spec(500, 4, 1, 0.0, 7, true, PartitionFiles.Format.BINARY), dir);
    Partition p = PartitionFiles.read(r.files().get(0));
    double[] w = r.weights();
    for (int i = 0; i < p.samples(); i++) {
      double dot = 0;
      for (int j = 0; j < 4; j++) {
        dot += w[j] * p.x(i, j);
      }
      assertEquals((float) (dot + r.bias()), p.y(i));
    }
  }

  @Test
  void refusesToOverwrite() throws Exception {
    DatasetGenerator.Spec s =
        new DatasetGenerator.Spec(10, 1, 2, 0.1, 1, false, PartitionFiles.Format.CSV);
    DatasetGenerator.generate(s, dir);
    byte[] before = Files.readAllBytes(dir.resolve("part-0.csv"));
    assertThrows(FileAlreadyExistsException.class, () -> DatasetGenerator.generate(s, dir));
    assertArrayEquals(before, Files.readAllBytes(dir.resolve("part-0.csv")));
  }
}
