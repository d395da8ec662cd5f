package parreg.device.data;

import io.airlift.compress.Compressor;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.zstd.ZstdCompressor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
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

/**
 * Writes Parquet files for tests with parquet-java's own writer ({@link ExampleParquetWriter}, the
 * writer Spark's and Hive's Parquet output is built on), its pages compressed here (parquet-java's
 * codec factory needs Hadoop's native codecs).
 */
public final class ParquetWriting {
  private ParquetWriting() {}

  /** A value of one cell: a Number, or null for a null. */
  public interface Cells {
    Object cell(int row, int column);
  }

  /**
   * Writes {@code rows} rows of {@code schema} (e.g. {@code message m { required int32 a; optional
   * double y; }}), the cell of row r and column c from {@code cells}, row groups of about {@code
   * rowGroupBytes} bytes.
   */
  public static void write(
      Path file,
      String schema,
      int rows,
      Cells cells,
      CompressionCodecName codec,
      long rowGroupBytes)
      throws IOException {
    MessageType type = MessageTypeParser.parseMessageType(schema);
    SimpleGroupFactory groups = new SimpleGroupFactory(type);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withType(type)
            .withConf(new PlainParquetConfiguration())
            .withCodecFactory(new Codecs())
            .withCompressionCodec(codec)
            .withRowGroupSize(rowGroupBytes)
            .withPageSize(4096)
            .withMinRowCountForPageSizeCheck(10)
            .withMaxRowCountForPageSizeCheck(100)
            .build()) {
      for (int r = 0; r < rows; r++) {
        Group g = groups.newGroup();
        for (int c = 0; c < type.getFieldCount(); c++) {
          Object v = cells.cell(r, c);
          if (v == null) {
            continue;
          }
          String name = type.getFieldName(c);
          switch (type.getType(c).asPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> g.add(name, ((Number) v).intValue());
            case INT64 -> g.add(name, ((Number) v).longValue());
            case FLOAT -> g.add(name, ((Number) v).floatValue());
            case DOUBLE -> g.add(name, ((Number) v).doubleValue());
            case BINARY -> g.add(name, v.toString());
            default -> throw new IllegalArgumentException(type.getType(c).toString());
          }
        }
        w.write(g);
      }
    }
  }

  private static final class Codecs implements CompressionCodecFactory {
    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
      return new BytesInputCompressor() {
        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
          byte[] in = bytes.toByteArray();
          switch (codec) {
            case UNCOMPRESSED:
              return BytesInput.from(in);
            case GZIP:
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              try (GZIPOutputStream z = new GZIPOutputStream(out)) {
                z.write(in);
              }
              return BytesInput.from(out.toByteArray());
            default:
              Compressor c =
                  switch (codec) {
                    case SNAPPY -> new SnappyCompressor();
                    case ZSTD -> new ZstdCompressor();
                    case LZ4_RAW -> new Lz4Compressor();
                    default -> throw new IllegalArgumentException(codec.toString());
                  };
              byte[] buf = new byte[c.maxCompressedLength(in.length)];
              int n = c.compress(in, 0, in.length, buf, 0, buf.length);
              return BytesInput.from(java.util.Arrays.copyOf(buf, n));
          }
        }

        @Override
        public CompressionCodecName getCodecName() {
          return codec;
        }

        @Override
        public void release() {}
      };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
      return ParquetCodecs.INSTANCE.getDecompressor(codec);
    }

    @Override
    public void release() {}
  }
}
