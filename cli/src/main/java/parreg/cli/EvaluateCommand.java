package parreg.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import parreg.device.RegressionMetrics;
import parreg.device.UpdateRule;
import parreg.device.data.DataFormatException;
import parreg.device.data.PartitionFiles;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code parreg evaluate}: judges a trained model on a labelled file (a partition file, CSV or
 * {@code .prb}): n, RMSE, MAE and R², in binary64, deterministic.
 *
 * <p>The model is read exactly as {@code predict} reads it (same contract and finiteness checks),
 * and each row is read exactly as training reads it, at the precision of the model's data: rounded
 * to binary32, then widened, for a binary32 model; correctly rounded to binary64 (a binary64 {@code
 * .prb} file's values as they are) for a binary64 one. A CSV file and its {@code .prb} conversion
 * at that precision give the same bits. The file is streamed: memory stays at one row (CSV) or one
 * chunk of rows ({@code .prb}), whatever its size.
 */
@Command(
    name = "evaluate",
    mixinStandardHelpOptions = true,
    description = "Evaluate a trained model on labelled data: n, RMSE, MAE, R².")
public final class EvaluateCommand implements Callable<Integer> {

  @ArgGroup(exclusive = true, multiplicity = "1")
  PredictCommand.Source source;

  @Option(
      names = "--input",
      required = true,
      description =
          "labelled rows: a partition file (.prb, or CSV: x1,...,xd,y or the columns --label/--features choose)")
  Path input;

  @Option(names = "--json", description = "print one JSON object instead of text")
  boolean json;

  @picocli.CommandLine.Mixin CsvOptions csv = new CsvOptions();

  @picocli.CommandLine.Mixin NaOption na = new NaOption();

  @Override
  public Integer call() throws IOException {
    parreg.device.data.CsvColumns columns = csv.columns();
    parreg.device.data.CsvDialect dialect = csv.dialect(na.missing());
    boolean dropping = dialect.missing() == parreg.device.data.CsvDialect.Missing.DROP;
    Checkpoint cp = source.load();
    boolean bias = cp.contract().bias();
    double[] w = cp.parameters();
    RegressionMetrics metrics = new RegressionMetrics();
    double[] row = new double[cp.contract().features()];
    parreg.device.data.RowSink64 judge =
        (i, x, y, where) -> {
          double prediction = UpdateRule.predict(w, bias, x);
          if (!Double.isFinite(prediction)) {
            throw new DataFormatException(
                where.describe()
                    + ": the prediction is "
                    + prediction
                    + " (beyond the binary64 range); the model cannot be judged on this row");
          }
          metrics.add(y, prediction);
        };
    long dropped;
    try {
      if (cp.contract().precision() == parreg.device.Precision.F64) {
        dropped =
            PartitionFiles.stream64(input, cp.contract().features(), columns, dialect, judge)
                .droppedRows();
      } else {
        dropped =
            PartitionFiles.stream(
                    input,
                    cp.contract().features(),
                    columns,
                    dialect,
                    (i, x, y, where) -> {
                      for (int j = 0; j < row.length; j++) {
                        row[j] = x[j];
                      }
                      judge.row(i, row, y, where);
                    })
                .droppedRows();
      }
    } catch (DataFormatException e) {
      throw new UserError("--input " + e.getMessage());
    } catch (NoSuchFileException e) {
      throw new UserError("--input " + input + ": no such file");
    } catch (IOException e) {
      throw FileErrors.userError("--input " + input + ": cannot read", e);
    }
    if (metrics.r2() < DIVERGED_R2) {
      // Far worse than predicting the mean: not a poor fit but a run whose steps grew without
      // bound until they stopped (exit 3) at the last finite one.
      System.err.println(
          "parreg: warning: R2 = "
              + metrics.r2()
              + ": this model looks diverged (its training's learning rate was too large for the"
              + " data); retrain with a smaller --learning-rate or with --solver exact");
    }
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode o = mapper.createObjectNode();
      o.put("model", source.describe());
      o.put("participant", cp.participant());
      o.put("committedStep", cp.committedStep());
      o.put("input", input.toString());
      o.put("n", metrics.n());
      if (dropping) {
        o.put("droppedRows", dropped);
      }
      putNumber(o, "rmse", metrics.rmse());
      putNumber(o, "mae", metrics.mae());
      putNumber(o, "r2", metrics.r2());
      System.out.println(mapper.writeValueAsString(o));
    } else {
      System.out.println(
          "model "
              + source.describe()
              + " (participant "
              + cp.participant()
              + ", step "
              + cp.committedStep()
              + ") on "
              + input);
      System.out.println("n     " + metrics.n());
      if (dropping) {
        System.out.println("      " + DataFiles.dropped(dropped));
      }
      System.out.println("RMSE  " + metrics.rmse());
      System.out.println("MAE   " + metrics.mae());
      System.out.println(
          "R2    "
              + (Double.isNaN(metrics.r2()) ? "undefined (every y is the same)" : metrics.r2()));
    }
    return 0;
  }

  /**
   * An R² below this says the model is not a fit at all: its errors are a thousand times the spread
   * of y.
   */
  static final double DIVERGED_R2 = -1000;

  /** JSON has no NaN: an undefined R² (constant targets) is null. */
  private static void putNumber(ObjectNode o, String name, double v) {
    if (Double.isFinite(v)) {
      o.put(name, v);
    } else {
      o.putNull(name);
    }
  }
}
