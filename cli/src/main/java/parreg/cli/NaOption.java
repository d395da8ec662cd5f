package parreg.cli;

import parreg.device.data.CsvDialect;
import picocli.CommandLine.Option;

/**
 * {@code --na refuse|drop}: what a missing value in a chosen CSV column (an empty cell or {@code
 * NA}) does, for the commands that read rows as data (node, evaluate, convert); {@code predict}
 * answers one line per input row and always refuses one.
 */
final class NaOption {
  @Option(
      names = "--na",
      paramLabel = "refuse|drop",
      description =
          "CSV missing values (an empty cell or NA in a chosen column): refuse (default: exit 2 naming"
              + " file, line and column) or drop the row (the count dropped is printed); NaN and"
              + " Inf are always refused")
  String na;

  CsvDialect.Missing missing() {
    if (na == null || na.equals("refuse")) {
      return CsvDialect.Missing.REFUSE;
    }
    if (na.equals("drop")) {
      return CsvDialect.Missing.DROP;
    }
    throw new UserError("--na must be refuse or drop, not '" + na + "'");
  }

  boolean given() {
    return na != null;
  }
}
