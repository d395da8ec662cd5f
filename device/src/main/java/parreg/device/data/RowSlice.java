package parreg.device.data;

/**
 * Participant {@code part}'s share of one file shared by {@code parts} participants ({@code
 * --split}): the contiguous data rows {@code [floor(part * n / parts), floor((part + 1) * n /
 * parts))} of the file's n rows (0-based, in file order, header excluded). The slices cover every
 * row once; each has {@code floor(n / parts)} or {@code ceil(n / parts)} rows, so the file needs at
 * least {@code parts} rows. A slice is read to the same bits as a file holding only its rows.
 */
public record RowSlice(int part, int parts) {
  /** The whole file. */
  public static final RowSlice ALL = new RowSlice(0, 1);

  public RowSlice {
    if (parts < 1 || part < 0 || part >= parts) {
      throw new IllegalArgumentException("slice " + part + " of " + parts);
    }
  }

  public boolean whole() {
    return parts == 1;
  }

  /** First row of the slice: floor(part * n / parts), exactly (no overflow). */
  public long from(long n) {
    return boundary(part, n);
  }

  /** One past the slice's last row: floor((part + 1) * n / parts). */
  public long to(long n) {
    return boundary(part + 1, n);
  }

  private long boundary(int p, long n) {
    return java.math.BigInteger.valueOf(p)
        .multiply(java.math.BigInteger.valueOf(n))
        .divide(java.math.BigInteger.valueOf(parts))
        .longValueExact();
  }

  /**
   * The slice's rows of a file of {@code n} rows, refusing a file too short to give every
   * participant a row.
   *
   * @return {@code {from, to}}
   */
  public long[] range(java.nio.file.Path file, long n) throws DataFormatException {
    if (n < parts) {
      throw DataFormatException.inFile(
          file,
          n
              + " data row"
              + (n == 1 ? "" : "s")
              + " cannot be split among "
              + parts
              + " participants (--split needs at least one row each)");
    }
    return new long[] {from(n), to(n)};
  }

  /** "rows A..B-1 of N (participant p of P)", for messages. */
  public String describe(long n) {
    return "rows "
        + from(n)
        + ".."
        + (to(n) - 1)
        + " of "
        + n
        + " (--split, participant "
        + part
        + " of "
        + parts
        + ")";
  }
}
