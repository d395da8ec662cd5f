package parreg.device.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The digest of a {@code .prb} partition, kept next to it ({@code FILE.digest}) so that a node
 * restarted on the same file does not hash it again.
 *
 * <p>Why a cache: the digest (SHA-256 of the canonical content, {@code
 * parreg.device.PartitionDigest}) enters the run's roster, so its definition cannot change without
 * breaking existing journals; and SHA-256 is one sequential stream that one core hashes at 0.5–2
 * GB/s with the JIT's SHA intrinsics and well under 0.1 GB/s without them (the node JVM runs C1
 * only, which has none). Computed faster it still costs seconds for a 2.6 GB partition; looked up,
 * it costs a file read.
 *
 * <p>When a cached digest is used: the sidecar names the file's identity — size, modification and
 * change times (the change time moves on every write, and no user call sets it back), and its file
 * key (device and inode) — and its content key (header and block-table checksums, {@link
 * BinaryPartitionFormat.Key}); all must equal the file's. The read checks every 1 MiB block of the
 * payload against that table, so the content loaded is the content described. A file rewritten,
 * copied, moved to another file system or touched gets its digest computed again (and the sidecar
 * rewritten). The sidecar is a cache: a missing, unreadable or unwritable one only costs the
 * computation, and one that does not parse is ignored.
 */
public final class DigestCache {
  static final String SUFFIX = ".digest";
  static final String FORMAT = "parreg-partition-digest/v1";

  private DigestCache() {}

  /** The sidecar of a partition file. */
  static Path sidecar(Path file) {
    return file.resolveSibling(file.getFileName() + SUFFIX);
  }

  /**
   * The file's identity, taken before it is read: what {@link #lookup} and {@link #store} compare
   * and record, so that a file changed while it was read is never cached under its new identity.
   */
  record Stamp(Map<String, String> fields) {}

  /** The identity of the file now, or null where it cannot be read (then nothing is cached). */
  static Stamp stamp(Path file) {
    try {
      BasicFileAttributes a =
          Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      Map<String, String> f = new LinkedHashMap<>();
      f.put("size", Long.toString(a.size()));
      f.put("mtime", a.lastModifiedTime().toInstant().toString());
      f.put("ctime", changeTime(file));
      f.put("file-key", String.valueOf(a.fileKey()));
      return new Stamp(f);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The cached digest of this file (identity and content), if the sidecar holds it. */
  static Optional<String> lookup(Path file, Stamp stamp, BinaryPartitionFormat.Key key) {
    if (stamp == null) {
      return Optional.empty();
    }
    Path side = sidecar(file);
    try {
      if (!Files.isRegularFile(side)) {
        return Optional.empty();
      }
      Map<String, String> have = parse(Files.readString(side, StandardCharsets.US_ASCII));
      Map<String, String> want = fields(stamp, key);
      String digest = have.remove("digest");
      if (digest == null || !digest.matches("[0-9a-f]{64}") || !have.equals(want)) {
        return Optional.empty();
      }
      return Optional.of(digest);
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // a cache: anything wrong means "compute it"
    }
  }

  /**
   * Writes the sidecar (a temporary file renamed over the old one). Best effort: a directory that
   * cannot be written leaves the file without a cache.
   */
  static void store(Path file, Stamp stamp, BinaryPartitionFormat.Key key, String digest) {
    if (stamp == null) {
      return;
    }
    Path side = sidecar(file);
    Path tmp = null;
    try {
      StringBuilder sb = new StringBuilder(FORMAT).append('\n');
      for (Map.Entry<String, String> e : fields(stamp, key).entrySet()) {
        sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
      }
      sb.append("digest=").append(digest).append('\n');
      // a new file's permissions under the umask, as the partition's own (AtomicFiles)
      tmp =
          AtomicFiles.createTempFile(
              side.toAbsolutePath().getParent(), side.getFileName().toString(), ".tmp");
      Files.writeString(tmp, sb, StandardCharsets.US_ASCII);
      Files.move(tmp, side, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      tmp = null;
    } catch (IOException | RuntimeException e) {
      // read-only data directory, full disk, ...: the digest is computed again next time
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // nothing more to do for a cache
        }
      }
    }
  }

  /** What the sidecar must hold for this file and content, in a fixed order. */
  private static Map<String, String> fields(Stamp stamp, BinaryPartitionFormat.Key key) {
    Map<String, String> f = new LinkedHashMap<>(stamp.fields());
    f.put("header-crc32c", Integer.toHexString(key.headerCrc()));
    f.put("table-crc32c", Integer.toHexString(key.tableCrc()));
    return f;
  }

  /** The inode change time where the platform reports it ("unix:ctime"), else "-". */
  private static String changeTime(Path file) {
    try {
      Object c = Files.getAttribute(file, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
      return String.valueOf(c);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return "-";
    }
  }

  private static Map<String, String> parse(String text) {
    String[] lines = text.split("\n");
    if (lines.length == 0 || !lines[0].equals(FORMAT)) {
      throw new IllegalArgumentException("not a digest sidecar");
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int eq = lines[i].indexOf('=');
      if (eq <= 0 || m.put(lines[i].substring(0, eq), lines[i].substring(eq + 1)) != null) {
        throw new IllegalArgumentException("bad sidecar line " + lines[i]);
      }
    }
    return m;
  }
}
