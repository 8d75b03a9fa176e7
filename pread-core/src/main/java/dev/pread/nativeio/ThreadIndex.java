package dev.pread.nativeio;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small number per thread, handed out in order of first use, for choosing a striped counter cell
 * or a pool slot. Unlike a hash of the thread id, the first N threads get N different numbers, so
 * two reading threads never share a cache line by bad luck.
 *
 * <p>Thread-safe.
 */
final class ThreadIndex {
  private static final AtomicInteger NEXT = new AtomicInteger();
  private static final ThreadLocal<Integer> INDEX =
      ThreadLocal.withInitial(() -> NEXT.getAndIncrement() & Integer.MAX_VALUE);

  private ThreadIndex() {}

  /** This thread's number: non-negative, stable for the thread's life. */
  static int current() {
    return INDEX.get();
  }
}
