package parreg.persistence;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.RecordSerializer;
import parreg.device.RunContract;

/**
 * The contract's binary layout, in two versions. Layout 1 is what Kryo's record serializer wrote
 * for the 12-field contract of format v1 (components sorted by name, {@code batchSize} first):
 * journals of that version hold it, and it is still read. Layout 2 adds the initialization term; it
 * starts with a negative int where layout 1 has the batch size (never negative), which is how a
 * reader tells them apart. Layout 3 adds the solver term and is written only where that term is not
 * empty, so a contract without one has the bytes it always had. A layout-1 seed contract is read as
 * the seed contract says it now ({@link RunContract#upgradeLegacySeed}).
 */
final class RunContractSerializer extends Serializer<RunContract> {
  private static final int LAYOUT_2 = -2;
  private static final int LAYOUT_3 = -3;

  /**
   * The format-v1 contract, field for field: Kryo's record serializer reads it as it was written.
   */
  record V1(
      int batchSize,
      boolean bias,
      String checkpointContract,
      String dataset,
      int features,
      double[] initialWeights,
      String learningRate,
      String loss,
      int participants,
      String reductionOrder,
      String runName,
      String schema) {}

  private final RecordSerializer<V1> v1 = new RecordSerializer<>(V1.class);

  RunContractSerializer() {
    setImmutable(true);
  }

  @Override
  public void write(Kryo kryo, Output output, RunContract c) {
    boolean solver = !c.solver().isEmpty();
    kryo.writeObject(output, solver ? LAYOUT_3 : LAYOUT_2);
    output.writeString(c.runName());
    output.writeString(c.schema());
    output.writeString(c.checkpointContract());
    output.writeString(c.loss());
    output.writeString(c.learningRate());
    kryo.writeObject(output, c.initialWeights());
    output.writeString(c.initialization());
    output.writeVarInt(c.features(), true);
    output.writeBoolean(c.bias());
    output.writeVarInt(c.participants(), true);
    output.writeString(c.dataset());
    output.writeVarInt(c.batchSize(), true);
    output.writeString(c.reductionOrder());
    if (solver) {
      output.writeString(c.solver());
    }
  }

  @Override
  public RunContract read(Kryo kryo, Input input, Class<? extends RunContract> type) {
    int start = input.position();
    int first = kryo.readObject(input, int.class);
    if (first != LAYOUT_2 && first != LAYOUT_3) {
      if (first < 0) {
        throw new com.esotericsoftware.kryo.KryoException("unknown run contract layout " + first);
      }
      input.setPosition(start); // layout 1: that int was the batch size
      V1 o = v1.read(kryo, input, V1.class);
      return new RunContract(
              o.runName(),
              o.schema(),
              o.checkpointContract(),
              o.loss(),
              o.learningRate(),
              o.initialWeights(),
              o.features(),
              o.bias(),
              o.participants(),
              o.dataset(),
              o.batchSize(),
              o.reductionOrder())
          .upgradeLegacySeed();
    }
    String runName = input.readString();
    String schema = input.readString();
    String checkpointContract = input.readString();
    String loss = input.readString();
    String learningRate = input.readString();
    double[] initialWeights = kryo.readObject(input, double[].class);
    String initialization = input.readString();
    int features = input.readVarInt(true);
    boolean bias = input.readBoolean();
    int participants = input.readVarInt(true);
    String dataset = input.readString();
    int batchSize = input.readVarInt(true);
    String reductionOrder = input.readString();
    String solver = first == LAYOUT_3 ? input.readString() : "";
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
        solver);
  }
}
