package dev.pread.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Native bounce buffers for reads into Java heap arrays.
 *
 * <p>A downcall cannot write into the Java heap while the thread may block on the disk (that would
 * stall every garbage collection), so {@code pread} fills native memory that is then copied into
 * the heap array. Buffers are not owned by inputs: Lucene makes clones freely and never closes
 * them, so a buffer per clone could only be freed by the garbage collector. Instead a fixed pool of
 * {@link #slotCount()} buffers of {@link #BUFFER_SIZE} bytes is shared by all files. A thread
 * starts probing at the slot of its {@link ThreadIndex}, so concurrent readers rarely meet; when every slot is
 * busy it uses a temporary buffer freed as soon as its read ends.
 *
 * <p>Every allocation is counted ({@link #liveBuffers()}, {@link #liveBytes()}): the pool's
 * buffers stay for the life of the JVM (at most {@code slotCount() * BUFFER_SIZE} bytes), and
 * temporaries are freed deterministically. No native memory is tied to an input.
 *
 * <p>Thread-safe.
 */
public final class NativeBuffers {
  /** Bytes a pooled buffer holds: the largest single {@code pread} of a heap read. */
  public static final int BUFFER_SIZE = 64 * 1024;

  /** Ints between two slots' busy flags: 128 bytes, as in {@link ReadGuard}. */
  private static final int STRIDE = 32;
  private static final int SLOTS = slots();
  private static final int MASK = SLOTS - 1;

  /** 1 while slot i's buffer is lent out; index (i + 1) * STRIDE. */
  private static final AtomicIntegerArray BUSY = new AtomicIntegerArray((SLOTS + 1) * STRIDE);

  /**
   * Slot i's buffer, created by the first thread that claims the slot. Written and read only by
   * the thread that holds the slot; the CAS that claims it and the write that frees it order the
   * accesses.
   */
  private static final Scratch[] POOL = new Scratch[SLOTS];

  private static final AtomicLong LIVE_BUFFERS = new AtomicLong();
  private static final AtomicLong LIVE_BYTES = new AtomicLong();

  private NativeBuffers() {}

  private static int slots() {
    int want = Math.max(8, 4 * Runtime.getRuntime().availableProcessors());
    return Math.min(256, Integer.highestOneBit(want - 1) << 1);
  }

  /** A native buffer and the errno capture segment that goes with it. */
  static final class Scratch {
    final MemorySegment data;
    final MemorySegment capture;
    /** {@link NativeIO#AUX_SIZE} bytes for small call structures (a cachestat range and result). */
    final MemorySegment aux;
    /** Pool slot, or -1 for a temporary. */
    final int slot;
    /** Non-null for a temporary. */
    final Arena arena;

    private Scratch(MemorySegment data, MemorySegment capture, MemorySegment aux, int slot, Arena arena) {
      this.data = data;
      this.capture = capture;
      this.aux = aux;
      this.slot = slot;
      this.arena = arena;
    }

    int capacity() {
      return (int) data.byteSize();
    }
  }

  /**
   * Lends a buffer to the calling thread until {@link #release(Scratch)}.
   *
   * @param wanted bytes the caller will read; sizes a temporary when the pool is busy
   */
  static Scratch borrow(int wanted) {
    int start = ThreadIndex.current();
    for (int i = 0; i < SLOTS; i++) {
      int slot = (start + i) & MASK;
      int index = (slot + 1) * STRIDE;
      if (BUSY.get(index) == 0 && BUSY.compareAndSet(index, 0, 1)) {
        Scratch s = POOL[slot];
        if (s == null) {
          s = allocate(BUFFER_SIZE, slot, Arena.global());
          POOL[slot] = s;
        }
        return s;
      }
    }
    return allocate(Math.min(Math.max(wanted, 1), BUFFER_SIZE), -1, Arena.ofConfined());
  }

  /** Returns a buffer lent by {@link #borrow(int)}; must be called by the borrowing thread. */
  static void release(Scratch s) {
    if (s.slot >= 0) {
      BUSY.set((s.slot + 1) * STRIDE, 0);
    } else {
      LIVE_BUFFERS.decrementAndGet();
      LIVE_BYTES.addAndGet(-s.data.byteSize());
      s.arena.close();
    }
  }

  private static Scratch allocate(int size, int slot, Arena arena) {
    MemorySegment data = arena.allocate(size, 4096);
    MemorySegment capture = NativeIO.allocateCapture(arena);
    MemorySegment aux = arena.allocate(NativeIO.AUX_SIZE, 8);
    LIVE_BUFFERS.incrementAndGet();
    LIVE_BYTES.addAndGet(size);
    return new Scratch(data, capture, aux, slot, arena);
  }

  /** Native buffers allocated and not yet freed: the pool's plus temporaries in use. */
  public static long liveBuffers() {
    return LIVE_BUFFERS.get();
  }

  /** Bytes of the buffers counted by {@link #liveBuffers()}. */
  public static long liveBytes() {
    return LIVE_BYTES.get();
  }

  /** Size of the pool: its native memory is at most {@code slotCount() * BUFFER_SIZE} bytes. */
  public static int slotCount() {
    return SLOTS;
  }
}
