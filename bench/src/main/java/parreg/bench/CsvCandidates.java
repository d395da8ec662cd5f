package parreg.bench;

import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import de.siegmar.fastcsv.reader.CsvCallbackHandler;
import de.siegmar.fastcsv.reader.CsvReader;
import de.siegmar.fastcsv.reader.CsvRecord;
import de.siegmar.fastcsv.reader.FieldMismatchStrategy;
import de.siegmar.fastcsv.reader.RecordType;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import parreg.device.data.Decimals;

/**
 * One pass of each candidate CSV library over a file with a header line: every field after the
 * header is parsed to binary32 by the same {@link Decimals#toFloat} the product uses, so the
 * figures compare the libraries' tokenizers (plus their way of handing a field over: a {@code
 * char[]} slice or a {@code String}). Each pass returns the rows and a checksum of the values'
 * bits, which must agree between candidates.
 */
final class CsvCandidates {
  private CsvCandidates() {}

  /** Rows read and the sum of every value's bits (a cheap check that all read the same). */
  record Result(long rows, long checksum) {}

  interface Pass {
    Result run(Path file) throws IOException;
  }

  static Pass named(String name) {
    return switch (name) {
      case "fastcsv" -> CsvCandidates::fastCsvCallback;
      case "fastcsv-record" -> CsvCandidates::fastCsvRecords;
      case "jackson" -> CsvCandidates::jackson;
      case "commons" -> CsvCandidates::commons;
      default -> throw new IllegalArgumentException("unknown candidate " + name);
    };
  }

  /** FastCSV 4 with a callback handler: each field parsed straight from the library's buffer. */
  static Result fastCsvCallback(Path file) throws IOException {
    class Handler extends CsvCallbackHandler<Object> {
      long records;
      long sum;
      int fields;

      @Override
      protected RecordType getRecordType() {
        return RecordType.DATA;
      }

      @Override
      protected int getFieldCount() {
        return fields;
      }

      @Override
      protected void beginRecord(long startingLineNumber) {
        fields = 0;
      }

      @Override
      protected void addField(char[] buf, int offset, int len, boolean quoted) {
        fields++;
        if (records > 0) {
          sum += Float.floatToRawIntBits(Decimals.toFloat(buf, offset, offset + len));
        }
      }

      @Override
      protected void setComment(char[] buf, int offset, int len) {}

      @Override
      protected void setEmpty() {}

      @Override
      protected Object buildRecord() {
        records++;
        return null; // consumed here: the reader goes on to the next record
      }
    }
    Handler h = new Handler();
    try (CsvReader<Object> r =
        CsvReader.builder().extraFieldStrategy(FieldMismatchStrategy.IGNORE).build(h, file)) {
      r.iterator().hasNext();
    }
    return new Result(h.records - 1, h.sum);
  }

  /** FastCSV 4's record API: a {@code String} per field. */
  static Result fastCsvRecords(Path file) throws IOException {
    long rows = -1;
    long sum = 0;
    try (CsvReader<CsvRecord> r = CsvReader.builder().ofCsvRecord(file)) {
      for (CsvRecord rec : r) {
        if (rows++ < 0) {
          continue;
        }
        for (int k = 0; k < rec.getFieldCount(); k++) {
          String s = rec.getField(k);
          sum += Float.floatToRawIntBits(Decimals.toFloat(s, 0, s.length()));
        }
      }
    }
    return new Result(rows, sum);
  }

  /** Jackson CSV's streaming parser, without a schema (each row an array of strings). */
  static Result jackson(Path file) throws IOException {
    long rows = -1;
    long sum = 0;
    boolean header = true;
    try (CsvParser p = (CsvParser) new CsvFactory().createParser(file.toFile())) {
      p.enable(CsvParser.Feature.WRAP_AS_ARRAY);
      int depth = 0;
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (t == JsonToken.START_ARRAY) {
          depth++;
        } else if (t == JsonToken.END_ARRAY) {
          if (depth-- == 2) {
            rows++;
            header = false;
          }
        } else if (t == JsonToken.VALUE_STRING && !header) {
          sum +=
              Float.floatToRawIntBits(
                  Decimals.toFloat(
                      p.getTextCharacters(),
                      p.getTextOffset(),
                      p.getTextOffset() + p.getTextLength()));
        }
      }
    }
    return new Result(rows, sum);
  }

  /** Commons CSV, RFC 4180 format: a {@code String} per field. */
  static Result commons(Path file) throws IOException {
    long rows = -1;
    long sum = 0;
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (CSVRecord rec : CSVFormat.RFC4180.parse(in)) {
        if (rows++ < 0) {
          continue;
        }
        for (int k = 0; k < rec.size(); k++) {
          String s = rec.get(k);
          sum += Float.floatToRawIntBits(Decimals.toFloat(s, 0, s.length()));
        }
      }
    }
    return new Result(rows, sum);
  }
}
