package dev.pread.store;

/**
 * Whether a query's reads through the page cache are made at the highest best-effort I/O level, or
 * in the real-time class where asked for ({@link dev.pread.nativeio.IoPriority#enterFirst}): for
 * {@value #HOLD_MILLIS} ms after {@value #SLOW_READS} of them took longer than {@value
 * #SLOW_MICROS} us within {@value #WINDOW_MILLIS} ms.
 * A read from the page cache takes microseconds and one from an idle disk a fraction of a
 * millisecond; reads that keep taking milliseconds mean the disk is busy with other work (a
 * neighbour streaming a file), which is when going first helps, and when the three system calls
 * around each read cost little against the wait. While reads are fast they keep the thread's own
 * priority and cost two {@link System#nanoTime} calls each.
 *
 * <p>Why several reads and not one: under a memory limit alone the kernel reclaims page cache
 * inside some reads, and a few of them a second take one to a few milliseconds. One slow read as
 * the trigger would keep the level on most of the time there, and the calls around every read, most
 * of them reads the page cache serves, would cost a third more kernel time a query. Reads slowed by
 * reclaim seldom take over the bound, and seldom several within the window; reads behind a
 * neighbour's stream do, many a second.
 *
 * <p>Thread-safe: a slow read takes a lock to count (slow reads are few); the deadline is
 * volatile, read by every read.
 */
final class SlowReads {
  /** A read slower than this counts towards turning reads at the first level on. */
  static final long SLOW_MICROS = 4000;

  /** How many slow reads within {@link #WINDOW_MILLIS} turn reads at the first level on. */
  static final int SLOW_READS = 3;

  /** The window in which {@link #SLOW_READS} slow reads must fall. */
  static final long WINDOW_MILLIS = 500;

  /** How long reads go first after the slow reads that turned them on. */
  static final long HOLD_MILLIS = 2000;

  /** The one the JVM's page-cache inputs share: the disk is busy for all of them alike. */
  static final SlowReads SHARED = new SlowReads();

  /** {@link System#nanoTime()} until which reads go first. */
  private volatile long until;

  /** The end of the first slow read counted in the current window; guarded by this. */
  private long windowStart;

  /** Slow reads counted in the current window; guarded by this. */
  private int slowInWindow;

  SlowReads() {
    until = System.nanoTime();
  }

  /** True if a read starting at {@code now} ({@link System#nanoTime()}) should go first. */
  boolean first(long now) {
    return now - until < 0;
  }

  /** Notes a read that ran from {@code start} to {@code end} ({@link System#nanoTime()}). */
  void record(long start, long end) {
    if (end - start > SLOW_MICROS * 1000) {
      slow(end);
    }
  }

  private synchronized void slow(long end) {
    if (slowInWindow == 0 || end - windowStart > WINDOW_MILLIS * 1_000_000L) {
      windowStart = end;
      slowInWindow = 0;
    }
    if (++slowInWindow >= SLOW_READS) {
      until = end + HOLD_MILLIS * 1_000_000L;
      slowInWindow = 0;
    }
  }
}
