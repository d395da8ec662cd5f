package parreg.bench;

import io.airlift.compress.snappy.SnappyCompressor;
import java.nio.file.Path;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import parreg.device.Partition;
import parreg.device.data.PartitionFiles;

/**
 * Writes a partition file's rows as Parquet for {@link CsvReadBench}: columns {@code x1..xd, y} as
 * double (what pandas writes for float64 data) holding the same numbers, SNAPPY pages (pandas' and
 * Spark's default), row groups of {@code --row-group-mb} (default 64). parquet-java's writer: it
 * needs Hadoop's API classes on the class path (the build's compile class path has them; the
 * distribution does not, as it only reads Parquet).
 *
 * <p>Usage: {@code ParquetFromCsv [--row-group-mb M] IN OUT.parquet}; {@code
 * scripts/bench/parquet.sh} runs it, then the reader bench on both files.
 */
public final class ParquetFromCsv {
  private ParquetFromCsv() {}

  public static void main(String[] args) throws Exception {
    long groupMb = 64;
    int a = 0;
    if (args[a].equals("--row-group-mb")) {
      groupMb = Long.parseLong(args[a + 1]);
      a += 2;
    }
    Partition p = PartitionFiles.read(Path.of(args[a]));
    int n = p.samples();
    int d = p.features();
    StringBuilder schema = new StringBuilder("message m {");
    for (int j = 1; j <= d; j++) {
      schema.append(" required double x").append(j).append(';');
    }
    MessageType type =
        MessageTypeParser.parseMessageType(schema.append(" required double y; }").toString());
    SimpleGroupFactory groups = new SimpleGroupFactory(type);
    float[] x = p.featureMajor();
    float[] y = p.targets();
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(Path.of(args[a + 1])))
            .withType(type)
            .withConf(new PlainParquetConfiguration())
            .withCodecFactory(new Snappy())
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .withRowGroupSize(groupMb << 20)
            .build()) {
      for (int i = 0; i < n; i++) {
        Group g = groups.newGroup();
        for (int j = 0; j < d; j++) {
          g.add(j, (double) x[j * n + i]);
        }
        g.add(d, (double) y[i]);
        w.write(g);
      }
    }
    System.out.println("wrote " + n + " rows of d=" + d + " to " + args[a + 1]);
  }

  /** SNAPPY pages through aircompressor (parquet-java's own factory needs Hadoop's natives). */
  private static final class Snappy implements CompressionCodecFactory {
    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
      return new BytesInputCompressor() {
        private final SnappyCompressor c = new SnappyCompressor();

        @Override
        public BytesInput compress(BytesInput bytes) throws java.io.IOException {
          byte[] in = bytes.toByteArray();
          byte[] out = new byte[c.maxCompressedLength(in.length)];
          int k = c.compress(in, 0, in.length, out, 0, out.length);
          return BytesInput.from(java.util.Arrays.copyOf(out, k));
        }

        @Override
        public CompressionCodecName getCodecName() {
          return CompressionCodecName.SNAPPY;
        }

        @Override
        public void release() {}
      };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
      throw new UnsupportedOperationException("write only");
    }

    @Override
    public void release() {}
  }
}
