package parreg.device;

/**
 * What the roster records of one participant's partition: the SHA-256 of its canonical content (see
 * {@link Partition#digest()}), its sample count and its feature count.
 */
public record PartitionInfo(int participant, String digest, long samples, int features) {
  public String describe() {
    return "participant "
        + participant
        + ": "
        + samples
        + " samples, d="
        + features
        + ", sha256 "
        + digest;
  }
}
