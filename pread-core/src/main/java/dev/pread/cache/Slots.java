package dev.pread.cache;

import dev.pread.nativeio.NativeMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The cache's memory: {@code count} aligned blocks ("slots") of {@code blockSize} bytes off the
 * Java heap. Who may write a slot's memory, and when a reader may trust what it read there, is
 * {@link BlockStates}'s protocol.
 *
 * <p>Memory is mapped in chunks on first use ({@link NativeMemory#mapAnonymous}: aligned to 2 MiB and
 * advised for transparent huge pages, so that random hits do not pay a TLB miss each); the kernel
 * commits it as blocks are first written. {@link #release} gives the memory of whole chunks back while
 * the cache is open (the mapping stays; the chunk is committed again when a block there is next
 * written), and {@link #close()} unmaps everything.
 *
 * <p>Thread-safe.
 */
final class Slots {
  private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(MemorySegment[].class);

  final int count;
  final int blockSize;
  private final int blockShift;
  private final int chunkShift; // slots per chunk = 1 << chunkShift
  private final MemorySegment[] chunks;
  /**
   * Chunks whose memory {@link #release} gave back and no claimer wrote since. Written under this
   * object's lock; read by claimers without it, after the policy's lock ordered them after the
   * release.
   */
  private final boolean[] discarded;
  private final Arena arena = Arena.ofShared();

  Slots(int count, int blockSize, long chunkBytes) {
    this.count = count;
    this.blockSize = blockSize;
    this.blockShift = Integer.numberOfTrailingZeros(blockSize);
    int perChunk = (int) Math.max(1, Math.min(count, chunkBytes >>> blockShift));
    this.chunkShift = 31 - Integer.numberOfLeadingZeros(perChunk);
    this.chunks = new MemorySegment[((count - 1) >>> chunkShift) + 1];
    this.discarded = new boolean[chunks.length];
  }

  /** The memory of {@code slot}, allocating its chunk on first use. Called by claimers. */
  MemorySegment segment(int slot) {
    int c = slot >>> chunkShift;
    MemorySegment chunk = (MemorySegment) CHUNK.getAcquire(chunks, c);
    if (chunk == null || discarded[c]) {
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
    discarded[c] = false; // the claimer writes it: committed again
    return chunk;
  }

  /**
   * Gives back the memory of every chunk that lies wholly at or above {@code fromSlot}. The caller
   * guarantees that no slot there holds a block or is claimed, and that none is claimed before a
   * claimer's {@link #slot} call is ordered after this one (the policy's lock does both).
   */
  synchronized void release(int fromSlot) {
    if (!arena.scope().isAlive()) {
      return; // closed: the memory is unmapped already
    }
    int first = (fromSlot + (1 << chunkShift) - 1) >>> chunkShift;
    for (int c = first; c < chunks.length; c++) {
      if (chunks[c] != null && !discarded[c]) {
        NativeMemory.discard(chunks[c]);
        discarded[c] = true;
      }
    }
  }

  /** Bytes of block memory allocated so far. */
  synchronized long allocatedBytes() {
    long bytes = 0;
    for (int i = 0; i < chunks.length; i++) {
      MemorySegment chunk = chunks[i];
      if (chunk != null && !discarded[i]) {
        bytes += chunk.byteSize();
      }
    }
    return bytes;
  }

  /**
   * Frees the memory. Accesses racing with this fail with {@link IllegalStateException}; a call
   * given a block's segment directly keeps the memory alive until it returns, so this waits. A
   * vectored read ({@code preadv}) reaches blocks through raw addresses and keeps nothing alive:
   * the caller must make sure none is in flight ({@link BlockCache#close()} closes, and waits for,
   * every file first).
   */
  synchronized void close() {
    closeWaiting(arena); // under the lock: release() never advises memory that is unmapped
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
