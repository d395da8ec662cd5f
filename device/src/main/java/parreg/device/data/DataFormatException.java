package parreg.device.data;

import java.nio.file.Path;

/**
 * Bad input in a partition file: the message names the file and the line (CSV) or byte offset
 * (binary), e.g. {@code data.csv line 17: expected 4 values (x1..x3,y), found 3}. The command line
 * prints it as one line and exits with code 2.
 */
public class DataFormatException extends Exception {
  private static final long serialVersionUID = 1L;

  public DataFormatException(String message) {
    super(message);
  }

  public DataFormatException(String message, Throwable cause) {
    super(message, cause);
  }

  /** "FILE line L: what". */
  public static DataFormatException atLine(Path file, long line, String what) {
    return new DataFormatException(file + " line " + line + ": " + what);
  }

  /** "FILE byte OFFSET: what". */
  public static DataFormatException atByte(Path file, long offset, String what) {
    return new DataFormatException(file + " byte " + offset + ": " + what);
  }

  /** "FILE: what", for problems of the whole file (an empty partition). */
  public static DataFormatException inFile(Path file, String what) {
    return new DataFormatException(file + ": " + what);
  }
}
