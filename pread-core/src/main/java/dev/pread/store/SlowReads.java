package dev.pread.store;

/**
 * Whether a query's reads through the page cache are made at the highest best-effort I/O level
 * ({@link dev.pread.nativeio.IoPriority#enterFirst}): for {@value #HOLD_MILLIS} ms after any of
 * them took longer than {@value #SLOW_MICROS} us. A read from the page cache takes microseconds
 * and one from an idle disk a fraction of a millisecond; a slow one means the disk is busy with
 * other work (a neighbour streaming a file), which is when going first helps, and when the three
 * system calls around each read cost little against the wait. While reads are fast they keep the
 * thread's own priority and cost two {@link System#nanoTime} calls each.
 *
 * <p>Thread-safe: one volatile deadline, written by any reader; races only move it.
 */
final class SlowReads {
  /** A read slower than this turns reads at the first level on. */
  static final long SLOW_MICROS = 1000;

  /** How long reads go first after a slow one. */
  static final long HOLD_MILLIS = 2000;

  /** The one the JVM's page-cache inputs share: the disk is busy for all of them alike. */
  static final SlowReads SHARED = new SlowReads();

  /** {@link System#nanoTime()} until which reads go first. */
  private volatile long until;

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
      until = end + HOLD_MILLIS * 1_000_000L;
    }
  }
}
