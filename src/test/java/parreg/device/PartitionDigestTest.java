package parreg.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The chunked, parallel digest hashes exactly the bytes of the one-pass definition: same value for
 * every thread count and chunk size (chunk sizes that do not divide n included), and the value
 * recorded in journals for the seed partitions does not move.
 */
class PartitionDigestTest {

  /** The definition, one row at a time (the code the roster digests were first computed with). */
  static String onePass(Partition p) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    md.update("parreg-partition/v1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    int n = p.samples();
    int d = p.features();
    md.update(le(d));
    md.update(le(n));
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < d; j++) {
        md.update(le(Float.floatToRawIntBits(p.x(i, j))));
      }
      md.update(le(Float.floatToRawIntBits(p.y(i))));
    }
    return HexFormat.of().formatHex(md.digest());
  }

  static byte[] le(int v) {
    return new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)};
  }

  static Partition random(int n, int d, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * d];
    float[] y = new float[n];
    for (int k = 0; k < x.length; k++) {
      x[k] =
          Float.intBitsToFloat(
              r.nextInt()); // any bits, NaN payloads included: the digest hashes bits
    }
    for (int i = 0; i < n; i++) {
      y[i] = (float) r.nextGaussian();
    }
    return new Partition(n, d, x, y);
  }

  @Test
  void everyThreadCountAndChunkSizeGivesTheOnePassDigest() throws Exception {
    for (int[] shape : new int[][] {{1, 1}, {7, 3}, {1000, 1}, {4099, 5}, {2500, 64}, {777, 257}}) {
      Partition p = random(shape[0], shape[1], 31L * shape[0] + shape[1]);
      String want = onePass(p);
      for (int threads : new int[] {1, 2, 3, 8}) {
        for (int rows : new int[] {1, 3, 255, 256, 257, 1000, 1 << 20}) {
          assertEquals(
              want,
              PartitionDigest.sha256(p, threads, rows),
              "n=" + shape[0] + " d=" + shape[1] + " threads=" + threads + " rowsPerChunk=" + rows);
        }
      }
      assertEquals(want, p.digest(), "Partition.digest");
    }
  }

  /** The seed partitions' digests, as the code before the parallel digest computed them. */
  @Test
  void seedDigestsAreThoseJournalsRecord() {
    assertEquals(
        "7e84f7b8f7f91332caed7179218393495866f770d56f79ed54948a902aa7a56a",
        SeedData.partition(0).digest());
    assertEquals(
        "5755f914f71a6ecf440b0a223e068b66a2c69e1299709eab6acfd00fe3aec366",
        SeedData.partition(1).digest());
  }

  @Test
  void aKnownDigestIsUsedAndAComputedOneIsReported() {
    Partition p = random(100, 4, 5);
    String[] told = new String[1];
    Partition q = new Partition(100, 4, p.featureMajor(), p.targets(), null, dg -> told[0] = dg);
    assertEquals(p.digest(), q.digest());
    assertEquals(p.digest(), told[0]);
    Partition known =
        new Partition(
            100, 4, p.featureMajor(), p.targets(), "ab".repeat(32), dg -> told[0] = "called");
    assertEquals("ab".repeat(32), known.digest());
    assertEquals(p.digest(), told[0], "a known digest is not reported as computed");
  }
}
