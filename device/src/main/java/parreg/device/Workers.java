package parreg.device;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The threads that load a partition: reading and checking a file, its digest, converting it to a
 * device layout. Start-up is the only time parreg moves gigabytes, and one core moves them at a
 * fraction of what the memory can, so these steps split their work into independent tasks and run
 * them here. Every caller writes each task's result to its own place, so the bits never depend on
 * the thread count or on which thread ran which task.
 *
 * <p>The threads are daemons of one cached pool: idle after start-up, they end after a minute.
 */
public final class Workers {
  /** System property: the threads a load uses (default: the available processors). */
  public static final String THREADS_PROPERTY = "parreg.load.threads";

  private static final AtomicInteger NAMES = new AtomicInteger();
  private static final ExecutorService POOL =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "parreg-load-" + NAMES.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private Workers() {}

  /** One task of a parallel step; {@code E} is the checked exception it may throw. */
  @FunctionalInterface
  public interface Task<E extends Exception> {
    void run(int index) throws E;
  }

  /**
   * The threads a load uses: {@value #THREADS_PROPERTY} where set, else the available processors.
   */
  public static int defaultThreads() {
    Integer set = Integer.getInteger(THREADS_PROPERTY);
    return Math.max(1, set != null ? set : Runtime.getRuntime().availableProcessors());
  }

  /**
   * Runs {@code task(0) .. task(tasks - 1)} on up to {@code threads} threads, the calling thread
   * one of them, and returns when all have ended. Tasks are taken in index order; after a failure
   * no new task starts, and the first failure is rethrown (its type kept).
   */
  public static <E extends Exception> void run(int threads, int tasks, Task<E> task) throws E {
    int helpers = Math.min(threads, tasks) - 1;
    if (helpers <= 0) {
      for (int i = 0; i < tasks; i++) {
        task.run(i);
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
              task.run(i);
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
          failure.compareAndSet(null, e.getCause()); // not reached: loop catches everything
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    rethrow(failure.get());
  }

  /** Starts {@link #run} on a pool thread; {@link Pending#join} waits for it and rethrows. */
  public static <E extends Exception> Pending<E> start(int threads, int tasks, Task<E> task) {
    Future<?> f =
        POOL.submit(
            () -> {
              run(threads, tasks, task);
              return null;
            });
    return new Pending<>(f);
  }

  /** A {@link #start}ed step. */
  public static final class Pending<E extends Exception> {
    private final Future<?> future;

    private Pending(Future<?> future) {
      this.future = future;
    }

    /** Waits for the step to end; rethrows its failure. */
    @SuppressWarnings("unchecked")
    public void join() throws E {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            future.get();
            return;
          } catch (InterruptedException e) {
            interrupted = true;
          } catch (java.util.concurrent.ExecutionException e) {
            rethrow(e.getCause());
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Exception> void rethrow(Throwable t) throws E {
    if (t == null) {
      return;
    }
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error er) {
      throw er;
    }
    throw (E) t;
  }
}
