package dev.pread.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread, {@code pread-hotset}, that records and loads the hot sets of every
 * directory in the JVM: started when the first directory with a hot set opens, stopped (and waited
 * for) when the last one closes, so that no thread outlives the directories.
 *
 * <p>Tasks must be short or cut into short steps that give the thread back (a load re-submits
 * itself between steps), so that one directory's load does not hold up another's record.
 *
 * <p>Thread-safe.
 */
final class HotSetScheduler {
  /** An executor and its threads, which the last release joins: a pool counts as terminated just before they end. */
  private record Pool(ScheduledThreadPoolExecutor executor, Set<Thread> threads) {}

  private static Pool pool;
  private static int users;

  private HotSetScheduler() {}

  /** A directory starts using the thread; returns the executor to submit its tasks to. */
  static synchronized ScheduledExecutorService acquire() {
    if (pool == null) {
      Set<Thread> threads = ConcurrentHashMap.newKeySet();
      ScheduledThreadPoolExecutor e =
          new ScheduledThreadPoolExecutor(
              1,
              task -> {
                Thread t = new Thread(task, "pread-hotset");
                t.setDaemon(true);
                threads.add(t);
                return t;
              });
      e.setRemoveOnCancelPolicy(true);
      e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      pool = new Pool(e, threads);
    }
    users++;
    return pool.executor;
  }

  /**
   * A directory stops using the thread (its tasks are cancelled or finished); the last one stops
   * it and waits until it has ended.
   */
  static void release() {
    Pool stop;
    synchronized (HotSetScheduler.class) {
      if (--users > 0) {
        return;
      }
      stop = pool;
      pool = null;
    }
    stop.executor.shutdown();
    boolean interrupted = false;
    while (true) {
      try {
        if (stop.executor.awaitTermination(1, TimeUnit.SECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    for (Thread t : stop.threads) {
      while (t != Thread.currentThread()) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** True while the thread's executor exists (some directory uses it); for tests. */
  static synchronized boolean isRunning() {
    return pool != null;
  }
}
