package dev.pread.cache;

import dev.pread.nativeio.IoPriority;
import dev.pread.nativeio.NativeFile;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One open file's blocks in a {@link BlockCache}: the file, opened once however many {@link
 * CachedFile}s read it, and a table from block number to cache slot.
 *
 * <p><b>Table.</b> One {@code long} per block of the file: 0 when the block is not cached, else an
 * entry naming its slot and generation, marked loaded once the contents are in. Only {@link
 * BlockStates} writes it; its implementation notes give the protocol.
 *
 * <p><b>Hit:</b> read the entry, pin the slot at that generation, copy, unpin; or, for a {@link
 * BlockReader}, read the memory in place and check the entry again ({@link #holds}). No lock, no
 * allocation; the hit is recorded for the policy ({@link ClockPolicy#touch}). A pin that fails
 * because the generation moved on means the slot was reused: the entry is stale.
 *
 * <p><b>Miss:</b> the reader claims slots for the run of missing blocks its read needs (at most
 * {@link NativeFile#MAX_VECTOR}) from the policy, which installs them as loading, reads them with
 * one vectored {@code preadv}, and publishes them. Another reader missing the same block finds it
 * loading and waits for that read instead of making its own. Prefetch claims the same way on the
 * caller's thread and reads on the {@link Prefetcher}'s.
 *
 * <p>Thread-safe.
 */
final class FileBlocks {
  private static final String DEMAND = "demand", PREFETCH = "prefetch", WARM = "warm", AROUND = "read-around", REFUSED = "refused";

  final BlockCache cache;
  final NativeFile file;
  final long size;
  final int blockCount;
  final Object key;
  /** Numbers files for {@link #sketchKey}. */
  private static final java.util.concurrent.atomic.AtomicLong IDS = new java.util.concurrent.atomic.AtomicLong();

  private final long id = IDS.incrementAndGet();
  private final Slots slots;
  private final BlockStates states;
  private final ScratchBuffers scratch;
  private final ClockPolicy policy;
  private final CacheCounters counters;
  private final int blockShift;
  private final int blockSize;
  /**
   * What a read around the cache reads in units of: the file's direct-I/O alignment (at least 4096
   * bytes), or the block size where that is not a smaller power of two.
   */
  private final int aroundUnit;
  /** The table; written only by {@link BlockStates}. */
  final long[] table;

  /** Handles open on this file; guarded by the cache's registry. */
  int references = 1;

  /**
   * The largest read around the cache that keeps its thread's I/O class where {@link
   * BlockCache.Builder#idleReadsAround} sends reads around to the idle class.
   */
  static final int MAX_SMALL_READ_AROUND = 16 * 1024;

  /** The page size cachestat counts in, for the pages a range spans. */
  private static final int PAGE = 4096;
  private static final System.Logger LOG = System.getLogger(BlockCache.class.getName());
  private static final java.util.concurrent.atomic.AtomicBoolean BUFFERED_FAILURE_LOGGED =
      new java.util.concurrent.atomic.AtomicBoolean();
  /** A buffered descriptor of {@link #file}, opened at the first miss the page cache holds; guarded by this. */
  private NativeFile buffered;
  /** True once the files are closed: no buffered descriptor is opened after; guarded by this. */
  private boolean filesClosed;
  /**
   * The {@link System#nanoTime} of the last failed open of the buffered descriptor; guarded by this.
   * No other open is tried for {@link BlockCache#bufferedRetryNanos} after it: an open fails for a
   * while (the process out of descriptors), and costs a system call that each miss must not pay
   * meanwhile.
   */
  private long bufferedFailedAt;
  private boolean bufferedFailed;

  FileBlocks(BlockCache cache, NativeFile file, Object key) {
    this.cache = cache;
    this.file = file;
    this.key = key;
    this.size = file.size();
    this.slots = cache.slots;
    this.states = cache.states;
    this.scratch = cache.scratch;
    this.policy = cache.policy;
    this.counters = cache.counters;
    this.blockSize = slots.blockSize;
    this.blockShift = Integer.numberOfTrailingZeros(blockSize);
    int unit = Math.max(4096, file.directOffsetAlignment());
    this.aroundUnit = Integer.bitCount(unit) == 1 && unit < blockSize ? unit : blockSize;
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

  /** The entry of {@code block}, read with acquire. */
  long entry(int block) {
    return BlockStates.entry(table, block);
  }

  /**
   * True if the calling thread reads this file's misses around the cache: the cache reads around
   * in it ({@link BlockCache.Builder#readAroundIn}), unless the file is {@code own}.
   */
  private boolean readsAroundHere(boolean own) {
    return !own && cache.readsAroundHere();
  }

  /** True if {@code block}'s entry is still {@code entry}; see {@link BlockStates#holds}. */
  boolean holds(int block, long entry) {
    return BlockStates.holds(table, block, entry);
  }

  /**
   * Reads at least {@code min}, at most {@code max} bytes at {@code position}, stopping early only
   * at end of file.
   *
   * @param insert false to read misses around the cache and leave use counts alone
   * @param own true if the file was opened by a thread the cache reads around in, for its own
   *     work ({@link BlockCache#openForCaller}): its misses insert in every thread
   */
  int read(long position, byte[] dst, int offset, int min, int max, boolean insert, boolean own) throws IOException {
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
        if (readsAroundHere(own)) {
          done += readAround(block, inBlock, dst, offset + done, n - done, lastBlock, false, false);
          continue;
        }
        Run run = load(block, lastBlock);
        if (run.count > 0) {
          loadedThrough = block + run.count - 1;
        } else if (run.outcome == Outcome.REJECTED) {
          done += readAround(block, inBlock, dst, offset + done, len, block, true, true);
          continue;
        }
      }
      done += copyBlock(block, inBlock, dst, offset + done, len, lastBlock, insert, own, n - done, block <= loadedThrough);
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
      int block, int inBlock, byte[] dst, int offset, int len, int lastBlock, boolean insert, boolean own,
      int remaining, boolean loaded)
      throws IOException {
    boolean loadedHere = loaded;
    while (true) {
      long e = entry(block);
      if (e == 0) {
        if (!insert || readsAroundHere(own)) {
          return readAround(block, inBlock, dst, offset, remaining, lastBlock, false, false);
        }
        Run run = load(block, lastBlock);
        if (run.count == 0 && run.outcome != Outcome.PRESENT) {
          // refused by admission, or every slot busy
          return readAround(block, inBlock, dst, offset, len, block, run.outcome == Outcome.REJECTED, true);
        }
        loadedHere |= run.count > 0;
        continue;
      }
      int slot = BlockStates.slotOf(e);
      int generation = BlockStates.generationOf(e);
      int outcome = states.tryPin(slot, generation);
      if (outcome == BlockStates.PINNED) {
        try {
          MemorySegment.copy(
              slots.chunkOf(slot), ValueLayout.JAVA_BYTE, slots.offsetInChunk(slot) + inBlock, dst, offset, len);
        } finally {
          states.unpin(slot);
        }
        if (!loadedHere) {
          counters.hits.increment();
          if (insert) {
            policy.touch(e);
          }
        }
        return len;
      } else if (outcome == BlockStates.BUSY_LOADING) {
        states.awaitLoaded(slot, generation);
      } else {
        states.clearStale(this, block, e); // the slot was reused: this entry is stale
      }
    }
  }

  /**
   * Makes {@code block} cached and loaded, loading it if it is missing, for a reader that reads its
   * memory in place ({@link BlockReader}). Counts a hit (and a use) if it was cached already.
   *
   * @return the block's table entry, whose generation was loaded when this looked (an {@link
   *     Outcome#isEntry entry}); or {@link Outcome#BUSY} or {@link Outcome#REJECTED} when the
   *     block cannot be cached now: read it with {@link #readUncached}; or {@link Outcome#AROUND}
   *     when this thread reads around the cache: read it with {@link CachedFile#read}
   */
  long acquire(int block) throws IOException {
    return acquire(block, block, false);
  }

  /**
   * As {@link #acquire(int)}; if {@code block} is missing, the blocks after it up to {@code
   * lastIfMissing} that are missing too (and admitted) come in the same vectored read. {@code own}
   * as for {@link #read}.
   */
  long acquire(int block, int lastIfMissing, boolean own) throws IOException {
    boolean loadedHere = false;
    while (true) {
      long e = entry(block);
      if (e == 0) {
        if (readsAroundHere(own)) {
          return Outcome.AROUND;
        }
        Run run = load(block, lastIfMissing);
        if (run.count == 0 && run.outcome != Outcome.PRESENT) {
          return run.outcome;
        }
        loadedHere |= run.count > 0;
        continue;
      }
      if (BlockStates.isLoaded(e)) {
        if (!loadedHere) {
          counters.hits.increment();
          policy.touch(e);
        }
        return e;
      }
      states.awaitLoaded(BlockStates.slotOf(e), BlockStates.generationOf(e));
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
    readAround(block, inBlock, dst, offset, len, block, why == Outcome.REJECTED, true);
  }

  /**
   * Loads the missing run of blocks from {@code first} to at most {@code last}.
   *
   * @return the run loaded; if it is empty, its outcome says why: {@link Outcome#PRESENT} if
   *     {@code first} turned out to be cached or loading (look again), {@link Outcome#BUSY} if no
   *     slot was free, {@link Outcome#REJECTED} if admission refused {@code first}
   */
  private Run load(int first, int last) throws IOException {
    int max = Math.min(last - first + 1, NativeFile.MAX_VECTOR);
    Run run = policy.claimRun(this, first, max, true);
    if (run.count == 0) {
      if (run.outcome == Outcome.BUSY && entry(first) != 0) {
        run.outcome = Outcome.PRESENT; // another reader installed it meanwhile
      }
      return run;
    }
    finishLoad(run, DEMAND);
    return run;
  }

  /**
   * Reads the claimed blocks of {@code run} into their slots and publishes them, or, on failure,
   * gives them up (clears their entries, frees their slots) and rethrows. Whatever is thrown, from
   * its first statement on (an {@link OutOfMemoryError} allocating the event included), the
   * blocks are either published or given up: nobody is left waiting on a load that is not being
   * made. A demand load ({@code kind} {@link #DEMAND}) counts its blocks as misses.
   */
  void finishLoad(Run run, String kind) throws IOException {
    boolean ok = false;
    long got = 0;
    int first = run.first;
    int n = run.count;
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
        segments[i] = slots.segment(BlockStates.slotOf(run.claims[i]));
      }
      long expected = Math.min(size, (long) (first + n) << blockShift) - position;
      NativeFile from = source(position, expected);
      event.pageCache = from != file;
      // a query waits on a demand load and soon on a prefetch: ahead of other work's reads
      int priority = from == file && kind != WARM ? IoPriority.enterFirst() : IoPriority.UNCHANGED;
      try {
        got = from.readInto(position, segments, n);
      } finally {
        IoPriority.restore(priority);
      }
      event.first = priority != IoPriority.UNCHANGED;
      (from == file ? counters.bytesRead : counters.pageCacheBytes).add(got);
      if (got < expected) {
        throw shrunk(position + got);
      }
      for (int i = 0; i < n; i++) {
        states.publish(this, first + i, run.claims[i]);
      }
      ok = true;
    } catch (IllegalStateException e) {
      throw cache.closedException(e, file.path());
    } finally {
      if (!ok) {
        abandon(run);
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

  /**
   * The descriptor to read {@code [position, position + length)} with: a buffered one if the cache
   * fills from the page cache and the page cache holds every page of the range, else {@link #file}.
   *
   * @throws dev.pread.nativeio.ClosedFileException (an {@link IllegalStateException}) if the files are
   *     closed
   */
  private NativeFile source(long position, long length) {
    if (!cache.fillFromPageCache || !file.isDirect() || length <= 0) {
      return file;
    }
    long pages = (position + length - 1) / PAGE - position / PAGE + 1;
    if (file.cachedPages(position, length) < pages) {
      return file; // -1 without cachestat
    }
    NativeFile b = buffered();
    return b != null ? b : file;
  }

  /**
   * The buffered descriptor, opened on first use; null if it cannot be opened now. After a failed
   * open, misses read storage for {@link BlockCache#bufferedRetryNanos}, then an open is tried again.
   */
  private synchronized NativeFile buffered() {
    if (buffered == null && !filesClosed) {
      if (bufferedFailed && System.nanoTime() - bufferedFailedAt < cache.bufferedRetryNanos) {
        return null;
      }
      try {
        NativeFile b = file.reopen(false);
        try {
          b.advise(0, 0, dev.pread.nativeio.Advice.RANDOM);
        } catch (IOException advice) {
          // a hint: a page evicted before the read is read with readahead
        }
        buffered = b;
      } catch (IOException e) {
        bufferedFailed = true; // misses read storage until the next try
        bufferedFailedAt = System.nanoTime();
        if (BUFFERED_FAILURE_LOGGED.compareAndSet(false, true)) {
          LOG.log(System.Logger.Level.WARNING, "BlockCache: cannot open " + file.path()
              + " buffered to copy misses from the page cache; its misses read storage, and an open is tried again"
              + " a second later (logged once per JVM): " + e);
        }
      }
    }
    return buffered;
  }

  /**
   * Closes the file's descriptors, each after the reads in flight on it (into the cache's memory)
   * have finished. No buffered descriptor is opened afterwards.
   */
  void closeFiles() throws IOException {
    NativeFile b;
    synchronized (this) {
      filesClosed = true;
      b = buffered;
    }
    try {
      file.close();
    } finally {
      if (b != null) {
        b.close();
      }
    }
  }

  /** The error for a read that found the file ending at {@code offset}, before its size at open. */
  private EOFException shrunk(long offset) {
    return new EOFException(
        file.path() + ": read past EOF at offset " + offset + " (the file is shorter than its size at open, " + size + ")");
  }

  /** Gives up the claimed blocks of {@code run}: clears their entries and frees their slots. */
  private void abandon(Run run) {
    for (int i = 0; i < run.count; i++) {
      policy.release(this, run.first + i, run.claims[i]);
    }
  }

  /**
   * Reads without inserting: of the missing blocks from {@code block} to at most {@code lastBlock}
   * (stopping at the first cached one), the direct-I/O units that hold the bytes to copy, into a
   * temporary aligned buffer, and copies up to {@code len} bytes from {@code inBlock} on.
   *
   * @param rejected true when admission refused the block: counted as a miss and a rejection,
   *     else as read-around
   * @param query true for a read of a file that inserts (a query's): read at the highest
   *     best-effort I/O level, or in the real-time class ({@link IoPriority#enterFirst}); false for
   *     a file that does not (a merge's): in the idle class if the cache says so ({@link
   *     IoPriority})
   * @return bytes copied
   */
  private int readAround(
      int block, int inBlock, byte[] dst, int offset, int len, int lastBlock, boolean rejected, boolean query)
      throws IOException {
    int end = block;
    while (end < lastBlock
        && end - block + 1 < NativeFile.MAX_VECTOR
        && ((long) (end - block + 1) << blockShift) < inBlock + (long) len
        && entry(end + 1) == 0) {
      end++;
    }
    int blocks = end - block + 1;
    long runBytes = (long) blocks << blockShift;
    int copy = (int) Math.min(len, runBytes - inBlock);
    // Nothing read here stays in the cache: read only the direct-I/O units the copy needs, not
    // whole blocks (a merge reading vectors at random would read a block for each small vector).
    int from = inBlock - inBlock % aroundUnit;
    long to = Math.min(runBytes, ((long) inBlock + copy + aroundUnit - 1) / aroundUnit * aroundUnit);
    long position = ((long) block << blockShift) + from;
    BlockLoadEvent event = new BlockLoadEvent();
    event.begin();
    long got = 0;
    long bytes = to - from;
    // Only large reads go idle: a sequential reader's refills, which take the disk's bandwidth. A
    // small one (a merge building a vector graph reads one vector at a time, at random, and waits
    // for each) costs the disk little, and in the idle class it would wait milliseconds each time.
    boolean idle = !query && cache.idleReadsAround && bytes > MAX_SMALL_READ_AROUND;
    try {
      NativeFile source = source(position, Math.min(bytes, size - position));
      event.pageCache = source != file;
      // a read from storage for an input that does not insert (a merge, a read-once input) yields
      // the disk to the queries' misses; a query's read goes ahead of other work's
      int priority =
          source != file
              ? IoPriority.UNCHANGED
              : idle ? IoPriority.enterIdle() : query ? IoPriority.enterFirst() : IoPriority.UNCHANGED;
      event.idle = idle && priority != IoPriority.UNCHANGED;
      event.first = query && priority != IoPriority.UNCHANGED;
      long started = System.nanoTime();
      try {
        int lent = bytes <= ScratchBuffers.BUFFER_SIZE ? scratch.borrow() : -1;
        if (lent >= 0) {
          // the usual case (a block or a few): a huge-page buffer of the cache's, no allocation
          try {
            MemorySegment buffer = scratch.buffer(lent).asSlice(0, bytes);
            got = source.readInto(position, new MemorySegment[] {buffer}, 1);
            copyOut(buffer, got, inBlock - from, dst, offset, copy);
          } finally {
            scratch.release(lent);
          }
        } else {
          try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(bytes, 4096);
            got = source.readInto(position, new MemorySegment[] {buffer}, 1);
            copyOut(buffer, got, inBlock - from, dst, offset, copy);
          }
        }
      } finally {
        if (idle) {
          IoPriority.restore(priority, started);
        } else {
          IoPriority.restore(priority);
        }
      }
      (source == file ? counters.bytesRead : counters.pageCacheBytes).add(got);
      if (rejected) {
        counters.misses.add(blocks);
        counters.rejected.add(blocks);
      } else {
        counters.readAround.add(blocks);
      }
      if (got < inBlock - from + (long) copy) {
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

  /**
   * Loads the missing blocks of {@code [position, position + length)} on the calling thread, in
   * runs of up to {@link NativeFile#MAX_VECTOR} blocks per read, into free slots only: it stops
   * when none is left rather than evict a block. Blocks cached or loading already are skipped.
   *
   * @return the number of blocks this call loaded
   */
  long load(long position, long length) throws IOException {
    if (length <= 0) {
      return 0;
    }
    int block = (int) (position >>> blockShift);
    int last = (int) ((position + length - 1) >>> blockShift);
    long loaded = 0;
    while (block <= last) {
      if (entry(block) != 0) {
        block++;
        continue;
      }
      int free = policy.freeBlocks();
      if (free <= 0) {
        break;
      }
      int want = Math.min(Math.min(last - block + 1, NativeFile.MAX_VECTOR), free);
      Run run = policy.claimRun(this, block, want, false);
      if (run.count == 0) {
        if (entry(block) == 0) {
          break; // every slot busy
        }
        block++; // another reader installed it meanwhile
        continue;
      }
      finishLoad(run, WARM);
      loaded += run.count;
      block += run.count;
    }
    return loaded;
  }

  /** The blocks whose contents are in the cache now (a racy snapshot: blocks may come and go). */
  java.util.BitSet loadedBlocks() {
    java.util.BitSet bits = new java.util.BitSet(blockCount);
    for (int block = 0; block < blockCount; block++) {
      if (BlockStates.isLoaded(entry(block))) {
        bits.set(block);
      }
    }
    return bits;
  }

  /** Starts loading the missing blocks of {@code [position, position + length)}; never waits. */
  void prefetch(long position, long length, boolean own) {
    if (length <= 0 || readsAroundHere(own)) {
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
      Run run = null;
      int n = 0;
      PrefetchTask task = null;
      boolean submitted = false;
      boolean dropped = false;
      try {
        run = policy.claimRun(this, block, want, false);
        n = run.count;
        if (n > 0) {
          task = new PrefetchTask(run);
          submitted = prefetcher.submit(task);
        }
      } finally {
        // Whatever failed between the claim and the hand-off, the claimed blocks and the room
        // under the cap go back, unless the task got to run after all (see Prefetcher#submit).
        if (!submitted && (task == null || task.cancel())) {
          dropped = true;
          prefetcher.release(want);
          if (n > 0) {
            abandon(run);
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
    private final Run run;

    PrefetchTask(Run run) {
      this.run = run;
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
          abandon(run); // closing: do not start reads
          counters.prefetchDropped.add(run.count);
        } else {
          finishLoad(run, PREFETCH);
        }
      } catch (IOException | RuntimeException e) {
        // a hint: a reader that needs these blocks will load them and see the error itself
      } finally {
        cache.prefetcher.release(run.count);
      }
    }
  }
}
