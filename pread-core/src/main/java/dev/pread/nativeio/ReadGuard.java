package dev.pread.nativeio;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a file descriptor open while reads are in flight, without a shared lock or a shared
 * counter on the read path.
 *
 * <p>Readers count themselves in one of several cells, chosen by {@link ThreadIndex} and padded to
 * 128 bytes, so threads reading the same file do not write the same memory. The protocol is
 * Dekker's: a reader increments its cell, then reads {@code closed}; {@link #close()} writes
 * {@code closed}, then reads every cell. All four accesses are volatile and therefore totally
 * ordered, so either the reader sees {@code closed} (and backs out before touching the
 * descriptor), or the closer sees the reader's count (and waits for it). A reader always decrements
 * the cell it incremented, so a cell never holds a negative count and a sum of zero really means
 * no reader is inside.
 *
 * <p>{@link NativeOutputFile} guards its writes with the same protocol: "reader" here means any
 * call that uses the descriptor.
 *
 * <p>Thread-safe.
 */
final class ReadGuard {
  /**
   * Ints per cell: 32 ints are 128 bytes. Arrays are only 8-byte aligned, and x86's adjacent-line
   * prefetcher pairs 64-byte lines, so 128 bytes keep two threads' cells out of each other's way.
   */
  private static final int STRIDE = 32;

  private static final int CELLS = cellCount();
  private static final int MASK = CELLS - 1;

  /** Cell i lives at index (i + 1) * STRIDE; slot 0 pads away from the array header. */
  private final AtomicIntegerArray inFlight = new AtomicIntegerArray((CELLS + 1) * STRIDE);

  private volatile boolean closed;

  private static int cellCount() {
    int want = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
    int pow2 = Integer.highestOneBit(want - 1) << 1;
    return Math.min(32, pow2);
  }

  /**
   * Registers the calling thread as a reader.
   *
   * @return the cell to pass to {@link #exit(int)}, or -1 if the guard is closed (nothing to exit)
   */
  int enter() {
    int index = ((ThreadIndex.current() & MASK) + 1) * STRIDE;
    inFlight.getAndIncrement(index);
    if (closed) {
      inFlight.getAndDecrement(index);
      return -1;
    }
    return index;
  }

  /** Unregisters a reader that {@link #enter()} admitted. */
  void exit(int index) {
    inFlight.getAndDecrement(index);
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Closes the guard: no reader is admitted afterwards. The first caller waits until every admitted
   * reader has exited and gets {@code true}; later callers return {@code false} at once.
   */
  boolean close() {
    synchronized (this) {
      if (closed) {
        return false;
      }
      closed = true;
    }
    for (int spins = 0; readersInside(); spins++) {
      if (spins < 64) {
        Thread.onSpinWait();
      } else if (spins < 128) {
        Thread.yield();
      } else {
        // A reader is waiting for the disk: do not burn a core while it does.
        LockSupport.parkNanos(50_000L);
      }
    }
    return true;
  }

  private boolean readersInside() {
    for (int i = 1; i <= CELLS; i++) {
      if (inFlight.get(i * STRIDE) != 0) {
        return true;
      }
    }
    return false;
  }
}
