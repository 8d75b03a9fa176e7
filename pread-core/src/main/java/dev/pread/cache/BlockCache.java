package dev.pread.cache;

import dev.pread.nativeio.ClosedFileException;
import dev.pread.nativeio.Errno;
import dev.pread.nativeio.NativeAccess;
import dev.pread.nativeio.NativeFile;
import dev.pread.nativeio.NativeIOException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.FlightRecorder;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * A fixed-size cache of file blocks off the Java heap, filled by {@code O_DIRECT} reads: memory
 * that the page cache, and a container's memory limit, cannot take back or grow.
 *
 * <p><b>Memory.</b> The cache holds at most {@link #budgetBytes()} of block data, in blocks of
 * {@link #blockSize()} bytes aligned to 4096. Memory is mapped in chunks (2 MiB-aligned, advised for
 * transparent huge pages), committed by the kernel as blocks are first written, given back in
 * whole chunks by {@link #shrink}, and all of it freed by {@link #close()}. It is not page cache:
 * the kernel cannot reclaim it under a memory limit; its owner must ({@link #limitGrowth}, {@link
 * #shrink}). Besides the data, the cache keeps {@link
 * #fixedOverheadBytes()} on the Java heap (81 bytes per block, and up to 21 more with {@link
 * Builder#frequencyAdmission admission}, plus about 2 KiB per processor, at most 36 KiB, for
 * recording hits), 2 MiB off the heap for reads that bypass the blocks
 * (mapped on the first such read), and each open file a table of
 * 8 bytes per block of the file (for example 1.5 MiB for a 3 GiB index at 16 KiB blocks).
 *
 * <p><b>Reads.</b> {@link #open(Path)} returns a {@link CachedFile}; several files, and several
 * directories, can share one cache. A hit takes no lock and allocates nothing: a table lookup, a
 * pin by CAS, a copy, an unpin; through a {@link BlockReader} (one per thread, {@link
 * CachedFile#newReader(boolean)}), a table lookup, a read of the block's memory in place and a second look
 * at the table entry. A miss reads the run of missing blocks the read needs in one
 * vectored {@code preadv}; two readers missing the same block cause one read. Which block makes
 * room is chosen by a scan-resistant CLOCK, and whether a missed block may take it by how often
 * it was used lately (see the package documentation).
 *
 * <p><b>Prefetch.</b> {@link CachedFile#prefetch} loads missing blocks on a pool of {@link
 * Builder#prefetchThreads(int)} threads, at most {@link Builder#maxPrefetchBlocks(int)} blocks in
 * flight; the pool starts on first use and stops on {@link #close()}.
 *
 * <p><b>File systems without O_DIRECT</b> (tmpfs, some network file systems) refuse it: such files
 * are read with buffered {@code pread} into the same cache, after one log line per JVM.
 *
 * <p><b>Statistics</b>: {@link #stats()}, and JFR events {@code dev.pread.cache.Statistics} (every
 * second by default, one per open cache) and {@code dev.pread.cache.BlockLoad} (one per read from
 * storage).
 *
 * <p><b>Thread-safety:</b> every method may be called from any number of threads.
 *
 * <p><b>Close:</b> {@link #close()} stops the prefetch threads, closes every file opened through
 * the cache, waits for reads into its memory to return, and frees the memory. Reads through its
 * files then throw {@link AlreadyClosedException}. Closing twice is harmless.
 */
public final class BlockCache implements Closeable {
  /**
   * Default block size in bytes. Larger blocks copy less per random read from storage but hold
   * fewer hot blocks in the same memory and read more per miss; {@code ./pread cli
   * cache-block-sizes} measures the sizes (docs/benchmarks.md).
   */
  public static final int DEFAULT_BLOCK_SIZE = 16 * 1024;

  /** Smallest block size: the largest logical block size O_DIRECT needs on common devices. */
  public static final int MIN_BLOCK_SIZE = 4096;

  /** Largest block size. */
  public static final int MAX_BLOCK_SIZE = 1 << 20;

  /** Default number of prefetch threads: each keeps one read in flight at the device. */
  public static final int DEFAULT_PREFETCH_THREADS = 16;

  /** Default cap on prefetched blocks being loaded at once. */
  public static final int DEFAULT_MAX_PREFETCH_BLOCKS = 64;

  /** Block memory is mapped in chunks of this size (huge-page aligned) as the cache fills. */
  static final long CHUNK_BYTES = 8L << 20;

  private static final int CHUNK_BYTES_MIB = 8;

  private static final System.Logger LOG = System.getLogger(BlockCache.class.getName());
  /** Set once the buffered-read fallback has been logged; package-private so tests can reset it. */
  static final AtomicBoolean BUFFERED_LOGGED = new AtomicBoolean();
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final Set<BlockCache> OPEN = ConcurrentHashMap.newKeySet();

  static {
    try {
      FlightRecorder.addPeriodicEvent(BlockCacheStatisticsEvent.class, BlockCache::emitStatistics);
    } catch (RuntimeException | LinkageError e) {
      // JFR is not available in this runtime: the events are simply not recorded
    }
  }

  final Slots slots;
  final BlockStates states;
  /** Buffers for reads around the blocks. */
  final ScratchBuffers scratch = new ScratchBuffers();
  final ClockPolicy policy;
  final CacheCounters counters = new CacheCounters();
  final Prefetcher prefetcher;
  private final long budget;
  private final boolean directIO;
  /** {@link Builder#fillFromPageCache}. */
  final boolean fillFromPageCache;

  /**
   * After a file's buffered descriptor could not be opened, how long its misses read storage
   * before an open is tried again; tests change it.
   */
  volatile long bufferedRetryNanos = 1_000_000_000L;
  /** {@link Builder#idleReadsAround}. */
  final boolean idleReadsAround;
  /** {@link Builder#readAroundIn}. */
  private final java.util.function.Predicate<Thread> readsAround;
  private final String name;
  private final Map<Object, FileBlocks> files = new HashMap<>();
  /**
   * Files out of {@link #files} whose descriptor is being closed (the close waits for reads into
   * the cache's memory): {@link #close()} waits for them before freeing that memory. Guarded by
   * {@link #files}.
   */
  private int closing;

  private volatile boolean closed;

  /** True if the calling thread reads around the cache ({@link Builder#readAroundIn}). */
  boolean readsAroundHere() {
    return readsAround.test(Thread.currentThread());
  }

  /**
   * Lucene's {@code ConcurrentMergeScheduler} merge threads (and those of schedulers that extend
   * it, as OpenSearch's does), told by the class of the thread: the threads a cache reads around
   * unless its builder names others ({@link Builder#readAroundIn}). Compose it to add threads of
   * your own, for example {@code LUCENE_MERGE_THREADS.or(t -> t.getName().startsWith("recovery"))}.
   */
  public static final java.util.function.Predicate<Thread> LUCENE_MERGE_THREADS = LuceneMergeThreads::test;

  private BlockCache(Builder b) {
    this.budget = b.budget;
    this.directIO = b.directIO;
    this.fillFromPageCache = b.fillFromPageCache;
    this.idleReadsAround = b.idleReadsAround;
    this.readsAround = b.readsAround;
    this.name = b.name != null ? b.name : "block-cache-" + IDS.incrementAndGet();
    int count = (int) (b.budget / b.blockSize);
    this.slots = new Slots(count, b.blockSize, Math.max(b.blockSize, CHUNK_BYTES));
    this.states = new BlockStates(count);
    this.policy = new ClockPolicy(states, counters, b.frequencyAdmission);
    this.prefetcher =
        b.prefetchThreadFactory == null
            ? new Prefetcher(b.prefetchThreads, b.maxPrefetchBlocks)
            : new Prefetcher(b.prefetchThreads, b.maxPrefetchBlocks, b.prefetchThreadFactory);
    OPEN.add(this);
  }

  /**
   * A builder for a cache holding at most {@code budgetBytes} of block data.
   *
   * @throws IllegalArgumentException if the budget is not positive
   */
  public static Builder builder(long budgetBytes) {
    return new Builder(budgetBytes);
  }

  /** Options of a {@link BlockCache}; see each setter for its default. */
  public static final class Builder {
    private final long budget;
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private int prefetchThreads = DEFAULT_PREFETCH_THREADS;
    private int maxPrefetchBlocks = DEFAULT_MAX_PREFETCH_BLOCKS;
    private boolean directIO = true;
    private boolean fillFromPageCache;
    private boolean idleReadsAround;
    private java.util.function.Predicate<Thread> readsAround = LUCENE_MERGE_THREADS;
    private boolean frequencyAdmission = true;
    private String name;
    private java.util.concurrent.ThreadFactory prefetchThreadFactory;

    private Builder(long budget) {
      if (budget <= 0) {
        throw new IllegalArgumentException("cache budget must be positive (got " + budget + " bytes)");
      }
      this.budget = budget;
    }

    /**
     * Block size in bytes: a power of two from {@value #MIN_BLOCK_SIZE} to {@value
     * #MAX_BLOCK_SIZE}, at most the budget; {@value #DEFAULT_BLOCK_SIZE} by default.
     */
    public Builder blockSize(int bytes) {
      if (bytes < MIN_BLOCK_SIZE || bytes > MAX_BLOCK_SIZE || Integer.bitCount(bytes) != 1) {
        throw new IllegalArgumentException(
            "block size must be a power of two from " + MIN_BLOCK_SIZE + " to " + MAX_BLOCK_SIZE + " (got " + bytes + ")");
      }
      this.blockSize = bytes;
      return this;
    }

    /** Threads loading prefetched blocks, 1 to 256; {@value #DEFAULT_PREFETCH_THREADS} by default. */
    public Builder prefetchThreads(int threads) {
      if (threads < 1 || threads > 256) {
        throw new IllegalArgumentException("prefetch threads must be 1 to 256 (got " + threads + ")");
      }
      this.prefetchThreads = threads;
      return this;
    }

    /**
     * Most prefetched blocks loading at once, at least 1; {@value #DEFAULT_MAX_PREFETCH_BLOCKS} by
     * default. Prefetches beyond it are dropped (counted in {@link BlockCacheStats#prefetchDropped()}).
     */
    public Builder maxPrefetchBlocks(int blocks) {
      if (blocks < 1) {
        throw new IllegalArgumentException("max prefetch blocks must be at least 1 (got " + blocks + ")");
      }
      this.maxPrefetchBlocks = blocks;
      return this;
    }

    /**
     * Whether misses are read with {@code O_DIRECT} (the default). With false, or on a file system
     * that refuses it, misses are read with buffered {@code pread}, through the page cache.
     */
    public Builder directIO(boolean enabled) {
      this.directIO = enabled;
      return this;
    }

    /**
     * Whether a miss whose bytes are all in the page cache is copied from there with a buffered
     * {@code pread} instead of read from storage with {@code O_DIRECT}; off by default. Worth it
     * where the page cache may hold the files the cache reads: after a switch from reading memory
     * mappings to the cache, after a process restart, for files just written. The trade-off: one
     * {@code cachestat(2)} call per miss (well under a microsecond, against a read from storage),
     * and a second, buffered descriptor for each file that had such a miss, opened at its first
     * one and closed with the file. A page evicted between the check and the read is read from
     * storage through the page cache (that descriptor is advised {@code POSIX_FADV_RANDOM}: no
     * readahead). Where that descriptor cannot be opened (the process out of descriptors), the
     * file's misses read storage, and the open is tried again a second later. Without {@code
     * cachestat} (Linux before 6.5) every miss reads storage. Counted in {@link
     * BlockCacheStats#pageCacheBytes()}.
     */
    public Builder fillFromPageCache(boolean enabled) {
      this.fillFromPageCache = enabled;
      return this;
    }

    /**
     * Whether files opened without inserting (merges, read-once inputs; and every file a thread of
     * {@link #readAroundIn} reads) read their misses from storage in the idle I/O class ({@link
     * dev.pread.nativeio.IoPriority}) when a read is larger than 16 KiB; off by default. Those
     * reads then wait while reads of a higher class, the cache's own misses, are queued, so a merge
     * reading gigabytes around the cache delays the queries' misses less. The trade-off: under a
     * disk kept busy by other reads, each such read may wait up to the scheduler's aging limit
     * (10 s for mq-deadline), so a merge can take longer. Smaller reads, a reader's random
     * accesses, keep the thread's class: in the idle class each would wait for the queue to drain,
     * and a reader that waits for one before it makes the next would barely advance. An {@code
     * ioprio_get} and two {@code ioprio_set} calls per idle read.
     */
    public Builder idleReadsAround(boolean enabled) {
      this.idleReadsAround = enabled;
      return this;
    }

    /**
     * Threads whose misses read around the cache in every file, as a file opened without inserting
     * does: nothing they miss is put into the cache, their prefetches do nothing, and their reads
     * from storage have the I/O class such a file's have; blocks already cached they read as any
     * thread does. For work that reads through inputs that queries opened: Lucene's merges of
     * segments whose readers the writer keeps open for near-real-time search read those readers'
     * inputs, and would otherwise put whole segments into the cache, displacing blocks queries use.
     * The test runs on the reading thread at each miss (and prefetch) of a file that inserts, never
     * on a hit, and on the opening thread in {@link BlockCache#openForCaller}, so it must be cheap
     * and must not throw; a file opened that way by such a thread is not read around. By default {@link
     * BlockCache#LUCENE_MERGE_THREADS}. The trade-off: a block such a thread reads twice is read
     * from storage twice, and a segment a merge reads that queries never did is not put into the
     * cache for them. {@code t -> false} makes every thread insert what it misses.
     *
     * @throws NullPointerException if {@code threads} is null
     */
    public Builder readAroundIn(java.util.function.Predicate<Thread> threads) {
      this.readsAround = java.util.Objects.requireNonNull(threads, "threads");
      return this;
    }

    /**
     * Whether a block that missed may replace a cached one only if it was used more often lately,
     * going into a small window otherwise (W-TinyLFU over the CLOCK policy; see the package
     * documentation). On by default: it keeps more hits under skewed reads larger than the cache.
     * With false, every miss replaces CLOCK's victim. It costs a sketch of up to 16 bytes per block,
     * and 5 more for the window, on the heap.
     */
    public Builder frequencyAdmission(boolean enabled) {
      this.frequencyAdmission = enabled;
      return this;
    }

    /** Makes the prefetch pool's threads (a test seam; see {@link Prefetcher}). */
    Builder prefetchThreadFactory(java.util.concurrent.ThreadFactory factory) {
      this.prefetchThreadFactory = factory;
      return this;
    }

    /** A name for statistics and JFR events; "block-cache-N" by default. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /**
     * Creates the cache. Its block memory is allocated as it fills.
     *
     * @throws IllegalArgumentException if the budget is smaller than one block, or holds more
     *     blocks than the cache can index (2^27)
     * @throws UnsupportedOperationException if native access is not available (see {@link
     *     NativeAccess})
     */
    public BlockCache build() {
      NativeAccess.unavailableReason()
          .ifPresent(
              why -> {
                throw new UnsupportedOperationException("native access is not available: " + why);
              });
      long count = budget / blockSize;
      if (count < 1) {
        throw new IllegalArgumentException(
            "cache budget " + budget + " is smaller than one block of " + blockSize + " bytes");
      }
      if (count > (1 << 27)) {
        throw new IllegalArgumentException(
            "cache budget " + budget + " holds more than 2^27 blocks of " + blockSize + " bytes: use larger blocks");
      }
      return new BlockCache(this);
    }
  }

  /** Opens {@code path} for reading through this cache, inserting what it misses. */
  public CachedFile open(Path path) throws IOException {
    return open(path, true);
  }

  /**
   * Opens {@code path} for reading through this cache.
   *
   * @param path a path of the default file system
   * @param insert false to read misses around the cache (for merges and read-once inputs); see
   *     {@link CachedFile}
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws AlreadyClosedException if the cache is closed
   */
  public CachedFile open(Path path, boolean insert) throws IOException {
    ensureOpen();
    return openPath(path, insert, false);
  }

  /**
   * Opens {@code path} to insert what it misses, as {@link #open(Path, boolean) open(path, true)}
   * does, on behalf of the calling thread: if the cache reads around in that thread ({@link
   * Builder#readAroundIn}), the file is that thread's own work, and its misses insert in every
   * thread, that one too. A merge opens files this way that are not the segments it reads: the
   * segment it writes, which it reads back at random and would otherwise read from storage at each
   * access (a norm for each posting, a vector for each comparison of the graph it builds), and the
   * reader a writer opens on the merged segment for near-real-time search. The trade-off: what
   * such a file loads, the merge's read-back too, takes blocks from what queries use.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws AlreadyClosedException if the cache is closed
   */
  public CachedFile openForCaller(Path path) throws IOException {
    ensureOpen();
    return openPath(path, true, readsAroundHere());
  }

  /** Opens {@code path} (with O_DIRECT where the cache reads that way) and registers it. */
  private CachedFile openPath(Path path, boolean insert, boolean own) throws IOException {
    return register(openFile(path, direct -> direct ? NativeFile.openDirect(path) : NativeFile.open(path)), insert, own);
  }

  /**
   * Opens the file {@code source} has open for reading through this cache, even if its path was
   * deleted or replaced since (see {@link NativeFile#reopen}); {@code source} stays the caller's.
   *
   * @param insert false to read misses around the cache
   * @throws AlreadyClosedException if the cache is closed
   * @throws dev.pread.nativeio.ClosedFileException if {@code source} is closed
   */
  public CachedFile open(NativeFile source, boolean insert) throws IOException {
    ensureOpen();
    return register(openFile(source.path(), source::reopen), insert, false);
  }

  /** How {@link #openFile} opens a file: with O_DIRECT (true) or buffered. */
  private interface Opener {
    NativeFile open(boolean direct) throws IOException;
  }

  /** Shares the blocks of {@code file} with the other opens of the same file, or starts them. */
  private CachedFile register(NativeFile file, boolean insert, boolean own) throws IOException {
    Object key = file.inode() < 0 ? new Object() : new FileKey(file.device(), file.inode(), file.size());
    CachedFile shared;
    try {
      synchronized (files) {
        ensureOpen();
        FileBlocks blocks = files.get(key);
        if (blocks == null) {
          blocks = new FileBlocks(this, file, key);
          files.put(key, blocks);
          return new CachedFile(blocks, insert, own);
        }
        blocks.references++;
        shared = new CachedFile(blocks, insert, own);
      }
    } catch (RuntimeException e) {
      try {
        file.close();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    // The file is open already: read through its descriptor and close this one. If that close
    // fails, the open fails, and must not keep the reference it took.
    try {
      file.close();
    } catch (IOException | RuntimeException e) {
      try {
        shared.close();
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return shared;
  }

  private record FileKey(long device, long inode, long size) {}

  private NativeFile openFile(Path path, Opener opener) throws IOException {
    if (!directIO) {
      return opener.open(false);
    }
    NativeFile file;
    try {
      file = opener.open(true);
    } catch (NativeIOException e) {
      if (e.errno() != Errno.EINVAL) {
        throw e;
      }
      logBuffered(path, "the file system refuses O_DIRECT (EINVAL)");
      return opener.open(false);
    }
    int offsetAlign = file.directOffsetAlignment();
    int memoryAlign = file.directMemoryAlignment();
    if (offsetAlign > slots.blockSize || memoryAlign > 4096) {
      file.close();
      logBuffered(
          path,
          "O_DIRECT needs offsets aligned to "
              + offsetAlign
              + " and memory to "
              + memoryAlign
              + " bytes, more than the cache's blocks give");
      return opener.open(false);
    }
    return file;
  }

  private static void logBuffered(Path path, String why) {
    if (BUFFERED_LOGGED.compareAndSet(false, true)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "BlockCache: reading " + path + " with buffered pread into the cache: " + why
              + " (logged once per JVM; other such files are read the same way)");
    }
  }

  /** Called by {@link CachedFile#close()}: the last close of a file frees its blocks. */
  void release(FileBlocks blocks) throws IOException {
    synchronized (files) {
      if (--blocks.references > 0) {
        return;
      }
      files.remove(blocks.key);
      closing++;
    }
    try {
      blocks.closeFiles(); // waits for reads in flight
    } finally {
      try {
        if (!closed) {
          policy.invalidate(blocks);
        }
      } finally {
        synchronized (files) {
          if (--closing == 0) {
            files.notifyAll();
          }
        }
      }
    }
  }

  /** An {@link AlreadyClosedException} for a read that found the cache or its file closed. */
  RuntimeException closedException(IllegalStateException e, Path path) {
    if (e instanceof AlreadyClosedException ace) {
      return ace;
    }
    if (closed) {
      return new AlreadyClosedException("block cache " + name + " is closed: " + path, e);
    }
    if (e instanceof ClosedFileException) {
      return new AlreadyClosedException("file is closed: " + path, e);
    }
    return e;
  }

  private void ensureOpen() {
    if (closed) {
      throw new AlreadyClosedException("block cache " + name + " is closed");
    }
  }

  /** True once {@link #close()} has begun. */
  public boolean isClosed() {
    return closed;
  }

  /** The cache's name, as in its JFR events. */
  public String name() {
    return name;
  }

  /** The most bytes of block data this cache holds. */
  public long budgetBytes() {
    return budget;
  }

  /**
   * Stops the cache from committing memory beyond {@code bytes} of blocks (at most its budget):
   * blocks never used before are handed out only while fewer than {@code bytes / blockSize()} have
   * been; past that, misses reuse blocks already in use. Memory already committed stays committed
   * ({@link #shrink} gives it back). A larger value lets the cache grow again, also after a {@link
   * #shrink}. For a cache whose owner follows the memory left in a container that other processes
   * share.
   */
  public void limitGrowth(long bytes) {
    policy.limitGrowth((int) Math.min(blockCount(), Math.max(0, bytes) / blockSize()));
  }

  /**
   * Gives memory back to the kernel until the cache holds at most {@code bytes} (at least one
   * block): the blocks above that size are evicted and their memory returned in whole chunks of
   * up to {@value #CHUNK_BYTES_MIB} MiB, so a cache may keep up to a chunk more than asked. Blocks
   * being read into or copied from at this moment stay until a later call. A larger {@code bytes}
   * lets the cache hold that much again (blocks then fill it as misses come). The trade-off: the
   * blocks evicted are chosen by position, not by use, so hot blocks may go and be read again.
   * For an owner that must follow a container's memory when another process takes it (see {@link
   * #limitGrowth} for growth alone). Safe while readers run: a read racing with this sees its block
   * gone and reads it again.
   *
   * @return the bytes of block memory allocated after the call ({@link BlockCacheStats#allocatedBytes})
   * @throws AlreadyClosedException if the cache is closed
   */
  public long shrink(long bytes) {
    if (closed) {
      throw new AlreadyClosedException("block cache " + name + " is closed");
    }
    int blocks = (int) Math.min(blockCount(), Math.max(0, bytes) / blockSize());
    policy.shrink(blocks, slots::release);
    return slots.allocatedBytes();
  }

  /** Bytes per block. */
  public int blockSize() {
    return slots.blockSize;
  }

  /** The number of blocks the budget holds. */
  public int blockCount() {
    return slots.count;
  }

  /**
   * Bytes on the Java heap the cache keeps whatever it holds: per block a state word on its own
   * cache line, its owner, use count and free-list entry, and with admission a frequency sketch of
   * up to 16 bytes per block and the window's 5; and a buffer of recent hits of about 2 KiB per
   * processor (at most 36 KiB). Files add 8 bytes per block of the file while open.
   */
  public long fixedOverheadBytes() {
    return (long) slots.count * BlockStates.bytesPerSlot() + policy.bytes();
  }

  /** A snapshot of the counters. */
  public BlockCacheStats stats() {
    CacheCounters c = counters;
    return new BlockCacheStats(
        c.hits.sum(),
        c.misses.sum(),
        c.evictions.sum(),
        c.bytesRead.sum(),
        c.pageCacheBytes.sum(),
        c.readAround.sum(),
        c.rejected.sum(),
        c.prefetchSubmitted.sum(),
        c.prefetchDeduplicated.sum(),
        c.prefetchDropped.sum(),
        prefetcher.inFlight(),
        c.loadFailures.sum(),
        (long) policy.residentBlocks() * slots.blockSize,
        slots.allocatedBytes());
  }

  /**
   * Bytes of blocks a load can have without evicting a cached block: blocks freed, and blocks
   * never used within the growth limit ({@link #limitGrowth}).
   */
  public long freeBytes() {
    return (long) policy.freeBlocks() * slots.blockSize;
  }

  /**
   * Which blocks hold data now, for every file open through this cache whose path lies directly
   * in {@code directory} (an absolute path of the default file system). A snapshot taken without
   * stopping readers: blocks loaded or evicted meanwhile may or may not show. Costs a look at
   * every block of those files.
   */
  public List<ResidentBlocks> residentBlocks(Path directory) {
    List<FileBlocks> open;
    synchronized (files) {
      open = new ArrayList<>(files.values());
    }
    List<ResidentBlocks> result = new ArrayList<>();
    for (FileBlocks blocks : open) {
      Path path = blocks.file.path();
      if (directory.equals(path.getParent())) {
        result.add(new ResidentBlocks(path, blocks.size, slots.blockSize, blocks.loadedBlocks()));
      }
    }
    return result;
  }

  /** Files open through this cache now (each counted once however often it is open). */
  public int openFiles() {
    synchronized (files) {
      return files.size();
    }
  }

  private static void emitStatistics() {
    for (BlockCache cache : OPEN) {
      BlockCacheStatisticsEvent event = new BlockCacheStatisticsEvent();
      if (!event.isEnabled()) {
        return;
      }
      BlockCacheStats s = cache.stats();
      event.cache = cache.name;
      event.budget = cache.budget;
      event.hits = s.hits();
      event.misses = s.misses();
      event.evictions = s.evictions();
      event.bytesRead = s.bytesRead();
      event.readAround = s.readAround();
      event.rejected = s.rejected();
      event.prefetchSubmitted = s.prefetchSubmitted();
      event.prefetchDeduplicated = s.prefetchDeduplicated();
      event.prefetchDropped = s.prefetchDropped();
      event.prefetchInFlight = s.prefetchInFlight();
      event.loadFailures = s.loadFailures();
      event.residentBytes = s.residentBytes();
      event.commit();
    }
  }

  /**
   * Stops the prefetch threads, closes every file opened through this cache, and frees its
   * memory once reads into it have returned. Every step is taken whatever an earlier one threw;
   * the first exception is then rethrown, with the others suppressed in it.
   */
  @Override
  public void close() throws IOException {
    synchronized (files) {
      if (closed) {
        return;
      }
      closed = true;
    }
    Throwable failure = null;
    try {
      OPEN.remove(this);
      prefetcher.close();
    } catch (Throwable t) {
      failure = collect(failure, t);
    }
    List<FileBlocks> open;
    synchronized (files) {
      open = new ArrayList<>(files.values());
      files.clear();
    }
    for (FileBlocks blocks : open) {
      try {
        blocks.closeFiles();
      } catch (Throwable t) {
        failure = collect(failure, t);
      }
    }
    try {
      awaitClosingFiles();
    } catch (Throwable t) {
      failure = collect(failure, t);
    }
    try {
      slots.close();
    } catch (Throwable t) {
      failure = collect(failure, t);
    }
    try {
      scratch.close();
    } catch (Throwable t) {
      failure = collect(failure, t);
    }
    if (failure instanceof IOException e) {
      throw e;
    } else if (failure instanceof RuntimeException e) {
      throw e;
    } else if (failure instanceof Error e) {
      throw e;
    } else if (failure != null) {
      throw new AssertionError(failure); // no other checked exception can be thrown above
    }
  }

  private static Throwable collect(Throwable first, Throwable next) {
    if (first == null) {
      return next;
    }
    if (first != next) {
      first.addSuppressed(next);
    }
    return first;
  }

  /**
   * Waits until files whose last handle was closed before this cache have closed their
   * descriptors: until then a read into the cache's memory may be in flight, and the kernel would
   * write into it after it is freed (a vectored read holds no reference to the memory it fills).
   */
  private void awaitClosingFiles() {
    boolean interrupted = false;
    synchronized (files) {
      while (closing > 0) {
        try {
          files.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "BlockCache(" + name + ", " + budget + " bytes in blocks of " + slots.blockSize + (closed ? ", closed)" : ")");
  }
}
