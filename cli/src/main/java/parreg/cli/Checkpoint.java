package parreg.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import parreg.device.Bits;
import parreg.device.ExactStep;
import parreg.device.FitSummary;
import parreg.device.RunContract;
import parreg.persistence.ChainCheck;
import parreg.persistence.JournalLocation;
import parreg.persistence.JournalReadException;
import parreg.persistence.JournalRows;
import parreg.persistence.JournalRuns;
import parreg.persistence.KryoCodec;
import parreg.persistence.RunEvents;
import parreg.protocol.RunStarted;
import parreg.protocol.StepCommitted;
import parreg.protocol.TrainingState;

/**
 * A trained model with its contract: read from a node's journal (snapshot plus replayed events,
 * with the training actor's own checks) or from an exported checkpoint file, and written to one.
 *
 * <p>The file is JSON ({@value #FORMAT}): the contract fields and digest, the participant, the
 * committed step, and the parameters both as numbers and as binary64 bit patterns; the bits are
 * authoritative. An exact run's checkpoint carries its training summary ({@link
 * parreg.device.FitSummary}) too, computed from the statistics its journal holds.
 */
record Checkpoint(
    RunContract contract,
    int participant,
    long committedStep,
    double[] parameters,
    double loss,
    Map<String, Object> summary) {
  static final String FORMAT = parreg.protocol.ModelJson.FORMAT;

  /** A model without a training summary (gradient descent). */
  Checkpoint(
      RunContract contract, int participant, long committedStep, double[] parameters, double loss) {
    this(contract, participant, committedStep, parameters, loss, null);
  }

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Reads participant {@code p}'s model from its journal (a fresh process: plain JDBC). */
  static Checkpoint fromJournal(JournalLocation journal, int participant, String runName) {
    return fromJournal(journal, participant, runName, null);
  }

  /** Same, for a {@code --journal} value without a password file (the demo, tests). */
  static Checkpoint fromJournal(String journal, int participant, String runName) {
    return fromJournal(JournalOption.parse(journal, null), participant, runName, null);
  }

  /** Sees each committed step as the journal is replayed, with its row (write time). */
  @FunctionalInterface
  interface StepVisitor {
    void step(JournalRows.EventRow row, StepCommitted step);
  }

  /**
   * Same, showing every step to {@code visitor} (when not null): then the journal is replayed from
   * its first event rather than from the latest snapshot, with the same checks, so that what the
   * visitor sees (a loss history) has passed them.
   */
  static Checkpoint fromJournal(
      JournalLocation location, int participant, String runName, StepVisitor visitor) {
    String journal = location.display();
    KryoCodec codec = KryoCodec.fromConfig(ConfigFactory.load());
    Connection opened;
    try {
      // A running node's embedded journal is read through a snapshot of its durable prefix.
      parreg.persistence.JournalReading reading = parreg.persistence.JournalReading.open(location);
      noteSnapshot(reading, journal);
      location = reading.location();
      opened = reading.connection();
    } catch (IllegalArgumentException | IllegalStateException e) {
      // No journal there, or a snapshot of a running node's could not be taken.
      throw new UserError(e.getMessage());
    } catch (SQLException e) {
      throw JournalOption.readFailure("cannot open journal " + journal, e);
    }
    try (Connection c = opened) {
      JournalRows.readConsistently(c); // a live PostgreSQL journal: one view of it
      RunEvents events = RunEvents.of(c, codec, location);
      String pid = persistenceId(c, codec, location, participant, runName);
      TrainingState state = TrainingState.empty();
      ChainCheck chain = ChainCheck.fromStart(pid);
      // From the latest snapshot that links to its event: the events before it are journal
      // verify's to check, so that reading a model costs the events since the last snapshot.
      Optional<RunEvents.SnapshotStart> snap =
          visitor == null ? events.fromLatestSnapshot(pid) : Optional.empty();
      if (snap.isPresent()) {
        state = (TrainingState) snap.get().snapshot().snapshot();
        chain = snap.get().chain();
      }
      TrainingState[] replayed = {state};
      StepCommitted[] last = {null};
      StepVisitor seen =
          (row, step) -> {
            last[0] = step;
            if (visitor != null) {
              visitor.step(row, step);
            }
          };
      // The journal's events, then its step log's (an embedded H2 journal's) after them.
      events.forEachEvent(pid, chain, false, e -> replayed[0] = replayRow(replayed[0], e, seen));
      state = replayed[0];
      if (!state.started()) {
        throw new UserError(
            "journal " + journal + " holds no started run for participant " + participant);
      }
      Map<String, Object> summary = null;
      if (state.contract().solverSpec().exact() && state.committed() == ExactStep.STEP) {
        if (last[0] == null) {
          // A snapshot covered the solved step: replay from the start for its statistics.
          return fromJournal(location, participant, runName, (row, step) -> {});
        }
        summary =
            FitSummary.json(
                state.contract(), FitSummary.of(state.contract(), last[0].contributions()));
      }
      return new Checkpoint(
          state.contract(),
          participant,
          state.committed(),
          state.parameters(),
          state.loss(),
          summary);
    } catch (SQLException e) {
      throw JournalOption.readFailure("cannot read journal " + journal, e);
    } catch (JournalReadException e) {
      // A checksum, the chain or a replay check failed: the journal is damaged there.
      throw new UserError(
          "journal "
              + journal
              + " is damaged: "
              + e.getMessage()
              + " (bin/parreg journal verify lists what it holds)");
    }
  }

  /** One line on standard error where a running node's journal is read through a snapshot. */
  static void noteSnapshot(parreg.persistence.JournalReading reading, String journal) {
    if (reading.snapshot()) {
      System.err.println(
          "parreg: journal "
              + journal
              + " is in use by a running node: reading a snapshot of what it has made durable");
    }
  }

  /**
   * Applies one journal row with the training actor's replay checks; a failed check names the row.
   *
   * @throws JournalReadException naming the row's sequence number when a check fails
   */
  static TrainingState replayRow(TrainingState state, JournalRows.EventRow e, StepVisitor visitor) {
    Object ev = e.event();
    try {
      if (ev instanceof RunStarted rs) {
        return state.apply(rs);
      } else if (ev instanceof StepCommitted sc) {
        TrainingState next = state.apply(sc);
        if (visitor != null) {
          visitor.step(e, sc);
        }
        return next;
      }
      throw new IllegalStateException("unknown event " + ev.getClass().getName());
    } catch (IllegalStateException x) {
      throw new JournalReadException(
          "event "
              + e.persistenceId()
              + " #"
              + e.sequenceNr()
              + " fails its replay check: "
              + x.getMessage(),
          e.sequenceNr(),
          x);
    }
  }

  /**
   * The persistence id of participant {@code participant}'s run in this journal (one, or
   * --run-name).
   */
  static String persistenceId(
      Connection c, KryoCodec codec, JournalLocation location, int participant, String runName)
      throws SQLException {
    try {
      return JournalRuns.of(c, codec, location).persistenceIdOf(participant, runName);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
  }

  /** Reads an exported checkpoint, checking its format, contract digest and bits. */
  static Checkpoint fromFile(Path file) {
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException e) {
      throw new UserError("checkpoint " + file + ": cannot read: " + e.getMessage());
    }
    if (root == null || !FORMAT.equals(root.path("format").asText())) {
      throw new UserError("checkpoint " + file + ": not a " + FORMAT + " file");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    root.path("contract")
        .fields()
        .forEachRemaining(e -> fields.put(e.getKey(), e.getValue().asText()));
    // The digest first: an altered file is reported as such, whatever field was changed.
    if (!RunContract.digestOf(fields).equals(root.path("contractDigest").asText())) {
      throw new UserError(
          "checkpoint " + file + ": contract digest does not match its fields (file altered?)");
    }
    RunContract contract;
    try {
      contract = RunContract.fromFields(fields);
    } catch (IllegalArgumentException e) {
      throw new UserError("checkpoint " + file + ": " + e.getMessage());
    }
    if (!contract.digest().equals(root.path("contractDigest").asText())) {
      throw new UserError(
          "checkpoint " + file + ": contract fields are not in canonical form (file altered?)");
    }
    if (!RunContract.CHECKPOINT_CONTRACT.equals(contract.checkpointContract())) {
      throw new UserError(
          "checkpoint "
              + file
              + ": checkpoint contract "
              + contract.checkpointContract()
              + " is not supported (this version reads "
              + RunContract.CHECKPOINT_CONTRACT
              + ")");
    }
    JsonNode bits = root.path("parameterBits");
    if (!bits.isArray() || bits.size() != contract.parameterCount()) {
      throw new UserError(
          "checkpoint "
              + file
              + ": expected "
              + contract.parameterCount()
              + " parameter bit patterns");
    }
    double[] w = new double[bits.size()];
    for (int i = 0; i < w.length; i++) {
      try {
        w[i] = Bits.parseHex(bits.get(i).asText());
      } catch (NumberFormatException e) {
        throw new UserError(
            "checkpoint " + file + ": parameterBits[" + i + "] is not a hex bit pattern");
      }
    }
    double loss =
        root.path("lossBits").isTextual()
            ? Bits.parseHex(root.path("lossBits").asText())
            : Double.NaN;
    @SuppressWarnings("unchecked")
    Map<String, Object> summary =
        root.path("summary").isObject() ? JSON.convertValue(root.get("summary"), Map.class) : null;
    return new Checkpoint(
        contract,
        root.path("participant").asInt(),
        root.path("committedStep").asLong(),
        w,
        loss,
        summary);
  }

  byte[] toJson() throws IOException {
    return parreg.protocol.ModelJson.of(
        contract, participant, committedStep, parameters, loss, summary);
  }

  /**
   * The coefficients as CSV for other tools ({@code export --format csv}): a header {@code
   * name,value,bits}, one line per weight {@code w1..wd}, then {@code intercept} (0.0 for a model
   * without a bias, which is what it predicts with). Values in shortest round-trip form, which
   * reads back to the same binary64, and the bits beside them.
   */
  byte[] toCoefficientsCsv() {
    StringBuilder sb = new StringBuilder("name,value,bits\n");
    int d = contract.features();
    for (int j = 0; j < d; j++) {
      sb.append('w')
          .append(j + 1)
          .append(',')
          .append(parameters[j])
          .append(',')
          .append(Bits.hex(parameters[j]))
          .append('\n');
    }
    double b = contract.bias() ? parameters[d] : 0.0;
    sb.append("intercept,").append(b).append(',').append(Bits.hex(b)).append('\n');
    return sb.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /**
   * Writes the checkpoint atomically and never over an existing file ({@link
   * parreg.device.data.AtomicFiles#writeNew}: a temporary file in the same directory, flushed to
   * disk, then hard-linked to the final name, the temporary removed and the directory flushed),
   * with a new file's permissions under the umask.
   */
  void writeTo(Path out) throws IOException {
    Path target = out.toAbsolutePath();
    Path dir = target.getParent();
    if (Files.exists(target)) {
      throw new UserError("--out " + out + " already exists; a checkpoint is never overwritten");
    }
    if (dir == null || !Files.isDirectory(dir)) {
      throw new UserError(
          "--out "
              + out
              + ": "
              + dir
              + (dir != null && Files.exists(dir) ? " is not a directory" : " does not exist"));
    }
    byte[] json = toJson();
    try {
      parreg.device.data.AtomicFiles.writeNew(
          target, ch -> ch.write(java.nio.ByteBuffer.wrap(json)));
    } catch (FileAlreadyExistsException e) {
      throw new UserError("--out " + out + " already exists; a checkpoint is never overwritten");
    }
  }
}
