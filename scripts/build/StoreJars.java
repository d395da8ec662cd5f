/**
 * Copies jars with every entry stored (not deflated), for scripts/build/make-dist.sh: xz over the
 * distribution then compresses the classes across all jars (about 17 MB for what is 45 MB of
 * deflated jars). Classes load from a stored jar as from any other. JCuda's natives jar keeps only
 * the driver binding: it also carries NVRTC, the runtime API and the PTX compiler (26 MB
 * unpacked), which the CUDA backend does not use (docs/GPU.md).
 *
 * <p>Usage: {@code java StoreJars.java OUT_DIR JAR...} (run from source, JDK 11+).
 */
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

public final class StoreJars {
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    Files.createDirectories(out);
    for (int i = 1; i < args.length; i++) {
      Path jar = Path.of(args[i]);
      String name = jar.getFileName().toString();
      boolean jcudaNatives = name.startsWith("jcuda-natives-");
      try (ZipFile in = new ZipFile(jar.toFile());
          ZipOutputStream zo = new ZipOutputStream(Files.newOutputStream(out.resolve(name)))) {
        zo.setMethod(ZipOutputStream.STORED);
        for (ZipEntry e : java.util.Collections.list(in.entries())) {
          String n = e.getName();
          if (jcudaNatives && !(n.startsWith("META-INF/") || n.startsWith("lib/libJCudaDriver-"))) {
            continue;
          }
          byte[] data;
          try (InputStream is = in.getInputStream(e)) {
            data = is.readAllBytes();
          }
          CRC32 crc = new CRC32();
          crc.update(data);
          ZipEntry s = new ZipEntry(n);
          s.setMethod(ZipEntry.STORED);
          s.setSize(data.length);
          s.setCompressedSize(data.length);
          s.setCrc(crc.getValue());
          s.setTime(e.getTime());
          zo.putNextEntry(s);
          zo.write(data);
          zo.closeEntry();
        }
      }
    }
  }

  private StoreJars() {}
}
