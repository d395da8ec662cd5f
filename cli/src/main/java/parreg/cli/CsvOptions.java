package parreg.cli;

import java.util.List;
import parreg.device.data.CsvColumns;
import picocli.CommandLine.Option;

/**
 * {@code --label}, {@code --features}, {@code --no-header}: which CSV columns a command reads (the
 * same options wherever a CSV file is read: node, evaluate, predict, convert). See {@link
 * CsvColumns}.
 */
final class CsvOptions {
  @Option(
      names = "--label",
      paramLabel = "COLUMN",
      description =
          "CSV label column: a header name (default y), or with --no-header a 0-based position (default: the last column)")
  String label;

  @Option(
      names = "--features",
      split = ",",
      paramLabel = "COLUMN",
      description =
          "CSV feature columns, in the model's order: header names, or 0-based positions with --no-header (default: every other column)")
  List<String> features;

  @Option(
      names = "--no-header",
      description = "the CSV file has no header line: columns are chosen by 0-based position")
  boolean noHeader;

  /** The choice, its option errors as a {@link UserError}. */
  CsvColumns columns() {
    try {
      return new CsvColumns(!noHeader, label, features);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }

  /** The options as given, as arguments for a node process ({@code parreg fit}). */
  java.util.List<String> asArguments() {
    java.util.List<String> a = new java.util.ArrayList<>();
    if (label != null) {
      a.addAll(java.util.List.of("--label", label));
    }
    if (features != null) {
      a.addAll(java.util.List.of("--features", String.join(",", features)));
    }
    if (noHeader) {
      a.add("--no-header");
    }
    return a;
  }
}
