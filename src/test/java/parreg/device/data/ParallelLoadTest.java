package parreg.device.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import parreg.device.Partition;

/**
 * The parallel {@code .prb} read gives the same bits, digest and first error for every thread count
 * (files of many 16-block read chunks, the last one short); the digest sidecar is used only for the
 * file and content it was written for.
 */
class ParallelLoadTest {
  @TempDir Path dir;

  /** 40 MB + a bit: three read chunks of 16 MiB, the last one partial, a partial last block. */
  static Partition big() {
    return PartitionFilesTest.random(1_050_001, 9, 11);
  }

  @Test
  void everyThreadCountReadsTheSameBits() throws Exception {
    Partition p = big();
    Path f = dir.resolve("big.prb");
    BinaryPartitionFormat.write(p, f);
    for (int threads : new int[] {1, 2, 3, 7}) {
      Partition q = BinaryPartitionFormat.read(f, 0, threads).partition();
      PartitionFilesTest.assertSameBits(p, q);
    }
  }

  @Test
  void everyThreadCountReportsTheFirstError() throws Exception {
    Partition p = big();
    Path good = dir.resolve("good.prb");
    BinaryPartitionFormat.write(p, good);
    byte[] bytes = Files.readAllBytes(good);
    // a NaN in chunk 0 and bad blocks in chunks 1 and 2: the first bad block is named (the
    // checksums
    // are checked before the values), as the one-pass reader did
    byte[] b = bytes.clone();
    int nanAt = 64 + 4 * 1000;
    b[nanAt] = 0x01;
    b[nanAt + 1] = 0x00;
    b[nanAt + 2] = (byte) 0xc0;
    b[nanAt + 3] = 0x7f;
    fixCrc(b, 0);
    b[64 + 35 * (1 << 20) + 3] ^= 1; // block 35 (chunk 2)
    b[64 + 20 * (1 << 20) + 3] ^= 1; // block 20 (chunk 1)
    Path bad = dir.resolve("bad.prb");
    Files.write(bad, b);
    long from = 64 + 20L * (1 << 20);
    for (int threads : new int[] {1, 2, 3, 7}) {
      DataFormatException e =
          assertThrows(
              DataFormatException.class, () -> BinaryPartitionFormat.read(bad, 0, threads));
      assertEquals(
          bad
              + " byte "
              + from
              + ": payload checksum mismatch in block 20 (bytes "
              + from
              + ".."
              + (from + (1 << 20) - 1)
              + ")",
          e.getMessage(),
          "threads=" + threads);
    }
    // values that are not finite, in x (chunk 1) and y (chunk 2, read first by no one in
    // particular):
    // the first in payload order is named
    byte[] v = bytes.clone();
    int xAt = 64 + 4 * 5_000_000; // x: index 5,000,000 = feature 5 (0-based 4), row 800,001
    int yAt = 64 + 4 * (9 * 1_050_001 + 17); // y of row 18
    for (int at : new int[] {xAt, yAt}) {
      v[at] = 0;
      v[at + 1] = 0;
      v[at + 2] = (byte) 0x80;
      v[at + 3] = 0x7f; // +Infinity
      fixCrc(v, (at - 64) / (1 << 20));
    }
    Path inf = dir.resolve("inf.prb");
    Files.write(inf, v);
    for (int threads : new int[] {1, 2, 3, 7}) {
      DataFormatException e =
          assertThrows(
              DataFormatException.class, () -> BinaryPartitionFormat.read(inf, 0, threads));
      assertEquals(
          inf
              + " byte "
              + xAt
              + ": x5 of row "
              + (5_000_000 - 4 * 1_050_001 + 1)
              + " is Infinity, not a finite number",
          e.getMessage(),
          "threads=" + threads);
    }
  }

  /** Rewrites block {@code block}'s CRC in the table and the table's own CRC. */
  static void fixCrc(byte[] b, int block) {
    java.nio.ByteBuffer h = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    long payload = h.getLong(32);
    long blocks = (payload + (1 << 20) - 1) / (1 << 20);
    int table = (int) (64 + payload);
    java.util.zip.CRC32C c = new java.util.zip.CRC32C();
    int from = 64 + block * (1 << 20);
    c.update(b, from, (int) Math.min(1 << 20, payload - (long) block * (1 << 20)));
    h.putInt(table + 4 * block, (int) c.getValue());
    c.reset();
    c.update(b, table, (int) (4 * blocks));
    h.putInt(table + (int) (4 * blocks), (int) c.getValue());
  }

  @Test
  void theDigestSidecarServesOnlyItsOwnFile() throws Exception {
    Partition p = PartitionFilesTest.random(5_000, 3, 21);
    Path f = dir.resolve("part.prb");
    PartitionFiles.write(p, f);
    Path side = DigestCache.sidecar(f);
    assertTrue(Files.isRegularFile(side), "writing a .prb leaves its digest beside it");
    assertEquals(p.digest(), PartitionFiles.read(f).digest());

    // a sidecar that lies is believed only while the file is the one it names
    String lie = "0".repeat(64);
    String text = Files.readString(side);
    Files.writeString(side, text.replace(p.digest(), lie));
    assertEquals(
        lie,
        PartitionFiles.read(f).digest(),
        "the sidecar is what a matching file's digest comes from");

    // the same content, another file (a copy): computed, and the copy gets its own sidecar
    Path copy = dir.resolve("copy.prb");
    Files.copy(f, copy);
    Partition c = PartitionFiles.read(copy);
    assertEquals(p.digest(), c.digest());
    assertTrue(Files.readString(DigestCache.sidecar(copy)).contains("digest=" + p.digest()));

    // the file touched (its times move): computed again, the sidecar rewritten
    Files.setLastModifiedTime(
        f, FileTime.fromMillis(Files.getLastModifiedTime(f).toMillis() - 60_000));
    Partition t = PartitionFiles.read(f);
    assertEquals(p.digest(), t.digest());
    assertTrue(Files.readString(side).contains("digest=" + p.digest()));
    assertEquals(p.digest(), PartitionFiles.read(f).digest());

    // a sidecar that does not parse is ignored
    Files.writeString(side, "garbage\n");
    assertEquals(p.digest(), PartitionFiles.read(f).digest());
  }

  @Test
  void aFileRewrittenInPlaceIsNotServedTheOldDigest() throws Exception {
    Partition a = PartitionFilesTest.random(5_000, 3, 1);
    Partition b = PartitionFilesTest.random(5_000, 3, 2);
    assertNotEquals(a.digest(), b.digest());
    Path f = dir.resolve("p.prb");
    Path other = dir.resolve("other.prb");
    PartitionFiles.write(a, f);
    BinaryPartitionFormat.write(b, other);
    String sidecarOfA = Files.readString(DigestCache.sidecar(f));
    // same size, other content, written over the bytes of f (same inode), old mtime put back
    FileTime mtime = Files.getLastModifiedTime(f);
    Files.write(f, Files.readAllBytes(other));
    Files.setLastModifiedTime(f, mtime);
    assertEquals(sidecarOfA, Files.readString(DigestCache.sidecar(f)));
    assertEquals(b.digest(), PartitionFiles.read(f).digest());
    assertArrayEquals(
        PartitionFilesTest.bits(b.featureMajor()),
        PartitionFilesTest.bits(PartitionFiles.read(f).featureMajor()));
  }
}
