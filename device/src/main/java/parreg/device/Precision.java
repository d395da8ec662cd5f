package parreg.device;

/**
 * The precision a run holds its data in ({@code --precision}, part of the run contract through its
 * numerical policy, {@link RunContract#schema()}).
 *
 * <ul>
 *   <li>{@link #F32}: features and labels binary32, as SPEC section 2 fixes for gradient descent;
 *       the contract's schema is {@link RunContract#SCHEMA}.
 *   <li>{@link #F64}: features and labels binary64 end to end (decimal text correctly rounded to
 *       binary64, a binary64 {@code .prb}); the exact solver only. The schema is {@link
 *       RunContract#SCHEMA_F64}.
 * </ul>
 */
public enum Precision {
  F32("f32", RunContract.SCHEMA),
  F64("f64", RunContract.SCHEMA_F64);

  private final String flag;
  private final String schema;

  Precision(String flag, String schema) {
    this.flag = flag;
    this.schema = schema;
  }

  /** The flag's value: {@code f32} or {@code f64}. */
  public String flag() {
    return flag;
  }

  /** The contract's numerical policy for data of this precision. */
  public String schema() {
    return schema;
  }

  /** The precision a contract's schema names (binary32 unless the schema is binary64's). */
  public static Precision ofSchema(String schema) {
    return schema.startsWith("f64") ? F64 : F32;
  }

  /**
   * Parses the flag's value.
   *
   * @throws IllegalArgumentException naming the value
   */
  public static Precision parse(String text) {
    for (Precision p : values()) {
      if (p.flag.equals(text)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown precision '" + text + "': use f32 or f64");
  }
}
