package dev.pread.bench.pressure;

import java.io.IOException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * Keeps the page-cache budget of a cell under the limit (pressure, throttled, merge, neighbour)
 * while it runs. The worker sets its group's limit to
 * what it holds besides page cache plus the budget before it measures, but what a JVM holds moves
 * afterwards (the JIT's arenas, the C library's free lists) by several MiB, and under a fixed
 * limit every MiB it grows is a MiB of page cache less: on a budget of a few tens of MiB that is a
 * tenth or more of it, and Directories measured one after another would get different page caches.
 * Every few milliseconds on a daemon thread the keeper sets the limit to the memory charged
 * besides page cache (less {@code excluded}, a cache of our own's blocks, which count inside the
 * budget) plus the budget, when that moved by a MiB or more. Start it with {@link #start}; {@link
 * #close} stops the thread and waits for it; then it tells the limit it started from and the
 * lowest and highest it set.
 *
 * <p>A write the kernel refuses (a limit below the usage it cannot reclaim at once) is retried at
 * the next look; a group whose figures cannot be read is left alone.
 */
public final class LimitKeeper implements AutoCloseable {
  /** The least change of the target limit worth a write. */
  static final long STEP = 1L << 20;

  private final long budget;
  private final long periodMillis;
  private final LongSupplier excluded;
  private final Thread thread;
  private volatile boolean stop;
  private final long start;
  private long limit;
  private long lowest = Long.MAX_VALUE;
  private long highest = -1;
  private int writes;

  private LimitKeeper(long budget, long limit, long periodMillis, LongSupplier excluded) {
    this.budget = budget;
    this.start = limit;
    this.limit = limit;
    this.periodMillis = periodMillis;
    this.excluded = excluded;
    this.thread = new Thread(this::loop, "cgroup-limit-keeper");
    thread.setDaemon(true);
  }

  /**
   * Starts keeping {@code budget} of page cache beside the rest of this process's group's charge,
   * looking every {@code periodMillis}.
   *
   * @throws IllegalStateException if the group's limit cannot be read
   */
  public static LimitKeeper start(long budget, long periodMillis, LongSupplier excluded) {
    long limit = MemoryCgroup.ownLimitBytes();
    if (limit <= 0) {
      throw new IllegalStateException("cannot read this process's memory cgroup limit");
    }
    LimitKeeper k = new LimitKeeper(budget, limit, periodMillis, excluded);
    k.thread.start();
    return k;
  }

  /**
   * The limit that leaves {@code budget} for page cache (and blocks of a cache of our own, {@code
   * excluded}) beside the rest of a charge of {@code usage} of which {@code file} is page cache; -1
   * if either figure is unknown.
   */
  static long target(long usage, long file, long excluded, long budget) {
    if (usage < 0 || file < 0) {
      return -1;
    }
    return usage - file - excluded + budget;
  }

  /**
   * How far a keeper that started from {@code start} moved the limit, either way, given the lowest
   * and highest it set (-1: it set none); 0 if it did not.
   */
  public static long widestMove(long start, long lowest, long highest) {
    if (start < 0 || lowest < 0) {
      return 0;
    }
    return Math.max(Math.abs(highest - start), Math.abs(lowest - start));
  }

  /** True if a limit of {@code current} should be set to {@code target}. */
  static boolean shouldSet(long current, long target) {
    return target > 0 && Math.abs(target - current) >= STEP;
  }

  /** Looks {@link #periodMillis} after each look until {@link #close} unparks it. */
  private void loop() {
    long next = System.nanoTime() + periodMillis * 1_000_000L;
    while (!stop && !Thread.currentThread().isInterrupted()) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(this, wait); // may end early: the loop looks at the time again
        continue;
      }
      look();
      next = System.nanoTime() + periodMillis * 1_000_000L;
    }
  }

  private void look() {
    long target = target(MemoryCgroup.ownUsageBytes(), MemoryCgroup.ownPageCacheBytes(), excluded.getAsLong(), budget);
    if (!shouldSet(limit, target)) {
      return;
    }
    try {
      MemoryCgroup.setOwnLimit(target);
    } catch (IOException e) {
      return; // below what the kernel could reclaim at once: the next look tries again
    }
    synchronized (this) {
      limit = target;
      lowest = Math.min(lowest, target);
      highest = Math.max(highest, target);
      writes++;
    }
  }

  /** The group's limit when the keeper started. */
  public long startBytes() {
    return start;
  }

  /** The lowest limit set, or -1 if none was. */
  public synchronized long lowestBytes() {
    return writes == 0 ? -1 : lowest;
  }

  /** The highest limit set, or -1 if none was. */
  public synchronized long highestBytes() {
    return writes == 0 ? -1 : highest;
  }

  /** How many times the limit was set. */
  public synchronized int writes() {
    return writes;
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    LockSupport.unpark(thread);
    thread.join();
  }
}
