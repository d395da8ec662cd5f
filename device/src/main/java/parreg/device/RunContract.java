package parreg.device;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The immutable identity of a run (SPEC section 1). Every node, journal, peer handshake, exported
 * checkpoint and prediction checks it; two contracts are the same run exactly when every field is
 * equal, and {@link #firstDifference} names the first field that is not.
 *
 * <p>The per-partition digests are not part of the contract: each node only knows its own data.
 * They are collected at start into the roster (see {@code RunStarted}), which is checked on every
 * restart.
 *
 * @param runName human name of the run
 * @param schema numerical policy name (SPEC section 2)
 * @param checkpointContract layout version of journal, snapshot and export
 * @param loss loss and combination rule
 * @param learningRate exact rate as given
 * @param initialWeights binary64 initial parameters, bias last when {@code bias}; finite
 * @param features number of features d
 * @param bias whether the model has a bias term
 * @param participants number of participants P, fixed at run start
 * @param dataset dataset descriptor ("fixed-repeated-batch: ..." for the seed, a name for files)
 * @param batchSize samples per batch, 0 meaning the whole partition
 * @param reductionOrder version of the summation order ({@link ReductionOrder#VERSION})
 */
public record RunContract(
    String runName,
    String schema,
    String checkpointContract,
    String loss,
    String learningRate,
    double[] initialWeights,
    int features,
    boolean bias,
    int participants,
    String dataset,
    int batchSize,
    String reductionOrder) {

  public static final String SEED_RUN = "partitioned-squared-error-native-v1";
  public static final String SCHEMA = "f32-local-gradient-f64-update-with-u64-mass";
  public static final String CHECKPOINT_CONTRACT = "scalar-parameter-updates-batches-epoch/v1";
  public static final String LOSS = "sample-mass-squared-error";

  public RunContract {
    initialWeights = initialWeights.clone();
    if (features < 1) {
      throw new IllegalArgumentException("features must be >= 1, got " + features);
    }
    if (participants < 1) {
      throw new IllegalArgumentException("participants must be >= 1, got " + participants);
    }
    if (initialWeights.length != parameterCount(features, bias)) {
      throw new IllegalArgumentException(
          "initial weights: expected "
              + parameterCount(features, bias)
              + " values (d="
              + features
              + (bias ? " plus bias" : "")
              + "), got "
              + initialWeights.length);
    }
    for (int i = 0; i < initialWeights.length; i++) {
      if (!Double.isFinite(initialWeights[i])) {
        throw new IllegalArgumentException("initial weight " + (i + 1) + " is " + initialWeights[i] + ", not finite");
      }
    }
    if (batchSize < 0) {
      throw new IllegalArgumentException("batch size must be >= 0 (0 = whole partition)");
    }
    LearningRate.parse(learningRate);
  }

  /** The seed run of SPEC section 1. */
  public static RunContract seed(int participants, int batchSize) {
    return new RunContract(
        SEED_RUN,
        SCHEMA,
        CHECKPOINT_CONTRACT,
        LOSS,
        "1/4",
        new double[] {3.0},
        1,
        false,
        participants,
        SeedData.DESCRIPTOR,
        batchSize,
        ReductionOrder.VERSION);
  }

  public static int parameterCount(int features, boolean bias) {
    return features + (bias ? 1 : 0);
  }

  public int parameterCount() {
    return parameterCount(features, bias);
  }

  public LearningRate rate() {
    // Replaying or committing a step asks for the rate each time; parse each text once.
    return RATES.computeIfAbsent(learningRate, LearningRate::parse);
  }

  private static final java.util.concurrent.ConcurrentHashMap<String, LearningRate> RATES =
      new java.util.concurrent.ConcurrentHashMap<>();

  @Override
  public double[] initialWeights() {
    return initialWeights.clone();
  }

  /** Field name to canonical text, in declaration order; weights as binary64 bit patterns. */
  public Map<String, String> fields() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("runName", runName);
    m.put("schema", schema);
    m.put("checkpointContract", checkpointContract);
    m.put("loss", loss);
    m.put("learningRate", learningRate);
    m.put("initialWeights", Bits.hexList(initialWeights));
    m.put("features", Integer.toString(features));
    m.put("bias", Boolean.toString(bias));
    m.put("participants", Integer.toString(participants));
    m.put("dataset", dataset);
    m.put("batchSize", Integer.toString(batchSize));
    m.put("reductionOrder", reductionOrder);
    return m;
  }

  /**
   * Rebuilds a contract from {@link #fields()} (as stored in an exported checkpoint).
   *
   * @throws IllegalArgumentException naming the missing or malformed field
   */
  public static RunContract fromFields(Map<String, String> f) {
    for (String k : List.of("runName", "schema", "checkpointContract", "loss", "learningRate", "initialWeights",
        "features", "bias", "participants", "dataset", "batchSize", "reductionOrder")) {
      if (!f.containsKey(k)) {
        throw new IllegalArgumentException("contract field '" + k + "' is missing");
      }
    }
    String w = f.get("initialWeights").strip();
    if (!w.startsWith("[") || !w.endsWith("]")) {
      throw new IllegalArgumentException("contract field 'initialWeights' is malformed: " + w);
    }
    String inner = w.substring(1, w.length() - 1).strip();
    double[] weights = inner.isEmpty()
        ? new double[0]
        : java.util.Arrays.stream(inner.split(",")).mapToDouble(s -> Bits.parseHex(s.strip())).toArray();
    try {
      return new RunContract(f.get("runName"), f.get("schema"), f.get("checkpointContract"), f.get("loss"),
          f.get("learningRate"), weights, Integer.parseInt(f.get("features")), Boolean.parseBoolean(f.get("bias")),
          Integer.parseInt(f.get("participants")), f.get("dataset"), Integer.parseInt(f.get("batchSize")),
          f.get("reductionOrder"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("contract field is not a number: " + e.getMessage());
    }
  }

  /** SHA-256 over the canonical field encoding: stable across JVMs and versions. */
  public String digest() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, String> e : fields().entrySet()) {
        byte[] k = e.getKey().getBytes(StandardCharsets.UTF_8);
        byte[] v = e.getValue().getBytes(StandardCharsets.UTF_8);
        md.update(intBytes(k.length));
        md.update(k);
        md.update(intBytes(v.length));
        md.update(v);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] intBytes(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  /** The first field that differs, as "field: ours=X theirs=Y", or empty when equal. */
  public Optional<String> firstDifference(RunContract other) {
    List<String> diffs = differences(other);
    return diffs.isEmpty() ? Optional.empty() : Optional.of(diffs.get(0));
  }

  public List<String> differences(RunContract other) {
    List<String> out = new ArrayList<>();
    Map<String, String> a = fields();
    Map<String, String> b = other.fields();
    for (String k : a.keySet()) {
      if (!a.get(k).equals(b.get(k))) {
        out.add(k + ": expected '" + a.get(k) + "' but found '" + b.get(k) + "'");
      }
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RunContract c && fields().equals(c.fields());
  }

  @Override
  public int hashCode() {
    return fields().hashCode();
  }

  @Override
  public String toString() {
    return "RunContract" + fields();
  }

  /** Short identity used in persistence ids: run name plus the first 16 hex digits of the digest. */
  public String runId() {
    return runName + "-" + digest().substring(0, 16);
  }
}
