package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.nativeio.CpuPriority;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lowers the CPU priority of the threads that run Lucene's merges, so that on a machine with few
 * cores queries keep theirs while a merge runs.
 *
 * <p>Only a {@code ConcurrentMergeScheduler} merge thread is lowered (OpenSearch's merge
 * scheduler extends it): such a thread runs one merge and ends, so the lower priority ends with it
 * (threads it starts meanwhile inherit it). A thread's priority cannot be raised again without
 * privilege ({@link CpuPriority}), so a thread that merges and then goes on with other work (a
 * merge run by {@code SerialMergeScheduler} in an indexing thread, the worker threads of an
 * intra-merge executor) is left alone.
 *
 * <p>Thread-safe.
 */
final class MergeThreads {
  private static final System.Logger LOG = System.getLogger(AdaptiveDirectory.class.getName());

  private static final AtomicBoolean logged = new AtomicBoolean();

  private MergeThreads() {}

  /** True if {@code thread} is one of {@code ConcurrentMergeScheduler}'s merge threads. */
  static boolean isMergeThread(Thread thread) {
    return BlockCache.LUCENE_MERGE_THREADS.test(thread);
  }

  /**
   * If the calling thread is a merge thread and {@code nice} is above 0, lowers its CPU priority to
   * that nice value for the rest of its life (its merge); the first time in the JVM, logs what it did.
   *
   * @return true if the calling thread runs at {@code nice} or lower priority now
   */
  static boolean yieldCpu(int nice) {
    Thread t = Thread.currentThread();
    if (nice <= 0 || !isMergeThread(t)) {
      return false;
    }
    boolean yielded = CpuPriority.yieldTo(nice);
    if (logged.compareAndSet(false, true)) {
      LOG.log(System.Logger.Level.INFO, yielded
          ? "AdaptiveDirectory: Lucene's merge threads run at nice " + nice + " (" + AdaptiveRegime.MERGE_NICE_PROPERTY
              + "; 0 leaves them alone): queries keep the CPU while a merge runs"
          : "AdaptiveDirectory: cannot lower the CPU priority of Lucene's merge threads (setpriority refused or"
              + " unavailable); merges compete with queries for the CPU");
    }
    return yielded;
  }
}
