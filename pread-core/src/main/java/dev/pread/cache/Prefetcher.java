package dev.pread.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs prefetch loads on a pool of its own, with a cap on the blocks in flight.
 *
 * <p>The pool is a {@link ThreadPoolExecutor} over a {@link LinkedTransferQueue}: a submitted load
 * is handed straight to a thread waiting for work, and woken by the submitter, so the reads of a
 * batch start together; when every thread is busy it waits in the queue. The alternatives wake
 * fewer threads at once: a {@code ForkJoinPool} wakes idle workers one after another, each woken
 * worker waking the next, and a {@code LinkedBlockingQueue} chains its wake-ups the same way for
 * small batches, so the reads of a batch start in turn rather than together. The cost is a thread
 * per read in flight. The cold batched-prefetch section of {@code ./pread bench --sections cache}
 * measures it (docs/benchmarks.md).
 * The threads spend their time blocked in {@code preadv}: that is the point, since each keeps a
 * read in flight at the device. They start on demand and end after a minute idle; all end on
 * {@link #close()}.
 *
 * <p>Thread-safe.
 */
final class Prefetcher {
  private final int threads;
  private final int maxInFlight;
  private final AtomicInteger inFlight = new AtomicInteger();
  /** The pool's threads, so that close can wait for them to end (ended ones are pruned). */
  private final Set<Thread> workers = ConcurrentHashMap.newKeySet();
  private static final System.Logger LOG = System.getLogger(BlockCache.class.getName());

  private final ThreadFactory newThread;
  private final AtomicBoolean startFailureLogged = new AtomicBoolean();
  /**
   * After a thread could not start, prefetches are dropped without trying again until this {@link
   * System#nanoTime} (0: no such failure): a failed start costs milliseconds (the kernel refusing
   * {@code clone}), which a query must not pay at every prefetch while a pids limit holds.
   */
  volatile long startBlockedUntil;

  /** How long prefetches are dropped after a thread could not start; tests change it. */
  long startRetryNanos = 1_000_000_000L;

  private volatile ThreadPoolExecutor pool;
  private volatile boolean closed;

  Prefetcher(int threads, int maxInFlight) {
    this(threads, maxInFlight, Thread::new);
  }

  /**
   * A prefetcher whose pool makes its threads with {@code newThread} (which this names and makes
   * daemon): a seam for tests of a thread that cannot be started.
   */
  Prefetcher(int threads, int maxInFlight, ThreadFactory newThread) {
    this.threads = threads;
    this.maxInFlight = maxInFlight;
    this.newThread = newThread;
  }

  /** Reserves room for {@code blocks} in flight; false (and nothing reserved) at the cap. */
  boolean reserve(int blocks) {
    while (true) {
      int n = inFlight.get();
      if (closed || n + blocks > maxInFlight) {
        return false;
      }
      if (inFlight.compareAndSet(n, n + blocks)) {
        return true;
      }
    }
  }

  void release(int blocks) {
    inFlight.addAndGet(-blocks);
  }

  int inFlight() {
    return inFlight.get();
  }

  /**
   * Runs {@code task} on the pool; false if it cannot be started: the pool is closed, or it could
   * not make a thread ({@code OutOfMemoryError: unable to create native thread} under a process
   * limit, logged once). Never blocks and never throws for a task that cannot start.
   *
   * <p>A task may reach the pool's queue even when this returns false (the pool queues it and then
   * fails to start a thread for it): the caller must make sure such a task does nothing if it runs
   * later ({@link FileBlocks} tasks are claimed by exactly one of runner and canceller).
   */
  boolean submit(Runnable task) {
    long blocked = startBlockedUntil;
    if (blocked != 0 && System.nanoTime() - blocked < 0) {
      return false; // a thread could not start lately: do not pay for another failed start now
    }
    try {
      ExecutorService p = pool;
      if (p == null) {
        p = startPool();
        if (p == null) {
          return false;
        }
      }
      p.execute(task);
      return true;
    } catch (RejectedExecutionException e) {
      return false; // closed
    } catch (RuntimeException | OutOfMemoryError e) {
      startBlockedUntil = System.nanoTime() + startRetryNanos;
      logStartFailure(e);
      return false;
    }
  }

  private void logStartFailure(Throwable e) {
    if (startFailureLogged.compareAndSet(false, true)) {
      try {
        LOG.log(
            System.Logger.Level.WARNING,
            "BlockCache: dropping prefetches: the prefetch pool could not start a thread ("
                + e
                + "); the blocks are read when needed (logged once per cache)");
      } catch (RuntimeException | OutOfMemoryError ignored) {
        // the log is a courtesy: the drop is counted either way
      }
    }
  }

  private synchronized ExecutorService startPool() {
    if (closed) {
      return null;
    }
    if (pool == null) {
      AtomicInteger ids = new AtomicInteger();
      ThreadPoolExecutor executor =
          new ThreadPoolExecutor(
              threads,
              threads,
              60,
              TimeUnit.SECONDS,
              new LinkedTransferQueue<>(),
              task -> {
                Thread t = newThread.newThread(task);
                t.setName("pread-cache-prefetch-" + ids.getAndIncrement());
                t.setDaemon(true);
                workers.removeIf(w -> w.getState() == Thread.State.TERMINATED);
                workers.add(t);
                return t;
              });
      executor.allowCoreThreadTimeOut(true);
      pool = executor;
    }
    return pool;
  }

  /**
   * Stops taking tasks, lets queued ones run (they see the cache closed and give up), and waits
   * until the pool's threads have ended. (The pool counts as terminated once its last worker has
   * left it, while that thread is still running: it is joined as well.)
   */
  void close() {
    ExecutorService p;
    synchronized (this) {
      closed = true;
      p = pool;
    }
    if (p == null) {
      return;
    }
    p.shutdown();
    boolean interrupted = false;
    while (true) {
      try {
        if (p.awaitTermination(1, TimeUnit.SECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    for (Thread t : workers) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    workers.clear();
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
