package dev.pread.cache;

import dev.pread.nativeio.NativeMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Buffers for reads that bypass the cache's blocks (misses that admission refused, merges and
 * read-once inputs): {@value #COUNT} buffers of {@value #BUFFER_SIZE} bytes in one 2 MiB mapping
 * advised for huge pages, made on first use and freed by {@link #close()}.
 *
 * <p>Why not ordinary native memory: an {@code O_DIRECT} read maps each page of its destination,
 * so a read into 4 KiB pages costs measurably more than one into a huge page, and reads around the
 * cache into malloc'ed buffers would cost more than misses read into the cache's own (huge-page)
 * blocks. The cost is 2 MiB of memory held from the first such read until {@link #close()}. The
 * Zipf section of {@code ./pread bench --sections cache}, where refused misses read around the
 * cache, measures it (docs/benchmarks.md).
 *
 * <p>Thread-safe. A buffer is lent to one thread at a time; when all are lent, {@link #borrow}
 * returns -1 and the caller allocates its own.
 */
final class ScratchBuffers {
  static final int BUFFER_SIZE = 64 * 1024;
  static final int COUNT = 32; // 2 MiB: one huge page
  private static final int STRIDE = 16; // ints: 64 bytes between busy flags
  private static final VarHandle MEMORY;

  static {
    try {
      MEMORY = MethodHandles.lookup().findVarHandle(ScratchBuffers.class, "memory", MemorySegment.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Arena arena = Arena.ofShared();
  private final AtomicIntegerArray busy = new AtomicIntegerArray(COUNT * STRIDE);
  @SuppressWarnings("unused") // through MEMORY
  private volatile MemorySegment memory;

  /** A free buffer's index, or -1 if every buffer is lent. Pair with {@link #release}. */
  int borrow() {
    int start = (int) Thread.currentThread().threadId();
    for (int i = 0; i < COUNT; i++) {
      int index = (start + i) & (COUNT - 1);
      if (busy.get(index * STRIDE) == 0 && busy.compareAndSet(index * STRIDE, 0, 1)) {
        return index;
      }
    }
    return -1;
  }

  /** The memory of buffer {@code index}, lent by {@link #borrow}. */
  MemorySegment buffer(int index) {
    MemorySegment m = (MemorySegment) MEMORY.getAcquire(this);
    if (m == null) {
      m = map();
    }
    return m.asSlice((long) index * BUFFER_SIZE, BUFFER_SIZE);
  }

  private synchronized MemorySegment map() {
    MemorySegment m = (MemorySegment) MEMORY.getAcquire(this);
    if (m == null) {
      m = NativeMemory.mapAnonymous((long) COUNT * BUFFER_SIZE, arena);
      MEMORY.setRelease(this, m);
    }
    return m;
  }

  void release(int index) {
    busy.set(index * STRIDE, 0);
  }

  /** Bytes mapped so far: 0 or 2 MiB. */
  long mappedBytes() {
    MemorySegment m = (MemorySegment) MEMORY.getAcquire(this);
    return m == null ? 0 : m.byteSize();
  }

  /**
   * Frees the memory. As for {@link Slots#close()}, the caller makes sure no read into it is in
   * flight; a copy racing with this fails with {@link IllegalStateException}.
   */
  void close() {
    synchronized (this) {
      Slots.closeWaiting(arena);
    }
  }
}
