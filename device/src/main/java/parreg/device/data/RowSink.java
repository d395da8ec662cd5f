package parreg.device.data;

/**
 * Receives a partition file's rows one at a time, in file order, as the trainer would read them
 * (every value rounded to binary32): what lets a command walk a file larger than memory ({@code
 * evaluate}) through the same parser and checks as training.
 */
public interface RowSink {
  /** Called once, before the first row, with the file's feature count d. */
  default void begin(int features) throws DataFormatException {}

  /**
   * One row. {@code x} is reused for the next row (copy what you keep).
   *
   * @param row the row's index, from 0
   * @param where the row's place for messages ("FILE line L", "FILE row R")
   */
  void row(long row, float[] x, float y, Where where) throws DataFormatException;

  /** A row's place in the file, formatted only when a message needs it. */
  interface Where {
    String describe();
  }
}
