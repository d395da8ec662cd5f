package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * Files the hand-written reader accepted keep their partition digests (and so every value's bits):
 * the digests below were computed by that reader (commit 54aa39a) on the same generated text, of
 * varied number formats (shortest float, double, %.9g, exponents, integers, 20 decimals, a leading
 * +, spaces and tabs around values, 19 trailing digits), with LF or CRLF line ends, a byte-order
 * mark or none, spaces around header names, trailing blank lines.
 */
class CsvGoldenDigestTest {
  @TempDir Path dir;

  /** Whole file, then participant 1 of 3 ({@code --split}). */
  static final String[][] DIGESTS = {
    {
      "f2271f2ad240a9b265e12b7d5161595b4b59f9897fef77401c1b669d33f89e38",
      "b267ef4ed59bf4b7f0f60fdcb4624691e6bf1b579a706b797ad119b1cf797dcd"
    },
    {
      "b3cc2e314ecb99879826977dc564ae09d63dd47beb5269539a5efe3cc0cf29bc",
      "140297759462360c98173f2b1514de5f4ecb2902fe4747c9d459b0c0b4a696da"
    },
    {
      "706229d6ed53c5cb68d8344e5e43bdbb69e490970ee07ac9f6ab8851a6955462",
      "e829b478caab2bfbedd9fe419dc952180114e67a7a62c0ec5f47e1e0e6db8b80"
    },
    {
      "1ba3fcc4b83ab5c4198d315f0b049b5676f5a97715572614646d24d1b9ba317c",
      "8bf82bccf2be0a5f4aae080491f8d74cffad9452f17c53d8a2fecf8d94282dcd"
    }
  };

  /** CSV text of varied number formats, spaces, line ends and a byte-order mark. */
  static String text(long seed, int rows, int d) {
    SplittableRandom rnd = new SplittableRandom(seed);
    StringBuilder sb = new StringBuilder();
    if (seed % 2 == 0) {
      sb.append('\uFEFF');
    }
    for (int j = 1; j <= d; j++) {
      sb.append(j == 1 ? "" : rnd.nextBoolean() ? "," : " , ").append('x').append(j);
    }
    sb.append(",y");
    for (int i = 0; i < rows; i++) {
      sb.append(seed % 3 == 0 ? "\r\n" : "\n");
      for (int j = 0; j <= d; j++) {
        if (j > 0) {
          sb.append(',');
        }
        double v = rnd.nextGaussian() * Math.pow(10, rnd.nextInt(-30, 30));
        String t =
            switch (rnd.nextInt(8)) {
              case 0 -> Float.toString((float) v);
              case 1 -> Double.toString(v);
              case 2 -> String.format(Locale.ROOT, "%.9g", v);
              case 3 -> String.format(Locale.ROOT, "%.3e", v).replace("e", "E");
              case 4 -> Long.toString(rnd.nextLong(-1_000_000_000_000L, 1_000_000_000_000L));
              case 5 -> "+" + String.format(Locale.ROOT, "%.20f", Math.abs(v) % 1000);
              case 6 -> " " + Float.toString((float) v) + "\t";
              default -> String.format(Locale.ROOT, "%.1f", v % 100) + "0000000000000000001";
            };
        sb.append(t);
      }
    }
    sb.append(seed % 3 == 1 ? "\n\n" : "\n");
    return sb.toString();
  }

  @Test
  void digestsAreThoseOfTheHandWrittenReader() throws Exception {
    for (int seed = 1; seed <= DIGESTS.length; seed++) {
      Path f =
          Files.writeString(
              dir.resolve(seed + ".csv"), text(seed, 2000, 3), StandardCharsets.UTF_8);
      Partition whole = PartitionFiles.read(f);
      assertEquals(2000, whole.samples());
      assertEquals(DIGESTS[seed - 1][0], whole.digest(), "seed " + seed);
      Partition slice = PartitionFiles.read(f, 0, CsvColumns.DEFAULT, new RowSlice(1, 3));
      assertEquals(667, slice.samples());
      assertEquals(DIGESTS[seed - 1][1], slice.digest(), "seed " + seed + ", slice 1 of 3");
      PartitionFilesTest.assertSameBits(whole, PartitionFilesTest.streamed(f));
    }
  }
}
