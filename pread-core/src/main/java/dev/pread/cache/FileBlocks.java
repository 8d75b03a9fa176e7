package dev.pread.cache;

import dev.pread.nativeio.NativeFile;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One open file's blocks in a {@link BlockCache}: the file, opened once however many {@link
 * CachedFile}s read it, and a table from block number to cache slot.
 *
 * <p><b>Table.</b> One {@code long} per block of the file: 0 when the block is not cached, else
 * {@link Slots#entry(int, int) slot and generation}, marked {@link Slots#loaded loaded} once the
 * contents are in. Entries go from 0 to a slot only under the policy's lock ({@link
 * ClockPolicy#claimRun}), and back to 0 by a CAS from the exact entry, so a block has at most one
 * slot and a slot serves at most one block. Whoever claims a slot clears the entry of the block it
 * held before anything writes the slot's memory: an entry that is still the same after a read of
 * the slot's memory proves the read saw that block ({@link #holds}).
 *
 * <p><b>Hit:</b> read the entry, pin the slot at that generation, copy, unpin; or, for a {@link
 * BlockReader}, read the memory in place and check the entry again. No lock, no allocation. A pin
 * that fails because the generation moved on means the slot was reused: the entry is stale, and is
 * cleared if nobody has yet.
 *
 * <p><b>Miss:</b> the reader claims slots for the run of missing blocks its read needs (at most
 * {@link NativeFile#MAX_VECTOR}), installs them as loading, reads them with one vectored {@code
 * preadv}, and publishes them. Another reader missing the same block finds it loading and waits for
 * that read instead of making its own. Prefetch claims the same way on the caller's thread and
 * reads on the {@link Prefetcher}'s.
 *
 * <p>Thread-safe.
 */
final class FileBlocks {
  private static final VarHandle TABLE = MethodHandles.arrayElementVarHandle(long[].class);
  private static final String DEMAND = "demand", PREFETCH = "prefetch", AROUND = "read-around", REFUSED = "refused";

  final BlockCache cache;
  final NativeFile file;
  final long size;
  final int blockCount;
  final Object key;
  /** Numbers files for {@link #sketchKey}. */
  private static final java.util.concurrent.atomic.AtomicLong IDS = new java.util.concurrent.atomic.AtomicLong();

  private final long id = IDS.incrementAndGet();
  private final Slots slots;
  private final ScratchBuffers scratch;
  private final ClockPolicy policy;
  private final CacheCounters counters;
  private final int blockShift;
  private final int blockSize;
  private final long[] table;

  /** Handles open on this file; guarded by the cache's registry. */
  int references = 1;

  FileBlocks(BlockCache cache, NativeFile file, Object key) {
    this.cache = cache;
    this.file = file;
    this.key = key;
    this.size = file.size();
    this.slots = cache.slots;
    this.scratch = cache.scratch;
    this.policy = cache.policy;
    this.counters = cache.counters;
    this.blockSize = slots.blockSize;
    this.blockShift = Integer.numberOfTrailingZeros(blockSize);
    long blocks = (size + blockSize - 1) >>> blockShift;
    if (blocks > Integer.MAX_VALUE - 1) {
      throw new IllegalArgumentException(file.path() + ": too large for block size " + blockSize);
    }
    this.blockCount = (int) blocks;
    this.table = new long[blockCount];
  }

  /** The key of {@code block} in the policy's frequency sketch. */
  long sketchKey(int block) {
    return FrequencySketch.key(id, block);
  }

  long entry(int block) {
    return (long) TABLE.getAcquire(table, block);
  }

  boolean install(int block, long entry) {
    return TABLE.compareAndSet(table, block, 0L, entry);
  }

  /** Clears the entry of {@code block} if it names {@code expected}'s slot and generation. */
  void clear(int block, long expected) {
    long current = entry(block);
    if (current != 0 && Slots.sameBlock(current, expected)) {
      TABLE.compareAndSet(table, block, current, 0L);
    }
  }

  /**
   * True if {@code block}'s entry is still {@code entry}: then its slot has not been claimed for
   * other contents since the entry was read, since a claim clears the entry (under the policy's
   * lock) before the slot's memory is written. The check that makes an unpinned read of the slot's
   * memory valid ({@link BlockReader}): call it after reading; bytes read before a false answer
   * may be the slot's next contents and must be discarded.
   */
  boolean holds(int block, long entry) {
    // Orders the caller's reads of the block before this read of the entry (as StampedLock's
    // validate does); opaque so that the JIT reads the entry again on every call.
    VarHandle.acquireFence();
    return (long) TABLE.getOpaque(table, block) == entry;
  }

  /**
   * Reads at least {@code min}, at most {@code max} bytes at {@code position}, stopping early only
   * at end of file.
   *
   * @param insert false to read misses around the cache and leave use counts alone
   */
  int read(long position, byte[] dst, int offset, int min, int max, boolean insert) throws IOException {
    if (position > size - min) {
      throw new EOFException(
          file.path()
              + ": read past EOF at offset "
              + Math.max(position, size)
              + " ("
              + (position + min - size)
              + " more bytes wanted; size at open was "
              + size
              + ")");
    }
    int n = (int) Math.min(max, size - position);
    int lastBlock = n == 0 ? 0 : (int) ((position + n - 1) >>> blockShift);
    // Blocks up to here were read from storage by this call (counted as misses): not hits.
    int loadedThrough = -1;
    int done = 0;
    while (done < n) {
      long p = position + done;
      int block = (int) (p >>> blockShift);
      int inBlock = (int) (p & (blockSize - 1));
      int len = Math.min(n - done, blockSize - inBlock);
      if (insert && block > loadedThrough && entry(block) == 0) {
        int loaded = load(block, lastBlock);
        if (loaded > 0) {
          loadedThrough = block + loaded - 1;
        } else if (loaded == REJECTED) {
          done += readAround(block, inBlock, dst, offset + done, len, block, true);
          continue;
        }
      }
      done += copyBlock(block, inBlock, dst, offset + done, len, lastBlock, insert, n - done, block <= loadedThrough);
    }
    return n;
  }

  /**
   * Copies bytes of {@code block} from {@code inBlock} on (or, reading around the cache, of the run
   * of missing blocks that starts there).
   *
   * @param loaded true if this read loaded the block (it is then no hit)
   * @return bytes copied: {@code len}, or up to {@code remaining} when reading around
   */
  private int copyBlock(
      int block, int inBlock, byte[] dst, int offset, int len, int lastBlock, boolean insert, int remaining,
      boolean loaded)
      throws IOException {
    boolean loadedHere = loaded;
    while (true) {
      long e = entry(block);
      if (e == 0) {
        if (!insert) {
          return readAround(block, inBlock, dst, offset, remaining, lastBlock, false);
        }
        int count = load(block, lastBlock);
        if (count < 0) {
          // refused by admission, or every slot busy
          return readAround(block, inBlock, dst, offset, len, block, count == REJECTED);
        }
        loadedHere |= count > 0;
        continue;
      }
      int slot = Slots.slotOf(e);
      int generation = Slots.generationOf(e);
      int outcome = slots.tryPin(slot, generation);
      if (outcome == Slots.PINNED) {
        try {
          MemorySegment.copy(
              slots.chunkOf(slot), ValueLayout.JAVA_BYTE, slots.offsetInChunk(slot) + inBlock, dst, offset, len);
        } finally {
          slots.unpin(slot);
        }
        if (!loadedHere) {
          counters.hits.increment();
          if (insert) {
            policy.touch(slot, this, block);
          }
        }
        return len;
      } else if (outcome == Slots.BUSY_LOADING) {
        slots.awaitLoaded(slot, generation);
      } else {
        clear(block, e); // the slot was reused: this entry is stale
      }
    }
  }

  /** {@link #acquire} result: no slot could be had, every one pinned or loading. */
  static final long NO_SLOT = 0;

  /** {@link #acquire} result: admission refused the block. Never an entry (slot + 1 is never 0). */
  static final long REFUSED_ENTRY = Long.MIN_VALUE;

  /**
   * Makes {@code block} cached and loaded, loading it if it is missing, for a reader that reads its
   * memory in place ({@link BlockReader}). Counts a hit (and a use) if it was cached already.
   *
   * @return the block's {@link Slots#entry entry}, whose generation was loaded when this looked;
   *     or {@link #NO_SLOT} or {@link #REFUSED_ENTRY} when the block cannot be cached now: read it
   *     with {@link #readUncached}
   */
  long acquire(int block) throws IOException {
    boolean loadedHere = false;
    while (true) {
      long e = entry(block);
      if (e == 0) {
        int count = load(block, block);
        if (count < 0) {
          return count == REJECTED ? REFUSED_ENTRY : NO_SLOT;
        }
        loadedHere |= count > 0;
        continue;
      }
      int slot = Slots.slotOf(e);
      if (Slots.isLoaded(e)) {
        if (!loadedHere) {
          counters.hits.increment();
          policy.touch(slot, this, block);
        }
        return e;
      }
      slots.awaitLoaded(slot, Slots.generationOf(e));
      if (entry(block) == e) {
        // Should not last: a loader marks its entry loaded, or clears it on failure, before its
        // state changes. Look again rather than rely on that.
        Thread.onSpinWait();
      }
    }
  }

  /**
   * Reads {@code len} bytes at {@code position}, within one block that {@link #acquire} could not
   * cache ({@code why} is what it returned), around the cache.
   */
  void readUncached(long position, byte[] dst, int offset, int len, long why) throws IOException {
    int block = (int) (position >>> blockShift);
    int inBlock = (int) (position & (blockSize - 1));
    readAround(block, inBlock, dst, offset, len, block, why == REFUSED_ENTRY);
  }

  /** {@link #load} result: admission refused the block; it is a miss, read around the cache. */
  private static final int REJECTED = -2;

  /**
   * Loads the missing run of blocks from {@code first} to at most {@code last}.
   *
   * @return blocks loaded, 0 if {@code first} turned out to be present, -1 if no slot was free,
   *     {@link #REJECTED} if admission refused {@code first}
   */
  private int load(int first, int last) throws IOException {
    int max = Math.min(last - first + 1, NativeFile.MAX_VECTOR);
    int[] slotsOut = new int[max];
    int[] generations = new int[max];
    int n = policy.claimRun(this, first, max, slotsOut, generations, true);
    if (n == ClockPolicy.REJECTED) {
      return REJECTED;
    }
    if (n == 0) {
      return entry(first) != 0 ? 0 : -1;
    }
    finishLoad(first, n, slotsOut, generations, DEMAND);
    return n;
  }

  /**
   * Reads claimed blocks {@code first .. first + n - 1} into their slots and publishes them, or, on
   * failure, clears them and frees their slots and rethrows. Whatever is thrown, from its first
   * statement on (an {@link OutOfMemoryError} allocating the event included), the blocks are either
   * published or given up: nobody is left waiting on a load that is not being made. A demand load
   * ({@code kind} {@link #DEMAND}) counts its blocks as misses.
   */
  void finishLoad(int first, int n, int[] slotsIn, int[] generations, String kind) throws IOException {
    boolean ok = false;
    long got = 0;
    long position = (long) first << blockShift;
    BlockLoadEvent event = null;
    try {
      if (kind == DEMAND) {
        counters.misses.add(n);
      }
      event = new BlockLoadEvent();
      event.begin();
      MemorySegment[] segments = new MemorySegment[n];
      for (int i = 0; i < n; i++) {
        segments[i] = slots.segment(slotsIn[i]);
      }
      got = file.readInto(position, segments, n);
      counters.bytesRead.add(got);
      long expected = Math.min(size, (long) (first + n) << blockShift) - position;
      if (got < expected) {
        throw shrunk(position + got);
      }
      for (int i = 0; i < n; i++) {
        // The entry first: a slot can be evicted (its entry cleared) only once its state is
        // published, so the entry is still the loading one here, and never marked loaded after
        // it was cleared.
        long e = Slots.entry(slotsIn[i], generations[i]);
        TABLE.compareAndSet(table, first + i, e, Slots.loaded(e));
        slots.publish(slotsIn[i], generations[i]);
      }
      ok = true;
    } catch (IllegalStateException e) {
      throw cache.closedException(e, file.path());
    } finally {
      if (!ok) {
        abandon(first, n, slotsIn, generations);
        counters.loadFailures.increment();
      }
      if (event != null && event.shouldCommit()) {
        event.path = file.path().toString();
        event.offset = position;
        event.bytes = got;
        event.blocks = n;
        event.kind = kind;
        event.failed = !ok;
        event.commit();
      }
    }
  }

  /** The error for a read that found the file ending at {@code offset}, before its size at open. */
  private EOFException shrunk(long offset) {
    return new EOFException(
        file.path() + ": read past EOF at offset " + offset + " (the file is shorter than its size at open, " + size + ")");
  }

  /** Gives up claimed blocks: clears their entries (waiters look again) and frees their slots. */
  private void abandon(int first, int n, int[] slotsIn, int[] generations) {
    for (int i = 0; i < n; i++) {
      clear(first + i, Slots.entry(slotsIn[i], generations[i]));
      policy.release(slotsIn[i], generations[i]);
    }
  }

  /**
   * Reads without inserting: the missing blocks from {@code block} to at most {@code lastBlock}
   * (stopping at the first cached one) into a temporary aligned buffer, and copies up to {@code
   * len} bytes from {@code inBlock} on.
   *
   * @param rejected true when admission refused the block: counted as a miss and a rejection,
   *     else as read-around
   * @return bytes copied
   */
  private int readAround(int block, int inBlock, byte[] dst, int offset, int len, int lastBlock, boolean rejected)
      throws IOException {
    int end = block;
    while (end < lastBlock
        && end - block + 1 < NativeFile.MAX_VECTOR
        && ((long) (end - block + 1) << blockShift) < inBlock + (long) len
        && entry(end + 1) == 0) {
      end++;
    }
    int blocks = end - block + 1;
    long position = (long) block << blockShift;
    int copy = (int) Math.min(len, ((long) blocks << blockShift) - inBlock);
    BlockLoadEvent event = new BlockLoadEvent();
    event.begin();
    long got = 0;
    try {
      long bytes = (long) blocks << blockShift;
      int lent = bytes <= ScratchBuffers.BUFFER_SIZE ? scratch.borrow() : -1;
      if (lent >= 0) {
        // the usual case (a block or a few): a huge-page buffer of the cache's, no allocation
        try {
          MemorySegment buffer = scratch.buffer(lent).asSlice(0, bytes);
          got = file.readInto(position, new MemorySegment[] {buffer}, 1);
          copyOut(buffer, got, inBlock, dst, offset, copy);
        } finally {
          scratch.release(lent);
        }
      } else {
        try (Arena arena = Arena.ofConfined()) {
          MemorySegment buffer = arena.allocate(bytes, 4096);
          got = file.readInto(position, new MemorySegment[] {buffer}, 1);
          copyOut(buffer, got, inBlock, dst, offset, copy);
        }
      }
      counters.bytesRead.add(got);
      if (rejected) {
        counters.misses.add(blocks);
        counters.rejected.add(blocks);
      } else {
        counters.readAround.add(blocks);
      }
      if (got < inBlock + (long) copy) {
        throw shrunk(position + got);
      }
      return copy;
    } finally {
      if (event.shouldCommit()) {
        event.path = file.path().toString();
        event.offset = position;
        event.bytes = got;
        event.blocks = blocks;
        event.kind = rejected ? REFUSED : AROUND;
        event.commit();
      }
    }
  }

  /** Copies up to {@code copy} bytes from {@code inBlock} on, of the {@code got} that were read. */
  private static void copyOut(MemorySegment buffer, long got, int inBlock, byte[] dst, int offset, int copy) {
    int n = (int) Math.max(0, Math.min(copy, got - inBlock));
    MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, inBlock, dst, offset, n);
  }

  /** Starts loading the missing blocks of {@code [position, position + length)}; never waits. */
  void prefetch(long position, long length) {
    if (length <= 0) {
      return;
    }
    int first = (int) (position >>> blockShift);
    int last = (int) ((position + length - 1) >>> blockShift);
    Prefetcher prefetcher = cache.prefetcher;
    int block = first;
    while (block <= last) {
      if (entry(block) != 0) {
        counters.prefetchDeduplicated.increment();
        block++;
        continue;
      }
      int want = Math.min(last - block + 1, NativeFile.MAX_VECTOR);
      if (!prefetcher.reserve(want)) {
        want = 1; // near the cap: try a single block
        if (!prefetcher.reserve(1)) {
          counters.prefetchDropped.add(last - block + 1);
          return;
        }
      }
      int[] slotsOut = null;
      int[] generations = null;
      int n = 0;
      PrefetchTask task = null;
      boolean submitted = false;
      boolean dropped = false;
      try {
        slotsOut = new int[want];
        generations = new int[want];
        n = policy.claimRun(this, block, want, slotsOut, generations, false);
        if (n > 0) {
          task = new PrefetchTask(block, n, slotsOut, generations);
          submitted = prefetcher.submit(task);
        }
      } finally {
        // Whatever failed between the claim and the hand-off, the claimed blocks and the room
        // under the cap go back, unless the task got to run after all (see Prefetcher#submit).
        if (!submitted && (task == null || task.cancel())) {
          dropped = true;
          prefetcher.release(want);
          if (n > 0) {
            abandon(block, n, slotsOut, generations);
          }
        } else {
          prefetcher.release(want - n);
        }
      }
      if (n == 0) {
        if (entry(block) == 0) {
          counters.prefetchDropped.increment(); // every slot busy
        } else {
          counters.prefetchDeduplicated.increment();
        }
        block++;
        continue;
      }
      if (dropped) {
        counters.prefetchDropped.add(n);
      } else {
        counters.prefetchSubmitted.add(n);
      }
      block += n;
    }
  }

  /**
   * A prefetch load of claimed blocks, run by the pool. Exactly one of {@link #run} and {@link
   * #cancel} gets to act, so a task that reached the pool's queue although its submission failed
   * (and whose blocks the submitter gave up) does nothing if it runs later.
   */
  private final class PrefetchTask extends java.util.concurrent.atomic.AtomicBoolean implements Runnable {
    private final int first;
    private final int n;
    private final int[] slotsIn;
    private final int[] generations;

    PrefetchTask(int first, int n, int[] slotsIn, int[] generations) {
      this.first = first;
      this.n = n;
      this.slotsIn = slotsIn;
      this.generations = generations;
    }

    /** True if this task will never run: its blocks are the caller's to give up. */
    boolean cancel() {
      return compareAndSet(false, true);
    }

    @Override
    public void run() {
      if (!compareAndSet(false, true)) {
        return; // cancelled: the submitter gave the blocks up
      }
      try {
        if (cache.isClosed()) {
          abandon(first, n, slotsIn, generations); // closing: do not start reads
          counters.prefetchDropped.add(n);
        } else {
          finishLoad(first, n, slotsIn, generations, PREFETCH);
        }
      } catch (IOException | RuntimeException e) {
        // a hint: a reader that needs these blocks will load them and see the error itself
      } finally {
        cache.prefetcher.release(n);
      }
    }
  }
}
