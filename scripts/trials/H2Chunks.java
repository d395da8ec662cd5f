// What an H2 journal file is made of: its MVStore chunks (one per commit), their
// blocks (4 KB each), how much of them is live, how many hold nothing live (kept for H2's 45 s
// retention time) and the span of their creation times. Reads a copy, so the journal is untouched.
// usage: java -cp H2_JAR scripts/trials/H2Chunks.java JOURNAL_DIR/journal.mv.db [list]
// ("list" also prints each chunk: time ms, blocks, max bytes, live bytes, pages, live pages)
import java.nio.file.*;
import java.util.*;
import org.h2.mvstore.*;

public class H2Chunks {
  public static void main(String[] a) throws Exception {
    Path copy = Files.createTempFile("h2chunks", ".mv.db");
    Files.copy(Path.of(a[0]), copy, StandardCopyOption.REPLACE_EXISTING);
    MVStore s = new MVStore.Builder().fileName(copy.toString()).readOnly().open();
    long n = 0, blocks = 0, max = 0, live = 0, dead = 0, deadBlocks = 0, t0 = Long.MAX_VALUE, t1 = 0;
    List<long[]> rows = new ArrayList<>();
    for (Map.Entry<String, String> e : s.getLayoutMap().entrySet()) {
      if (!e.getKey().startsWith("chunk.")) continue;
      Map<String, String> m = DataUtils.parseMap(e.getValue());
      long len = Long.parseLong(m.get("len"), 16);
      long ml = Long.parseLong(m.get("max"), 16);
      long mll = m.containsKey("liveMax") ? Long.parseLong(m.get("liveMax"), 16) : ml;
      long pc = Long.parseLong(m.get("pages"), 16);
      long pl = m.containsKey("livePages") ? Long.parseLong(m.get("livePages"), 16) : pc;
      long time = Long.parseLong(m.get("time"), 16);
      n++; blocks += len; max += ml; live += mll;
      if (pl == 0) { dead++; deadBlocks += len; }
      t0 = Math.min(t0, time); t1 = Math.max(t1, time);
      rows.add(new long[] {time, len, ml, mll, pc, pl});
    }
    System.out.printf("file %d B: %d chunks in %d blocks (%d B), live %d of %d B (%.0f %%), %d chunks"
        + " with nothing live (%d blocks), created over %d ms%n", Files.size(copy), n, blocks,
        blocks * 4096, live, max, 100.0 * live / Math.max(1, max), dead, deadBlocks, t1 - t0);
    if (a.length > 1) {
      rows.sort(Comparator.comparingLong(r -> r[0]));
      for (long[] r : rows) System.out.println(Arrays.toString(r));
    }
    s.close();
    Files.delete(copy);
  }
}
