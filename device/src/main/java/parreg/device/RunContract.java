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
 * @param initialization how the initial parameters were given, in the seed's words ({@code
 *     initial-natural-weight=3} for the seed run), or empty for a run whose weights say it all
 *     (file runs); an empty term is left out of {@link #fields()}, so such a contract, its digest
 *     and its checkpoints are what they were before the field existed
 * @param features number of features d
 * @param bias whether the model has a bias term
 * @param participants number of participants P, fixed at run start
 * @param dataset dataset descriptor ("fixed-repeated-batch: ..." for the seed, a name for files)
 * @param batchSize samples per batch, 0 meaning the whole partition
 * @param reductionOrder version of the summation order ({@link ReductionOrder#VERSION})
 * @param solver the solver term ({@link SolverSpec}); empty for the seed's fixed-rate gradient
 *     descent, and then left out of {@link #fields()} like an empty initialization term
 */
public record RunContract(
    String runName,
    String schema,
    String checkpointContract,
    String loss,
    String learningRate,
    double[] initialWeights,
    String initialization,
    int features,
    boolean bias,
    int participants,
    String dataset,
    int batchSize,
    String reductionOrder,
    String solver) {

  public static final String SEED_RUN = "partitioned-squared-error-native-v1";
  public static final String SCHEMA = "f32-local-gradient-f64-update-with-u64-mass";

  /**
   * The numerical policy of binary64 data ({@link Precision#F64}): features and labels binary64,
   * the exact solver's statistics in double-double (binary64 rule of {@code
   * parreg.solver.GramOrder}). A contract with binary32 data keeps {@link #SCHEMA}, so its bytes
   * and digest are what they were before the data's precision was a choice.
   */
  public static final String SCHEMA_F64 = "f64-data-dd-statistics-f64-solve-with-u64-mass";

  public static final String CHECKPOINT_CONTRACT = "scalar-parameter-updates-batches-epoch/v1";
  public static final String LOSS = "sample-mass-squared-error";

  /**
   * The seed's exact byte strings (its {@code CheckpointEnvelopeContract}, SPEC section 1): the
   * loss with its rate and numerical policy, the dataset, the initial weight. The seed run's
   * contract carries them verbatim.
   */
  public static final String SEED_LOSS =
      "sample-mass-squared-error;rate=1/4;f32-gradient-f64-update";

  public static final String SEED_DATASET = "fixed-repeated-batch:x=1,1,2;y=0";
  public static final String SEED_INITIALIZATION = "initial-natural-weight=3";

  /**
   * The seed run's dataset descriptor before the contract carried the seed's bytes (journals of
   * format v1).
   */
  public static final String LEGACY_SEED_DATASET = "fixed-repeated-batch: x=1 | x=1,2 ; y=0";

  /** A contract without an initialization term (every run but the seed). */
  public RunContract(
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
    this(
        runName,
        schema,
        checkpointContract,
        loss,
        learningRate,
        initialWeights,
        "",
        features,
        bias,
        participants,
        dataset,
        batchSize,
        reductionOrder,
        "");
  }

  /** A contract with the seed's learner (no solver term). */
  public RunContract(
      String runName,
      String schema,
      String checkpointContract,
      String loss,
      String learningRate,
      double[] initialWeights,
      String initialization,
      int features,
      boolean bias,
      int participants,
      String dataset,
      int batchSize,
      String reductionOrder) {
    this(
        runName,
        schema,
        checkpointContract,
        loss,
        learningRate,
        initialWeights,
        initialization,
        features,
        bias,
        participants,
        dataset,
        batchSize,
        reductionOrder,
        "");
  }

  public RunContract {
    initialWeights = initialWeights.clone();
    java.util.Objects.requireNonNull(initialization, "initialization");
    java.util.Objects.requireNonNull(solver, "solver");
    SolverSpec.parse(solver);
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
        throw new IllegalArgumentException(
            "initial weight " + (i + 1) + " is " + initialWeights[i] + ", not finite");
      }
    }
    if (batchSize < 0) {
      throw new IllegalArgumentException("batch size must be >= 0 (0 = whole partition)");
    }
    LearningRate.parse(learningRate);
    if (Precision.ofSchema(schema) == Precision.F64 && !SolverSpec.parse(solver).exact()) {
      throw new IllegalArgumentException(
          "binary64 data (schema " + schema + ") are read by the exact solver only");
    }
    checkSeedTerms(loss, learningRate, initialization, initialWeights);
  }

  /**
   * The seed's terms restate the rate and the initial weight: a contract that carries them must
   * agree with its own numeric fields, so the bytes are a checked part of the run, not a label.
   */
  private static void checkSeedTerms(
      String loss, String learningRate, String initialization, double[] initialWeights) {
    if (loss.startsWith(LOSS + ";")) {
      String expected = LOSS + ";rate=" + learningRate + ";f32-gradient-f64-update";
      if (!loss.equals(expected)) {
        throw new IllegalArgumentException(
            "loss term '" + loss + "' does not match the contract (expected '" + expected + "')");
      }
    }
    String natural = "initial-natural-weight=";
    if (initialization.startsWith(natural)) {
      String n = initialization.substring(natural.length());
      if (!n.matches("0|[1-9][0-9]{0,15}")
          || initialWeights.length != 1
          || initialWeights[0] != Long.parseLong(n)
          || Double.doubleToRawLongBits(initialWeights[0]) == Long.MIN_VALUE) {
        throw new IllegalArgumentException(
            "initialization term '"
                + initialization
                + "' does not match the initial weights "
                + Bits.hexList(initialWeights));
      }
    } else if (!initialization.isEmpty()) {
      throw new IllegalArgumentException("unknown initialization term '" + initialization + "'");
    }
  }

  /** The seed run of SPEC section 1. */
  public static RunContract seed(int participants, int batchSize) {
    return new RunContract(
        SEED_RUN,
        SCHEMA,
        CHECKPOINT_CONTRACT,
        SEED_LOSS,
        "1/4",
        new double[] {3.0},
        SEED_INITIALIZATION,
        1,
        false,
        participants,
        SEED_DATASET,
        batchSize,
        ReductionOrder.VERSION);
  }

  /** This contract under another run name (a seed run given {@code --run-name}). */
  public RunContract withRunName(String name) {
    return new RunContract(
        name,
        schema,
        checkpointContract,
        loss,
        learningRate,
        initialWeights,
        initialization,
        features,
        bias,
        participants,
        dataset,
        batchSize,
        reductionOrder,
        solver);
  }

  /** This contract with another solver term ({@link SolverSpec#text()}). */
  public RunContract withSolver(SolverSpec spec) {
    return new RunContract(
        runName,
        schema,
        checkpointContract,
        loss,
        learningRate,
        initialWeights,
        initialization,
        features,
        bias,
        participants,
        dataset,
        batchSize,
        reductionOrder,
        spec.text());
  }

  /** The precision of the run's data, from its numerical policy. */
  public Precision precision() {
    return Precision.ofSchema(schema);
  }

  /** This contract with its data in {@code p}: the schema that precision names. */
  public RunContract withPrecision(Precision p) {
    return new RunContract(
        runName,
        p.schema(),
        checkpointContract,
        loss,
        learningRate,
        initialWeights,
        initialization,
        features,
        bias,
        participants,
        dataset,
        batchSize,
        reductionOrder,
        solver);
  }

  /** The solver this contract names. */
  public SolverSpec solverSpec() {
    return SolverSpec.parse(solver);
  }

  /**
   * A seed contract read from a journal or checkpoint of format v1, written before the contract
   * carried the seed's exact bytes, as the same run says it now; any other contract unchanged. Same
   * run: only the wording of the loss, dataset and initialization changed, never a value.
   */
  public RunContract upgradeLegacySeed() {
    if (!initialization.isEmpty()
        || !LOSS.equals(loss)
        || !LEGACY_SEED_DATASET.equals(dataset)
        || !"1/4".equals(learningRate)
        || features != 1
        || bias
        || initialWeights.length != 1
        || Double.doubleToRawLongBits(initialWeights[0]) != Double.doubleToRawLongBits(3.0)) {
      return this;
    }
    return new RunContract(
        runName,
        schema,
        checkpointContract,
        SEED_LOSS,
        learningRate,
        initialWeights,
        SEED_INITIALIZATION,
        features,
        bias,
        participants,
        SEED_DATASET,
        batchSize,
        reductionOrder);
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
    if (!initialization.isEmpty()) {
      m.put("initialization", initialization);
    }
    m.put("features", Integer.toString(features));
    m.put("bias", Boolean.toString(bias));
    m.put("participants", Integer.toString(participants));
    m.put("dataset", dataset);
    m.put("batchSize", Integer.toString(batchSize));
    m.put("reductionOrder", reductionOrder);
    if (!solver.isEmpty()) {
      m.put("solver", solver);
    }
    return m;
  }

  /**
   * Rebuilds a contract from {@link #fields()} (as stored in an exported checkpoint).
   *
   * @throws IllegalArgumentException naming the missing or malformed field
   */
  public static RunContract fromFields(Map<String, String> f) {
    for (String k :
        List.of(
            "runName",
            "schema",
            "checkpointContract",
            "loss",
            "learningRate",
            "initialWeights",
            "features",
            "bias",
            "participants",
            "dataset",
            "batchSize",
            "reductionOrder")) {
      if (!f.containsKey(k)) {
        throw new IllegalArgumentException("contract field '" + k + "' is missing");
      }
    }
    String w = f.get("initialWeights").strip();
    if (!w.startsWith("[") || !w.endsWith("]")) {
      throw new IllegalArgumentException("contract field 'initialWeights' is malformed: " + w);
    }
    String inner = w.substring(1, w.length() - 1).strip();
    double[] weights =
        inner.isEmpty()
            ? new double[0]
            : java.util.Arrays.stream(inner.split(","))
                .mapToDouble(s -> Bits.parseHex(s.strip()))
                .toArray();
    try {
      return new RunContract(
          f.get("runName"),
          f.get("schema"),
          f.get("checkpointContract"),
          f.get("loss"),
          f.get("learningRate"),
          weights,
          f.getOrDefault("initialization", ""),
          Integer.parseInt(f.get("features")),
          Boolean.parseBoolean(f.get("bias")),
          Integer.parseInt(f.get("participants")),
          f.get("dataset"),
          Integer.parseInt(f.get("batchSize")),
          f.get("reductionOrder"),
          f.getOrDefault("solver", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("contract field is not a number: " + e.getMessage());
    }
  }

  /** SHA-256 over the canonical field encoding: stable across JVMs and versions. */
  public String digest() {
    return digestOf(fields());
  }

  /**
   * {@link #digest()} of a contract given as its fields (a checkpoint's, checked before it is
   * parsed).
   */
  public static String digestOf(Map<String, String> fields) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, String> e : fields.entrySet()) {
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
    java.util.Set<String> keys = new java.util.LinkedHashSet<>(a.keySet());
    keys.addAll(b.keySet()); // a field left out when empty (initialization) may be in one only
    for (String k : keys) {
      String x = a.getOrDefault(k, "");
      String y = b.getOrDefault(k, "");
      if (!x.equals(y)) {
        out.add(k + ": expected '" + x + "' but found '" + y + "'");
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

  /**
   * Short identity used in persistence ids: run name plus the first 16 hex digits of the digest.
   */
  public String runId() {
    return runName + "-" + digest().substring(0, 16);
  }
}
