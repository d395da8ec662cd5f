package parreg.device.data;

import io.airlift.compress.Decompressor;
import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Decompresses Parquet pages without Hadoop: parquet-java's own codec factory reaches for Hadoop's
 * {@code Configuration} and codec classes (tens of megabytes of jars), so the reader is given this
 * one instead. SNAPPY (pandas' and Spark's default), ZSTD and LZ4_RAW through aircompressor (pure
 * Java, no native library), GZIP through the JDK, UNCOMPRESSED as is. The rest (LZO, BROTLI, the
 * deprecated Hadoop-framed LZ4) are refused with the codec's name. Reading only: {@link
 * #getCompressor} is refused.
 */
final class ParquetCodecs implements CompressionCodecFactory {
  static final ParquetCodecs INSTANCE = new ParquetCodecs();

  private ParquetCodecs() {}

  /** A codec this reader does not have, named in the message. */
  static final class UnsupportedCodec extends IOException {
    private static final long serialVersionUID = 1L;

    UnsupportedCodec(CompressionCodecName codec) {
      super(
          "pages compressed with "
              + codec
              + " (supported: UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW)");
    }
  }

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    return switch (codec) {
      case UNCOMPRESSED -> new Block(null, codec);
      case SNAPPY -> new Block(new SnappyDecompressor(), codec);
      case ZSTD -> new Block(new ZstdDecompressor(), codec);
      case LZ4_RAW -> new Block(new Lz4Decompressor(), codec);
      case GZIP -> new Block(null, codec);
      default -> new Refused(codec);
    };
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("parreg reads Parquet; it does not write it");
  }

  @Override
  public void release() {}

  /** One codec; a decompressor keeps no state between pages, one per column reader. */
  private static final class Block implements BytesInputDecompressor {
    private final Decompressor airlift;
    private final CompressionCodecName codec;

    Block(Decompressor airlift, CompressionCodecName codec) {
      this.airlift = airlift;
      this.codec = codec;
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      if (codec == CompressionCodecName.UNCOMPRESSED) {
        return bytes;
      }
      byte[] in = bytes.toByteArray();
      return BytesInput.from(decompress(in, 0, in.length, uncompressedSize));
    }

    @Override
    public void decompress(
        ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
        throws IOException {
      byte[] in = new byte[compressedSize];
      input.duplicate().get(in);
      output.put(
          codec == CompressionCodecName.UNCOMPRESSED
              ? in
              : decompress(in, 0, compressedSize, uncompressedSize));
    }

    private byte[] decompress(byte[] in, int from, int length, int uncompressedSize)
        throws IOException {
      byte[] out = new byte[uncompressedSize];
      int got;
      if (codec == CompressionCodecName.GZIP) {
        try (GZIPInputStream z = new GZIPInputStream(new ByteArrayInputStream(in, from, length))) {
          got = z.readNBytes(out, 0, uncompressedSize);
        }
      } else {
        try {
          got = airlift.decompress(in, from, length, out, 0, uncompressedSize);
        } catch (MalformedInputException e) {
          throw new IOException("a " + codec + " page does not decompress: " + e.getMessage(), e);
        }
      }
      if (got != uncompressedSize) {
        throw new IOException(
            "a " + codec + " page gave " + got + " bytes, its header says " + uncompressedSize);
      }
      return out;
    }

    @Override
    public void release() {}
  }

  private static final class Refused implements BytesInputDecompressor {
    private final CompressionCodecName codec;

    Refused(CompressionCodecName codec) {
      this.codec = codec;
    }

    @Override
    public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
      throw new UnsupportedCodec(codec);
    }

    @Override
    public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int size)
        throws IOException {
      throw new UnsupportedCodec(codec);
    }

    @Override
    public void release() {}
  }
}
