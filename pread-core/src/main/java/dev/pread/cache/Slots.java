package dev.pread.cache;

import dev.pread.nativeio.NativeMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The cache's memory: {@code count} aligned blocks of {@code blockSize} bytes off the Java heap,
 * and one state word per block.
 *
 * <p><b>State word</b> (a {@code long}): the block's generation in the high 32 bits, a LOADING flag
 * in bit 30, and the number of readers pinning it in bits 0 to 29. A file's table refers to a block
 * by slot and generation ({@link #entry}); a reader pins with a CAS that succeeds only while the
 * generation matches and the block is not loading, so a reader holding a stale reference fails the
 * CAS instead of reading recycled bytes. A block is taken for reuse ({@link #tryClaim}) only by a
 * CAS from "this generation, no pins, not loading" to "next generation, loading": from then on no
 * pin of the old generation can succeed, and the claimer owns the memory until it {@link
 * #publish}es the new contents or {@link #abandon}s them.
 *
 * <p>Memory is mapped in chunks on first use ({@link NativeMemory#mapAnonymous}: aligned to 2 MiB and
 * advised for transparent huge pages, so that random hits do not pay a TLB miss each); the kernel
 * commits it as blocks are first written, and it is returned only by {@link #close()}. State words sit 64 bytes apart so
 * that threads pinning neighbouring blocks do not share a cache line.
 *
 * <p>Thread-safe. A generation wraps after 2^32 reuses of one block; a reader would have to stall
 * between reading a table entry and pinning through that many reuses to be fooled.
 */
final class Slots {
  static final long LOADING = 1L << 30;
  static final long PINS = LOADING - 1;
  private static final int STRIDE = 8; // longs: 64 bytes between state words
  private static final VarHandle STATE = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(MemorySegment[].class);

  final int count;
  final int blockSize;
  private final int blockShift;
  private final int chunkShift; // slots per chunk = 1 << chunkShift
  private final long[] states;
  private final MemorySegment[] chunks;
  private final Arena arena = Arena.ofShared();

  Slots(int count, int blockSize, long chunkBytes) {
    this.count = count;
    this.blockSize = blockSize;
    this.blockShift = Integer.numberOfTrailingZeros(blockSize);
    int perChunk = (int) Math.max(1, Math.min(count, chunkBytes >>> blockShift));
    this.chunkShift = 31 - Integer.numberOfLeadingZeros(perChunk);
    this.states = new long[count * STRIDE];
    this.chunks = new MemorySegment[((count - 1) >>> chunkShift) + 1];
  }

  /**
   * Set in a table entry once the block's contents are in its slot ({@link #loaded}); absent while
   * the block is being loaded. Bit 31 of the low word, above every slot number plus one.
   */
  static final long LOADED_ENTRY = 1L << 31;

  /** A table entry naming {@code slot} at {@code generation}, still loading; never 0. */
  static long entry(int slot, int generation) {
    return ((long) generation << 32) | (slot + 1L);
  }

  /** {@code entry} marked loaded. */
  static long loaded(long entry) {
    return entry | LOADED_ENTRY;
  }

  static boolean isLoaded(long entry) {
    return (entry & LOADED_ENTRY) != 0;
  }

  /** True if the two entries name the same slot at the same generation, loaded or not. */
  static boolean sameBlock(long a, long b) {
    return ((a ^ b) & ~LOADED_ENTRY) == 0;
  }

  static int slotOf(long entry) {
    return (int) (entry & (LOADED_ENTRY - 1)) - 1;
  }

  static int generationOf(long entry) {
    return (int) (entry >>> 32);
  }

  long state(int slot) {
    return (long) STATE.getAcquire(states, slot * STRIDE);
  }

  /** Outcome of {@link #tryPin}. */
  static final int PINNED = 0, STALE = 1, BUSY_LOADING = 2;

  /** Pins {@code slot} if it still holds {@code generation} and is loaded. */
  int tryPin(int slot, int generation) {
    int i = slot * STRIDE;
    while (true) {
      long s = (long) STATE.getVolatile(states, i);
      if ((int) (s >>> 32) != generation) {
        return STALE;
      }
      if ((s & LOADING) != 0) {
        return BUSY_LOADING;
      }
      if ((s & PINS) == PINS) {
        Thread.onSpinWait(); // 2^30 readers: cannot happen, but never overflow into LOADING
        continue;
      }
      if (STATE.compareAndSet(states, i, s, s + 1)) {
        return PINNED;
      }
    }
  }

  void unpin(int slot) {
    STATE.getAndAdd(states, slot * STRIDE, -1L);
  }

  /** Waits while {@code slot} is loading {@code generation}; returns when it is loaded or gone. */
  void awaitLoaded(int slot, int generation) {
    for (int spins = 0; ; spins++) {
      long s = state(slot);
      if ((int) (s >>> 32) != generation || (s & LOADING) == 0) {
        return;
      }
      if (spins < 64) {
        Thread.onSpinWait();
      } else if (spins < 64 + 256) {
        // A read from the disk takes about 100 µs, and parking sleeps at least the timer slack
        // (50 µs): yield through the first few hundred µs so a finished load is seen at once.
        Thread.yield();
      } else {
        LockSupport.parkNanos(20_000L);
      }
    }
  }

  /**
   * Takes {@code slot} for new contents if nobody pins or loads it.
   *
   * @return the new generation (the slot is then LOADING), or {@code -1} if it is busy. The
   *     generation is returned as a long so that every int value is a valid generation.
   */
  long tryClaim(int slot) {
    return tryClaim(slot, (int) (state(slot) >>> 32));
  }

  /** As {@link #tryClaim(int)}, but only if the slot still holds {@code generation}. */
  long tryClaim(int slot, int generation) {
    int i = slot * STRIDE;
    long s = (long) STATE.getVolatile(states, i);
    if ((s & (PINS | LOADING)) != 0 || (int) (s >>> 32) != generation) {
      return -1;
    }
    int next = (int) (s >>> 32) + 1;
    long claimed = ((long) next << 32) | LOADING;
    return STATE.compareAndSet(states, i, s, claimed) ? Integer.toUnsignedLong(next) : -1;
  }

  /** Makes a claimed slot's new contents readable. */
  void publish(int slot, int generation) {
    STATE.setRelease(states, slot * STRIDE, (long) generation << 32);
  }

  /**
   * Gives up a claimed slot whose load failed or was not needed: its generation moves on, so that
   * anyone waiting on it looks again, and it holds nothing.
   */
  void abandon(int slot, int generation) {
    STATE.setRelease(states, slot * STRIDE, (long) (generation + 1) << 32);
  }

  /** The memory of {@code slot}, allocating its chunk on first use. Called by claimers. */
  MemorySegment segment(int slot) {
    int c = slot >>> chunkShift;
    MemorySegment chunk = (MemorySegment) CHUNK.getAcquire(chunks, c);
    if (chunk == null) {
      chunk = allocateChunk(c);
    }
    long offset = (long) (slot & ((1 << chunkShift) - 1)) << blockShift;
    return chunk.asSlice(offset, blockSize);
  }

  /** The chunk holding a slot that has been published (so its chunk exists), and the offset in it. */
  MemorySegment chunkOf(int slot) {
    return (MemorySegment) CHUNK.getAcquire(chunks, slot >>> chunkShift);
  }

  long offsetInChunk(int slot) {
    return (long) (slot & ((1 << chunkShift) - 1)) << blockShift;
  }

  private synchronized MemorySegment allocateChunk(int c) {
    MemorySegment chunk = chunks[c];
    if (chunk == null) {
      int first = c << chunkShift;
      int slotsInChunk = Math.min(1 << chunkShift, count - first);
      chunk = NativeMemory.mapAnonymous((long) slotsInChunk << blockShift, arena);
      CHUNK.setRelease(chunks, c, chunk);
    }
    return chunk;
  }

  /** Bytes of block memory allocated so far. */
  synchronized long allocatedBytes() {
    long bytes = 0;
    for (MemorySegment chunk : chunks) {
      if (chunk != null) {
        bytes += chunk.byteSize();
      }
    }
    return bytes;
  }

  /** Bytes on the Java heap for the state words, per slot. */
  static long stateBytesPerSlot() {
    return STRIDE * Long.BYTES;
  }

  /**
   * Frees the memory. Accesses racing with this fail with {@link IllegalStateException}; a call
   * given a block's segment directly keeps the memory alive until it returns, so this waits. A
   * vectored read ({@code preadv}) reaches blocks through raw addresses and keeps nothing alive:
   * the caller must make sure none is in flight ({@link BlockCache#close()} closes, and waits for,
   * every file first).
   */
  void close() {
    closeWaiting(arena);
  }

  /** Closes {@code arena}, waiting while a downcall given one of its segments holds it. */
  static void closeWaiting(Arena arena) {
    for (int spins = 0; ; spins++) {
      try {
        arena.close();
        return;
      } catch (IllegalStateException e) {
        if (!arena.scope().isAlive()) {
          return;
        }
        // a downcall (a read into a block) holds the memory: wait for it to return
        LockSupport.parkNanos(spins < 100 ? 10_000L : 1_000_000L);
      }
    }
  }
}
