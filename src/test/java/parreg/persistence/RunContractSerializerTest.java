package parreg.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import parreg.device.RunContract;

/**
 * The contract's two binary layouts: layout 2 keeps the seed's initialization term; layout 1 (what
 * format v1 wrote with Kryo's record serializer, reproduced here by the {@code V1} record under the
 * same id) still reads, a v1 seed contract as the seed contract.
 */
class RunContractSerializerTest {
  static final KryoCodec CODEC = KryoCodec.fromRegistrationsResource();

  @Test
  void aSolverTermIsLayout3AndAContractWithoutOneKeepsLayout2Bytes() {
    RunContract gd = RunContract.seed(2, 0);
    RunContract exact =
        gd.withSolver(
            parreg.device.SolverSpec.exact("gram-tile256-dd/v1", "dd-pivoted-cholesky/v1", "0.5"));
    byte[] bytes = CODEC.encode(exact);
    RunContract back = CODEC.decode(bytes, RunContract.class);
    assertEquals(exact, back);
    assertEquals(exact.solver(), back.solver());
    assertEquals(true, back.solverSpec().exact());
    assertEquals(0.5, back.solverSpec().l2Value());
    // Without a solver term the layout is 2: the bytes a seed journal always held.
    RunContract plain = CODEC.decode(CODEC.encode(gd), RunContract.class);
    assertEquals("", plain.solver());
    assertEquals(true, bytes.length > CODEC.encode(gd).length + exact.solver().length());
  }

  @Test
  void layout2RoundTripsTheSeedAndAFileContract() {
    RunContract seed = RunContract.seed(2, 0);
    RunContract back = CODEC.decode(CODEC.encode(seed), RunContract.class);
    assertEquals(seed, back);
    assertEquals("initial-natural-weight=3", back.initialization());
    RunContract file =
        new RunContract(
            "parreg-run",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "0.01",
            new double[] {0.5, -0.0},
            1,
            true,
            3,
            "files",
            64,
            "tile1024-lane32-pairwise/v1");
    assertEquals(file, CODEC.decode(CODEC.encode(file), RunContract.class));
  }

  @Test
  void aFormatV1ContractStillReadsAndTheSeedOneIsUpgraded() {
    KryoCodec v1Writer =
        KryoCodec.create(
            List.of(new KryoCodec.Entry(100, RunContractSerializer.V1.class.getName())));
    var old =
        new RunContractSerializer.V1(
            0,
            false,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LEGACY_SEED_DATASET,
            1,
            new double[] {3.0},
            "1/4",
            RunContract.LOSS,
            2,
            "tile1024-lane32-pairwise/v1",
            RunContract.SEED_RUN,
            RunContract.SCHEMA);
    RunContract read = CODEC.decode(v1Writer.encode(old), RunContract.class);
    assertEquals(RunContract.seed(2, 0), read);
    var file =
        new RunContractSerializer.V1(
            8,
            true,
            RunContract.CHECKPOINT_CONTRACT,
            "files",
            2,
            new double[] {1, 2, 3},
            "1/8",
            RunContract.LOSS,
            2,
            "tile1024-lane32-pairwise/v1",
            "parreg-run",
            RunContract.SCHEMA);
    RunContract f = CODEC.decode(v1Writer.encode(file), RunContract.class);
    assertEquals(
        new RunContract(
            "parreg-run",
            RunContract.SCHEMA,
            RunContract.CHECKPOINT_CONTRACT,
            RunContract.LOSS,
            "1/8",
            new double[] {1, 2, 3},
            2,
            true,
            2,
            "files",
            8,
            "tile1024-lane32-pairwise/v1"),
        f);
  }
}
