package dev.pread.cache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongConsumer;

/**
 * Hits waiting to be applied to the eviction policy: readers record a hit here without a lock, and
 * whoever takes the policy's lock drains the records and applies them (after Caffeine's read
 * buffer). So the policy's use counts and frequency sketch are written only under its lock, and a
 * reader never does the policy's work (a sketch's periodic halving walks its whole table).
 *
 * <p>Records go into one of a few rings ("stripes", picked by thread), each of {@value #CAPACITY}
 * records with a tail the readers advance and a head the drain advances. A record is one {@code
 * long}; a reader's offer reads the stripe's tail and head and writes the record and the tail:
 * no lock, no atomic read-modify-write, no allocation.
 *
 * <p><b>Thread-safety: lossy by design.</b> {@link #offer} may be called by any thread; {@link
 * #drain} only under the policy's lock. When a stripe is full a record is dropped, and two threads
 * offering to one stripe at once may overwrite each other's record; a record may then be lost or
 * applied twice. Records only raise use counts and frequency estimates, which are estimates
 * anyway, and the policy checks that a record's block is still in its slot before applying it;
 * one thread's records on a stripe of its own are applied in order and none is lost while fewer
 * than {@value #CAPACITY} wait.
 */
final class HitBuffer {
  /** Records per stripe: a power of two. */
  static final int CAPACITY = 128;

  private static final int POSITION_STRIDE = 16; // longs: tail and head on a 128-byte span of their own
  private static final int HEAD = 8; // the head's offset from the tail: another cache line
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private final int stripeMask;
  private final long[] records;
  private final long[] positions;

  HitBuffer() {
    int cpus = Runtime.getRuntime().availableProcessors();
    int stripes = Integer.highestOneBit(Math.max(1, Math.min(32, 2 * cpus)) * 2 - 1);
    this.stripeMask = stripes - 1;
    this.records = new long[stripes * CAPACITY];
    this.positions = new long[stripes * POSITION_STRIDE];
  }

  /** Heap bytes of the buffer. */
  long bytes() {
    return 8L * (records.length + positions.length);
  }

  /** Records a hit ({@code record} is not 0); drops it if its stripe is full. Never blocks. */
  void offer(long record) {
    int stripe = (int) Thread.currentThread().threadId() & stripeMask;
    int p = stripe * POSITION_STRIDE;
    long tail = (long) LONGS.getOpaque(positions, p);
    long head = (long) LONGS.getOpaque(positions, p + HEAD);
    if (tail - head >= CAPACITY) {
      return; // full until the next drain
    }
    LONGS.setOpaque(records, stripe * CAPACITY + (int) (tail & (CAPACITY - 1)), record);
    LONGS.setRelease(positions, p, tail + 1);
  }

  /**
   * Hands every waiting record to {@code apply}, oldest first within a stripe. Caller holds the
   * policy's lock: drains never run at once.
   */
  void drain(LongConsumer apply) {
    for (int stripe = 0; stripe <= stripeMask; stripe++) {
      int p = stripe * POSITION_STRIDE;
      long tail = (long) LONGS.getAcquire(positions, p);
      long head = (long) LONGS.getOpaque(positions, p + HEAD);
      if (tail - head <= 0) {
        continue; // empty (or a racing reader moved the tail back: its records are lost)
      }
      for (long i = Math.max(head, tail - CAPACITY); i < tail; i++) {
        int index = stripe * CAPACITY + (int) (i & (CAPACITY - 1));
        long record = (long) LONGS.getOpaque(records, index);
        if (record != 0) {
          LONGS.setOpaque(records, index, 0L);
          apply.accept(record);
        }
      }
      LONGS.setRelease(positions, p + HEAD, tail);
    }
  }
}
