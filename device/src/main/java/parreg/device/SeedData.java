package parreg.device;

/**
 * The built-in seed partitions of SPEC section 2: participant 0 holds x=1, participant 1 x=1 and
 * x=2, y=0.
 */
public final class SeedData {
  /** The seed's own dataset bytes, as the seed contract carries them. */
  public static final String DESCRIPTOR = RunContract.SEED_DATASET;

  private SeedData() {}

  public static Partition partition(int participant) {
    return switch (participant) {
      case 0 -> Partition.ofRows(new float[][] {{1f}}, new float[] {0f});
      case 1 -> Partition.ofRows(new float[][] {{1f}, {2f}}, new float[] {0f, 0f});
      default ->
          throw new IllegalArgumentException(
              "the seed data has partitions for participants 0 and 1 only, not " + participant);
    };
  }
}
