package parreg.solver;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Runs independent tasks on a few threads. Every task writes its result to a place of its own, so
 * the bits never depend on the thread count or on which thread ran which task. The threads are
 * daemons of one cached pool.
 */
final class Parallel {
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "parreg-solver-" + NAMES.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private Parallel() {}

  /**
   * Runs {@code task(0) .. task(tasks - 1)} on up to {@code threads} threads, the calling thread
   * one of them, and returns when all have ended; the first failure is rethrown.
   */
  static void run(int threads, int tasks, IntConsumer task) {
    int helpers = Math.min(threads, tasks) - 1;
    if (helpers <= 0) {
      for (int i = 0; i < tasks; i++) {
        task.accept(i);
      }
      return;
    }
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Runnable loop =
        () -> {
          int i;
          while (failure.get() == null && (i = next.getAndIncrement()) < tasks) {
            try {
              task.accept(i);
            } catch (Throwable t) {
              failure.compareAndSet(null, t);
            }
          }
        };
    Future<?>[] started = new Future<?>[helpers];
    for (int h = 0; h < helpers; h++) {
      started[h] = POOL.submit(loop);
    }
    loop.run();
    boolean interrupted = false;
    for (Future<?> f : started) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the tasks write into the caller's arrays: wait for them to end
        } catch (java.util.concurrent.ExecutionException e) {
          failure.compareAndSet(null, e.getCause());
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable t = failure.get();
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    if (t != null) {
      throw new IllegalStateException(t);
    }
  }
}
