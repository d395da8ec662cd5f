package parreg.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import parreg.device.RunContract;

/**
 * A participant's loss per committed step, as its journal recorded it: every {@code StepCommitted}
 * carries the step's loss (SPEC section 2), and every journal row its write time (epoch
 * milliseconds; steps written in one group share it). Read through {@link Checkpoint#fromJournal}
 * with a visitor, so the history has passed the replay checks (contiguous steps, recomputed
 * updates) and a damaged journal is refused, not plotted.
 *
 * <p>Three primitive arrays: 24 bytes a step, so a run of millions of steps fits.
 */
record LossHistory(
    RunContract contract, int participant, long[] steps, double[] losses, long[] writtenAtMillis) {

  static LossHistory read(String journal, int participant, String runName) {
    return read(JournalOption.parse(journal, null), participant, runName);
  }

  static LossHistory read(
      parreg.persistence.JournalLocation journal, int participant, String runName) {
    long[][] steps = {new long[1024]};
    double[][] losses = {new double[1024]};
    long[][] times = {new long[1024]};
    int[] n = {0};
    Checkpoint cp =
        Checkpoint.fromJournal(
            journal,
            participant,
            runName,
            (row, step) -> {
              if (n[0] == steps[0].length) {
                int grown = steps[0].length * 2;
                steps[0] = Arrays.copyOf(steps[0], grown);
                losses[0] = Arrays.copyOf(losses[0], grown);
                times[0] = Arrays.copyOf(times[0], grown);
              }
              steps[0][n[0]] = step.step();
              losses[0][n[0]] = step.loss();
              times[0][n[0]] = row.writeTimestamp();
              n[0]++;
            });
    return new LossHistory(
        cp.contract(),
        participant,
        Arrays.copyOf(steps[0], n[0]),
        Arrays.copyOf(losses[0], n[0]),
        Arrays.copyOf(times[0], n[0]));
  }

  int size() {
    return steps.length;
  }

  /**
   * Writes {@code step,loss,time}: one row per step, the loss in shortest round-trip form ({@link
   * Double#toString}, so it reads back to the same bits), the time as an ISO-8601 UTC instant of
   * the journal write, empty where none was recorded.
   */
  void writeCsv(java.io.OutputStream out) throws IOException {
    Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.US_ASCII), 1 << 16);
    w.write("step,loss,time\n");
    for (int i = 0; i < steps.length; i++) {
      w.write(Long.toString(steps[i]));
      w.write(',');
      w.write(Double.toString(losses[i]));
      w.write(',');
      if (writtenAtMillis[i] > 0) {
        w.write(Instant.ofEpochMilli(writtenAtMillis[i]).toString());
      }
      w.write('\n');
    }
    w.flush();
  }
}
