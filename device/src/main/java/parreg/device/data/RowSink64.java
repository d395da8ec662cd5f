package parreg.device.data;

/**
 * As {@link RowSink}, every value in binary64: what a command reads for a model whose data are
 * binary64 ({@code evaluate} of an {@code --precision f64} model). Decimal text is rounded once,
 * correctly, to binary64; a binary32 {@code .prb} file's values are widened (exactly).
 */
public interface RowSink64 {
  /** Called once, before the first row, with the file's feature count d. */
  default void begin(int features) throws DataFormatException {}

  /**
   * One row. {@code x} is reused for the next row (copy what you keep).
   *
   * @param row the row's index, from 0
   * @param where the row's place for messages ("FILE line L", "FILE row R")
   */
  void row(long row, double[] x, double y, RowSink.Where where) throws DataFormatException;
}
