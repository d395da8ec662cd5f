// What a step log append costs with and without FileChannel.force(false):
// N appends of a 200-byte record to FILE, each timed; prints the median, 90th and 99th percentile.
// usage: java scripts/trials/AppendForce.java FILE N none|force|force-meta
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.*;
import java.util.Arrays;

public class AppendForce {
  public static void main(String[] a) throws Exception {
    Path p = Path.of(a[0]);
    int n = Integer.parseInt(a[1]);
    Files.deleteIfExists(p);
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocateDirect(200);
      long[] t = new long[n];
      for (int i = 0; i < n; i++) {
        long s = System.nanoTime();
        b.clear();
        b.putLong(0, i);
        ch.write(b);
        if (!a[2].equals("none")) {
          ch.force(a[2].equals("force-meta"));
        }
        t[i] = System.nanoTime() - s;
      }
      Arrays.sort(t);
      System.out.printf("%s: %d appends, median %.1f us, p90 %.1f us, p99 %.1f us%n",
          a[2], n, t[n / 2] / 1e3, t[n * 9 / 10] / 1e3, t[n * 99 / 100] / 1e3);
    }
    Files.delete(p);
  }
}
