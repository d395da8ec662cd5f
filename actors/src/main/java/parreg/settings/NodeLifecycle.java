package parreg.settings;

import java.util.concurrent.CompletableFuture;

/**
 * How the actors tell the node's main thread that the node is finished: with an exit code and a
 * one-line message (SPEC section 4 exit codes: 0 done, 2 bad input, other runtime failure; README
 * names 3, diverged, and 4, removed from the cluster).
 */
public final class NodeLifecycle {
  /** The end of a node: exit code and the line to print. */
  public record Outcome(int exitCode, String message) {}

  private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
  private final CompletableFuture<Void> trainingDone = new CompletableFuture<>();

  public CompletableFuture<Outcome> outcome() {
    return outcome;
  }

  /** Completes once the node has committed its target step (it may keep serving afterwards). */
  public CompletableFuture<Void> trainingDone() {
    return trainingDone;
  }

  public void refuse(String message) {
    outcome.complete(new Outcome(2, message));
  }

  public void fail(String message) {
    outcome.complete(new Outcome(1, message));
  }

  /** Exit code of a run stopped because a step's update or loss was not finite (README). */
  public static final int DIVERGED = 3;

  /**
   * Training diverged: the journal holds every finite step, the non-finite one was not committed.
   */
  public void diverge(String message) {
    outcome.complete(new Outcome(DIVERGED, message));
  }

  /**
   * Exit code of a node removed from the cluster (its peers downed and quarantined it, say after a
   * pause of its process) that does not rejoin in its own process (README): the same command
   * resumes from its journal.
   */
  public static final int REMOVED = 4;

  /** A request to stop (SIGTERM): the node ends as if done, exit code 0. */
  public void stop(String message) {
    outcome.complete(new Outcome(0, message));
  }

  public void markTrainingDone() {
    trainingDone.complete(null);
  }

  /** The step the run ended at, before {@link #markTrainingDone()}: every participant's too. */
  private volatile long doneStep = Long.MAX_VALUE;

  /** Training ended at {@code step} (a converged run ends before its step limit). */
  public void markTrainingDone(long step) {
    doneStep = step;
    markTrainingDone();
  }

  /** The step the run ended at, or {@link Long#MAX_VALUE} when it did not end yet. */
  public long doneStep() {
    return doneStep;
  }
}
