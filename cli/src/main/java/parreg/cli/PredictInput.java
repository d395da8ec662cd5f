package parreg.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import parreg.device.data.CsvColumns;
import parreg.device.data.CsvDialect;
import parreg.device.data.CsvLayout;
import parreg.device.data.CsvRecords;
import parreg.device.data.DataFormatException;

/**
 * {@code predict --input}: one prediction per data row of a CSV file, in input order, read by the
 * same reader as every other command ({@link CsvRecords}: RFC 4180, a byte-order mark, any line
 * ends). Blank lines are skipped. Each value is parsed to binary64 ({@link Double#parseDouble}), as
 * {@code --x} is.
 *
 * <p>Without column options the rows are {@code x1,...,xd} and a first line whose first field
 * starts with {@code x1} is a header; with {@code --label}/{@code --features}/{@code --no-header}
 * the features are the columns chosen (a label column, where there is one, is skipped). A bad row
 * ends the output there (the rows before it stay printed) with exit 2 naming file and line.
 *
 * <p>A Parquet file or directory ({@link parreg.device.data.ParquetPartitionFormat#features}) gives
 * its feature columns chosen by name (default: every column but {@code y}) as binary64.
 */
final class PredictInput {
  private PredictInput() {}

  static void run(
      Checkpoint cp, Path file, CsvColumns columns, CsvDialect dialect, PrintWriter out) {
    int d = cp.contract().features();
    try {
      if (parreg.device.data.ParquetPartitionFormat.isParquet(file)) {
        if (!dialect.defaultSyntax()) {
          throw new UserError(
              "--input "
                  + file
                  + ": a Parquet file has no delimiter; --delimiter applies to CSV files only");
        }
        parreg.device.data.ParquetPartitionFormat.features(
            file,
            d,
            columns,
            (x, where) -> {
              String at = where.describe();
              out.println(Double.toString(PredictCommand.predict(cp, x.clone(), at)));
            });
        return;
      }
    } catch (DataFormatException e) {
      throw new UserError("--input " + e.getMessage());
    } catch (IOException e) {
      throw new UserError("--input " + file + ": " + e.getMessage());
    }
    try (CsvRecords in = CsvRecords.open(file, dialect)) {
      CsvLayout layout = null;
      boolean first = true;
      while (in.next()) {
        boolean isFirst = first;
        first = false;
        if (isFirst && !columns.isDefault()) {
          layout = layout(file, in, columns, d);
          if (columns.header()) {
            continue;
          }
        }
        if (in.blank() || (isFirst && columns.isDefault() && in.text(0).startsWith("x1"))) {
          continue;
        }
        String where = file + " line " + in.line();
        List<String> values = new ArrayList<>(d);
        if (layout == null) {
          for (int k = 0; k < in.fields(); k++) {
            values.add(in.text(k));
          }
        } else {
          if (in.fields() != layout.columns()) {
            throw new UserError(
                "--input "
                    + where
                    + ": expected "
                    + layout.columns()
                    + " values, found "
                    + in.fields());
          }
          for (int c : layout.featureColumns()) {
            values.add(in.text(c));
          }
        }
        out.println(
            Double.toString(
                PredictCommand.predict(cp, PredictCommand.parse(values, where, d), where)));
      }
      if (first && !columns.isDefault()) {
        throw new UserError("--input " + file + " line 1: the file is empty");
      }
    } catch (DataFormatException e) {
      throw new UserError("--input " + e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserError("--input " + file + ": no such file");
    } catch (IOException e) {
      throw new UserError("--input " + file + ": " + e.getMessage());
    }
  }

  private static CsvLayout layout(Path file, CsvRecords in, CsvColumns columns, int d)
      throws DataFormatException {
    List<String> cells = new ArrayList<>(in.fields());
    for (int k = 0; k < in.fields(); k++) {
      cells.add(in.text(k));
    }
    CsvLayout layout = columns.resolve(file, cells, false);
    if (layout.features() != d) {
      throw new UserError(
          "--input "
              + file
              + " line 1: the model has "
              + d
              + " feature(s); the columns chosen are "
              + layout.features());
    }
    return layout;
  }
}
