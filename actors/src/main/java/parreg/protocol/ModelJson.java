package parreg.protocol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import parreg.device.Bits;
import parreg.device.ExactStep;
import parreg.device.FitSummary;
import parreg.device.LocalSums;
import parreg.device.RunContract;

/**
 * The model file's JSON ({@value #FORMAT}), written by {@code export} and by a node whose target is
 * durable ({@code model.json} beside its embedded journal): the contract fields and digest, the
 * participant, the committed step, the parameters as numbers and as binary64 bit patterns (the bits
 * are authoritative), the loss where there is one, and an exact run's training summary.
 */
public final class ModelJson {
  public static final String FORMAT = "parreg-checkpoint/v1";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ModelJson() {}

  /**
   * @param loss NaN where there is none
   * @param summary the training summary ({@link FitSummary#json}), or null
   */
  public static byte[] of(
      RunContract contract,
      int participant,
      long committedStep,
      double[] parameters,
      double loss,
      Map<String, Object> summary)
      throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    ObjectNode c = root.putObject("contract");
    contract.fields().forEach(c::put);
    root.put("contractDigest", contract.digest());
    root.put("participant", participant);
    root.put("committedStep", committedStep);
    ArrayNode w = root.putArray("parameters");
    for (double v : parameters) {
      w.add(v);
    }
    ArrayNode b = root.putArray("parameterBits");
    for (double v : parameters) {
      b.add(Bits.hex(v));
    }
    if (!Double.isNaN(loss)) {
      root.put("loss", loss);
      root.put("lossBits", Bits.hex(loss));
    }
    if (summary != null) {
      root.set("summary", JSON.valueToTree(summary));
    }
    return JSON.writeValueAsBytes(root);
  }

  /**
   * A node's model at its committed step: an exact run's summary from the solved step's
   * contributions ({@code contributions}, null when not at hand), as {@code export} computes it.
   */
  public static byte[] of(TrainingState state, int participant, LocalSums[] contributions)
      throws IOException {
    Map<String, Object> summary = null;
    if (contributions != null
        && state.contract().solverSpec().exact()
        && state.committed() == ExactStep.STEP) {
      summary = FitSummary.json(FitSummary.of(state.contract(), contributions));
    }
    return of(
        state.contract(),
        participant,
        state.committed(),
        state.parameters(),
        state.loss(),
        summary);
  }
}
