package parreg.cli;

import java.util.List;
import parreg.device.data.CsvColumns;
import parreg.device.data.CsvDialect;
import picocli.CommandLine.Option;

/**
 * {@code --label}, {@code --features}, {@code --no-header}, {@code --delimiter}: which CSV columns
 * a command reads and how its fields are delimited (the same options wherever a CSV file is read:
 * node, evaluate, predict, convert). See {@link CsvColumns} and {@link CsvDialect}.
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

  @Option(
      names = "--delimiter",
      paramLabel = "CHAR",
      description =
          "CSV field delimiter: one character, e.g. ';' or '|', or tab (also \\t) (default: ,)")
  String delimiter;

  /** The choice, its option errors as a {@link UserError}. */
  CsvColumns columns() {
    try {
      return new CsvColumns(!noHeader, label, features);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }

  /** Whether any option here differs from its default. */
  boolean given() {
    return !columns().isDefault() || delimiter != null;
  }

  /** The delimiter, missing values refused. */
  CsvDialect dialect() {
    return dialect(CsvDialect.Missing.REFUSE);
  }

  /** The delimiter, missing values as {@code missing} says. */
  CsvDialect dialect(CsvDialect.Missing missing) {
    try {
      return CsvDialect.of(delimiter(), missing);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }

  private char delimiter() {
    if (delimiter == null) {
      return ',';
    }
    if (delimiter.equals("\\t") || delimiter.equalsIgnoreCase("tab")) {
      return '\t';
    }
    if (delimiter.length() != 1) {
      throw new UserError("--delimiter '" + delimiter + "': give one character (or tab for a tab)");
    }
    return delimiter.charAt(0);
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
    if (delimiter != null) {
      a.addAll(java.util.List.of("--delimiter", delimiter));
    }
    return a;
  }
}
