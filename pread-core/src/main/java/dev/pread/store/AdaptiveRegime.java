package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.ContainerMemory;
import dev.pread.nativeio.CpuPriority;
import dev.pread.nativeio.MappedFiles;
import dev.pread.nativeio.MappedFiles.MapAdvice;
import dev.pread.nativeio.NativeAccess;
import java.io.IOException;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Decides, for every {@link AdaptiveDirectory} in the JVM, whether inputs read through their
 * memory mappings (the page cache) or through one shared {@link BlockCache}; and owns that cache.
 *
 * <p><b>The rule.</b> The files open through adaptive directories fit when their total size is at
 * most {@value #FIT_SHARE} of the memory left for file pages: the container's limit (or the
 * machine's memory) minus what the kernel cannot reclaim (process memory, kernel memory; the
 * block cache's own memory is added back, since it would give way to file pages). While they fit,
 * inputs read the mapping: the page cache with the kernel's readahead, as {@code MMapDirectory}
 * reads. Once they do not, inputs read through the block cache and the mappings are advised
 * {@code MADV_RANDOM} so that a reader still holding one (a vector scorer, a postings decoder) does
 * not fault in readahead windows. The cache gets the memory left for file pages minus a slack of
 * {@value #MIN_SLACK_MIB} MiB plus {@value #SLACK_HEAP_PERCENT}% of the JVM's maximum heap (of the
 * limit if that is smaller) for the JVM's own files and growth: memory the kernel cannot take back
 * must leave room for the JVM to grow, while mapped pages give way to it. If that is below 16 MiB,
 * too little for a cache, inputs read the page cache with {@code pread} and {@code
 * POSIX_FADV_RANDOM} instead, as {@link PreadDirectory} does: its pages are not mapped, so the
 * kernel reclaims them without unmapping. The directories go back to mappings when the files fall
 * below {@value #UNFIT_SHARE} of the memory left; the gap keeps them from switching back and forth.
 *
 * <p><b>While memory falls.</b> If the memory left for file pages fell by more than {@value
 * #SHRINK_MARGIN_MIB} MiB since the previous look (another process of the container is allocating,
 * or the limit was lowered), no cache is started and a cache does not grow (a cache whose size
 * {@value #CACHE_BYTES_PROPERTY} sets is the operator's choice: it starts and grows regardless): a
 * cache started in the
 * middle of another process's allocation would be sized from a figure that is already stale, and
 * the memory it then commits, which the kernel cannot reclaim, is what the other process's next
 * allocation would need. Files that do not fit read the page cache with {@code pread} until a look
 * finds memory holding still. The trade-off: after each fall the cache starts, or grows again, a
 * look later.
 *
 * <p><b>The cache follows memory.</b> While inputs read the cache, each check lets it commit memory
 * up to its share then, and at most {@value #GROWTH_STEP_MIB} MiB more before the next ({@link
 * BlockCache#limitGrowth}): a neighbour that takes memory stops the cache from growing into it,
 * and if the cache holds more than is left, it gives the excess back ({@link BlockCache#shrink}),
 * evicting the blocks it held there; back on mappings it gives back all but a chunk. All of its
 * memory is given back when the last directory closes. Every switch and every shrink is logged with
 * its figures. Between two looks the cache's limit holds: an allocation by another process larger
 * than the slack plus the page cache the kernel can reclaim, made faster than a look, meets the
 * container's limit.
 *
 * <p><b>When it looks.</b> At most once a second, on a thread that opens, clones, slices or
 * prefetches an input: the check reads a few files under {@code /proc} and {@code /sys/fs/cgroup},
 * looks at the size of every open file (one {@code stat} each; a file that shrank is marked so, see
 * {@link AdaptiveFile#checkSize}), and takes a lock that other threads skip rather than wait for.
 * No thread of its own.
 *
 * <p><b>Overrides</b> (system properties): {@value #MODE_PROPERTY} = {@code auto} (the default),
 * {@code mapped}, {@code cached}, or {@code alternate} (for tests: switch at every open, clone,
 * slice and prefetch); {@value #CACHE_BYTES_PROPERTY} = the cache's size in bytes
 * instead of the memory left for files; {@value #IDLE_MERGE_READS_PROPERTY} = {@code false} to keep
 * merges' reads around the cache in their thread's I/O class (see {@link #idleMergeReads()});
 * {@value #MERGE_NICE_PROPERTY} = the nice value of merge threads, 0 for none (see {@link
 * #mergeNice()}).
 *
 * <p><b>Without native access</b> there is no block cache: inputs always read mappings (which need
 * no native calls), and a warning says so once.
 *
 * <p>Thread-safe. The cache is created on the first switch to it and closed when the last
 * directory using this regime closes.
 */
final class AdaptiveRegime {
  /** System property choosing the mode: auto, mapped or cached. */
  static final String MODE_PROPERTY = "dev.pread.adaptive.mode";

  /** System property with the block cache's size in bytes. */
  static final String CACHE_BYTES_PROPERTY = "dev.pread.adaptive.cache.bytes";

  /** System property: false to read around the cache in the reading thread's own I/O class. */
  static final String IDLE_MERGE_READS_PROPERTY = "dev.pread.adaptive.merge.idle";

  /**
   * System property: the nice value of Lucene's merge threads while they write a merged segment
   * through an adaptive directory, 1 to 19; 0 leaves their CPU priority alone (see {@link
   * #mergeNice()}).
   */
  static final String MERGE_NICE_PROPERTY = "dev.pread.adaptive.merge.nice";

  /** The default of {@link #MERGE_NICE_PROPERTY}. */
  static final int DEFAULT_MERGE_NICE = 10;

  /** Switch to the cache above this share of the memory left for files. */
  static final double FIT_SHARE = 0.9;

  /** Switch back to mappings below this share. */
  static final double UNFIT_SHARE = 0.7;

  /**
   * The fixed part of the slack. The trade-off: each MiB of slack is a MiB the block cache does not
   * get under a limit, and a slack too small for the JVM's own files and its growth between two looks
   * lets the container's OOM killer settle the difference. The growth step and the shrink keep the
   * cache within a look's growth of the memory left, so the slack need not cover a cache that
   * outruns the looks.
   */
  static final long MIN_SLACK_MIB = 48;
  /**
   * The part of the slack that grows with this JVM, in percent of its maximum heap: the native
   * memory a JVM adds between two looks (the garbage collector's own structures, direct buffers,
   * compiler arenas) grows with the JVM, not with memory other processes of the container hold. A
   * slack in percent of the limit would count a neighbour's memory: 2% of a limit that holds a
   * neighbour's 2.7 GiB beside a 256 MiB heap takes 75 MiB from the cache, which then sits in page
   * cache the JVM's files do not need. A node whose heap is half its container gets 2% of the limit.
   */
  static final long SLACK_HEAP_PERCENT = 4;
  /** The cache gives memory back when it holds more than the memory left for files by this much. */
  static final long SHRINK_MARGIN_MIB = 16;
  /**
   * The block cache's block size. The trade-off: a miss reads one block, so smaller blocks read
   * fewer bytes per query and hold more distinct hot ranges in the same memory, while each costs
   * heap: the cache's own index of about 100 bytes per block (1.2% of the cache at 8 KiB) and a
   * table entry of 8 bytes per block of every open file (0.1% of the open files); and reads that
   * span blocks move between them more often. Under a memory limit 8 KiB blocks read about half
   * the bytes of 16 KiB blocks at the same query rate; a volume capped at a number of reads a
   * second serves more queries with 16 KiB blocks, one capped at bytes a second more with 8 KiB.
   */
  static final int CACHE_BLOCK_SIZE = 8 * 1024;
  /** The most memory the cache may commit between two looks at memory. */
  static final long GROWTH_STEP_MIB = 64;
  private static final long MIN_CACHE_BYTES = 16L << 20;
  private static final long CHECK_INTERVAL_NANOS = 1_000_000_000L;
  private static final System.Logger LOG = System.getLogger(AdaptiveDirectory.class.getName());
  private static final AtomicBoolean NO_NATIVE_LOGGED = new AtomicBoolean();

  /** How the mode is chosen. */
  enum Mode {
    /** From the memory figures, by the rule in the class comment. */
    AUTO,
    /** Always mappings. */
    MAPPED,
    /** Always the block cache. */
    CACHED,
    /** For tests: switches at every check, and checks at every open, clone and prefetch. */
    ALTERNATE
  }

  private static AdaptiveRegime shared;

  private final Mode mode;
  private final ContainerMemory memory;
  private final long fixedCacheBytes;
  /** The slack if set for a test, else -1: {@link #slackBytes(long)}. */
  private final long fixedSlackBytes;
  /** {@link #idleMergeReads()}, read when the regime is made, so that a bad value fails there. */
  private final boolean idleMergeReads = idleMergeReads();
  /** {@link #mergeNice()}, read when the regime is made, so that a bad value fails there. */
  private final int mergeNice = mergeNice();
  private final boolean nativeAccess;
  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicLong openBytes = new AtomicLong();
  private final Set<AdaptiveFile> files = ConcurrentHashMap.newKeySet();

  /** True while inputs read through the cache; each file's {@link AdaptiveFile#readPath} follows it. */
  private volatile int path = AdaptiveFile.MAPPED;

  private volatile long nextCheck = System.nanoTime();
  /**
   * The memory left for file pages at the last check, {@link Long#MAX_VALUE} before the first;
   * opens that pass its share bring the next check forward.
   */
  private volatile long lastLeft = Long.MAX_VALUE;
  /** The cache's share of {@link #lastLeft} (less the slack), {@link Long#MAX_VALUE} before the first check. */
  private volatile long lastBudget = Long.MAX_VALUE;
  /** True while mappings are advised RANDOM (the files do not fit). Guarded by lock. */
  private boolean randomAdvice;
  // guarded by lock
  private BlockCache cache;
  private int users;
  private boolean readFailureLogged;
  private int cachesCreated;
  /** INFO for the JVM's regime; DEBUG for the regimes tests make by the dozen. */
  private final System.Logger.Level logLevel;

  AdaptiveRegime(Mode mode, ContainerMemory memory, long fixedCacheBytes) {
    this(mode, memory, fixedCacheBytes, -1, System.Logger.Level.DEBUG);
  }

  /** For tests: a regime whose slack is {@code slackBytes} rather than {@link #slackBytes(long)}'s. */
  AdaptiveRegime(Mode mode, ContainerMemory memory, long fixedCacheBytes, long slackBytes) {
    this(mode, memory, fixedCacheBytes, slackBytes, System.Logger.Level.DEBUG);
  }

  private AdaptiveRegime(
      Mode mode, ContainerMemory memory, long fixedCacheBytes, long slackBytes, System.Logger.Level logLevel) {
    this.logLevel = logLevel;
    this.fixedSlackBytes = slackBytes;
    this.mode = mode;
    this.memory = memory;
    this.fixedCacheBytes = fixedCacheBytes;
    this.nativeAccess = NativeAccess.isAvailable();
    if (!nativeAccess && NO_NATIVE_LOGGED.compareAndSet(false, true)) {
      LOG.log(
          System.Logger.Level.WARNING,
          "AdaptiveDirectory: native access is off ({0}); inputs read memory mappings only, with no block cache",
          NativeAccess.unavailableReason().orElse("?"));
    }
    this.path = nativeAccess && mode == Mode.CACHED ? AdaptiveFile.CACHE : AdaptiveFile.MAPPED;
    this.randomAdvice = path != AdaptiveFile.MAPPED;
  }

  /** The regime of directories created without one: from the system properties. */
  static synchronized AdaptiveRegime shared() {
    if (shared == null) {
      shared =
          new AdaptiveRegime(
              modeFromProperty(), ContainerMemory.system(), cacheBytesFromProperty(), -1, System.Logger.Level.INFO);
    }
    return shared;
  }

  static Mode modeFromProperty() {
    String value = System.getProperty(MODE_PROPERTY, "auto").trim().toUpperCase(Locale.ROOT);
    try {
      return Mode.valueOf(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "system property " + MODE_PROPERTY + " must be auto, mapped, cached or alternate (got \""
              + System.getProperty(MODE_PROPERTY) + "\")");
    }
  }

  /**
   * Whether merges and read-once inputs read from storage around the cache in the idle I/O class
   * ({@link BlockCache.Builder#idleReadsAround}): true unless {@value #IDLE_MERGE_READS_PROPERTY}
   * is {@code false}. The trade-off: the queries' misses do not wait behind a merge's reads, and
   * the merge reads only while no miss is queued, so it takes longer while queries keep the disk
   * busy. Only while inputs read the block cache (the index does not fit); on mappings and the
   * page cache, merges read at their thread's own priority.
   *
   * @throws IllegalArgumentException if the property is neither true nor false
   */
  static boolean idleMergeReads() {
    return BooleanProperty.read(IDLE_MERGE_READS_PROPERTY, true);
  }

  /**
   * The nice value that Lucene's merge threads take when they create a merge's output ({@link
   * MergeThreads}): {@value #MERGE_NICE_PROPERTY}, {@value #DEFAULT_MERGE_NICE} by default, 0 for
   * none. The trade-off: while queries keep every core busy a merge gets a small share of the CPU
   * and takes longer (on a core nobody else wants it runs at full speed); a node that indexes hard
   * on few cores may want merges to keep up rather than queries to keep their latency.
   *
   * @throws IllegalArgumentException naming the property and the value if it is not 0 to 19
   */
  static int mergeNice() {
    String value = System.getProperty(MERGE_NICE_PROPERTY, Integer.toString(DEFAULT_MERGE_NICE));
    return (int) NumberProperty.parse(MERGE_NICE_PROPERTY, value, 0, CpuPriority.MAX_NICE,
        "a nice value from 0 (off) to " + CpuPriority.MAX_NICE);
  }

  /** This regime's {@link #mergeNice()}. */
  int mergeNiceValue() {
    return mergeNice;
  }

  static long cacheBytesFromProperty() {
    String value = System.getProperty(CACHE_BYTES_PROPERTY);
    if (value == null || value.isBlank()) {
      return 0;
    }
    return NumberProperty.parse(CACHE_BYTES_PROPERTY, value, BlockCache.MIN_BLOCK_SIZE, Long.MAX_VALUE,
        "a number of bytes of at least " + BlockCache.MIN_BLOCK_SIZE);
  }

  /** A directory starts using this regime. */
  void acquire() {
    lock.lock();
    try {
      if (users++ == 0) {
        CompiledPath.follow(this, compiledPath(path));
      }
    } finally {
      lock.unlock();
    }
  }

  /** What {@link CompiledPath} is told of this regime on {@code path}: a regime that switches at every read is mixed. */
  private int compiledPath(int path) {
    return mode == Mode.ALTERNATE ? CompiledPath.MIXED : path;
  }

  /** A directory stops using this regime; the last one closes the cache. */
  void release() throws IOException {
    BlockCache toClose = null;
    lock.lock();
    try {
      if (--users == 0) {
        toClose = cache;
        cache = null;
        path = nativeAccess && mode == Mode.CACHED ? AdaptiveFile.CACHE : AdaptiveFile.MAPPED;
        randomAdvice = path != AdaptiveFile.MAPPED;
        lastBudget = Long.MAX_VALUE;
        lastLeft = Long.MAX_VALUE;
        nextCheck = System.nanoTime(); // the next directory looks at once
        CompiledPath.forget(this);
      }
    } finally {
      lock.unlock();
    }
    if (toClose != null) {
      toClose.close();
    }
  }

  /** True if this regime can ever read through a block cache (native access is on). */
  boolean hasCache() {
    return nativeAccess;
  }

  /** True if inputs read through the block cache now. */
  boolean isCached() {
    return path == AdaptiveFile.CACHE;
  }

  /** The read path files follow now: {@link AdaptiveFile#MAPPED}, {@code CACHE} or {@code PAGE_CACHE}. */
  int path() {
    return path;
  }

  /** True while mappings are advised {@code MADV_RANDOM} because the files do not fit. */
  boolean isMappingRandom() {
    lock.lock();
    try {
      return randomAdvice;
    } finally {
      lock.unlock();
    }
  }

  /** The cache, created if needed; null without native access. */
  BlockCache cache() throws IOException {
    lock.lock();
    try {
      return cacheLocked(lastBudget);
    } finally {
      lock.unlock();
    }
  }

  /** The cache if one exists, else null. */
  BlockCache existingCache() {
    lock.lock();
    try {
      return cache;
    } finally {
      lock.unlock();
    }
  }

  /** The cache, created with {@code budget} bytes (or the fixed size) if needed. Caller holds the lock. */
  private BlockCache cacheLocked(long budget) throws IOException {
    if (cache == null && nativeAccess) {
      if (fixedCacheBytes == 0 && budget == Long.MAX_VALUE) {
        budget = memoryLeft(null).cacheBudget(); // no check yet (a forced mode)
      }
      long bytes = fixedCacheBytes > 0 ? fixedCacheBytes : Math.max(MIN_CACHE_BYTES, budget);
      long blocks = Math.max(1, bytes / CACHE_BLOCK_SIZE);
      cache =
          BlockCache.builder(blocks * CACHE_BLOCK_SIZE)
              .blockSize(CACHE_BLOCK_SIZE)
              .fillFromPageCache(true)
              .idleReadsAround(idleMergeReads)
              .name("adaptive")
              .build();
      // The first cache of a regime at its level; later ones (after every directory closed) at DEBUG.
      LOG.log(cachesCreated++ == 0 ? logLevel : System.Logger.Level.DEBUG, "AdaptiveDirectory: block cache of {0} MiB{1}", bytes >> 20,
          fixedCacheBytes > 0 ? " (" + CACHE_BYTES_PROPERTY + ")" : " (the memory left for file pages less the slack, see below)");
    }
    return cache;
  }

  /** Adds an opened file: it follows this regime's read path from now on. */
  void register(AdaptiveFile file) {
    lock.lock();
    try {
      files.add(file);
      file.follow(path);
    } finally {
      lock.unlock();
    }
    if (file.usesCache) {
      long open = openBytes.addAndGet(file.size);
      if (path == AdaptiveFile.MAPPED && open > lastLeft * FIT_SHARE) {
        nextCheck = System.nanoTime(); // an index opening past the budget: look at the next read
      }
    }
  }

  /**
   * Makes a file a merge mapped ({@link AdaptiveFile#mapsAlways}) follow this regime's read path,
   * with the mapping advice of the other files: queries read it too.
   */
  void releaseMergeMapping(AdaptiveFile file) {
    lock.lock();
    try {
      if (file.mapsAlways) {
        file.mapsAlways = false;
        file.follow(path);
        if (file.usesCache) {
          file.adviseMapping(mappingAdvice());
        }
      }
    } finally {
      lock.unlock();
    }
  }

  void unregister(AdaptiveFile file) {
    if (files.remove(file) && file.usesCache) {
      openBytes.addAndGet(-file.size);
    }
  }

  /**
   * The size up to which the open files fit ({@value #FIT_SHARE} of the memory left for file pages
   * at the last look), or {@link Long#MAX_VALUE} before the first look.
   */
  long fitBytes() {
    long left = lastLeft;
    return left == Long.MAX_VALUE ? Long.MAX_VALUE : (long) (left * FIT_SHARE);
  }

  /** Total size of the files open through directories of this regime. */
  long openBytes() {
    return openBytes.get();
  }

  /**
   * Looks at memory if a second has passed since the last look; in ALTERNATE mode, switches the
   * path every time, but looks at the files' sizes only once a second as in the other modes: a
   * {@code stat} of every open file at every clone would cost tests that clone often more than
   * their reads.
   */
  void maybeCheck() {
    boolean due = System.nanoTime() - nextCheck >= 0;
    if (due || mode == Mode.ALTERNATE) {
      look(due);
    }
  }

  /**
   * Looks at the open files' sizes and at memory now, unless another thread is looking (then
   * returns at once).
   */
  void check() {
    look(true);
  }

  /**
   * The look of {@link #check} if {@code full}; otherwise only ALTERNATE mode's switch. Returns at
   * once if another thread is looking.
   */
  private void look(boolean full) {
    if (!lock.tryLock()) {
      return; // another thread is looking
    }
    try {
      if (full) {
        nextCheck = System.nanoTime() + CHECK_INTERVAL_NANOS;
        for (AdaptiveFile f : files) {
          f.checkSize();
        }
      }
      if (mode == Mode.MAPPED || mode == Mode.CACHED || !nativeAccess) {
        return;
      }
      if (mode == Mode.ALTERNATE) {
        alternate();
        return;
      }
      decide();
    } catch (IOException e) {
      readFailed(e);
    } finally {
      lock.unlock();
    }
  }

  /** Logs, once, a look that could not read memory figures or make the cache. Caller holds the lock. */
  private void readFailed(IOException e) {
    if (!readFailureLogged) {
      readFailureLogged = true;
      LOG.log(System.Logger.Level.WARNING, "AdaptiveDirectory: cannot read memory figures (logged once; the mode stays "
          + AdaptiveFile.pathName(path) + "): " + e.getMessage());
    }
  }

  /** ALTERNATE mode: mappings, then block cache, then page cache, then mappings. Caller holds the lock. */
  private void alternate() throws IOException {
    int next = path == AdaptiveFile.MAPPED ? AdaptiveFile.CACHE
        : path == AdaptiveFile.CACHE ? AdaptiveFile.PAGE_CACHE : AdaptiveFile.MAPPED;
    if (next != AdaptiveFile.CACHE || cacheLocked(MIN_CACHE_BYTES) != null) {
      switchTo(next, next != AdaptiveFile.MAPPED);
    }
  }

  /** Applies the rule of the class comment to a fresh reading. Caller holds the lock. */
  private void decide() throws IOException {
    StringBuilder why = new StringBuilder();
    MemoryLeft m = memoryLeft(why);
    long left = m.left();
    long budget = m.cacheBudget();
    long previous = lastLeft;
    lastLeft = left;
    lastBudget = budget;
    boolean falling = previous != Long.MAX_VALUE && previous - left > (SHRINK_MARGIN_MIB << 20);
    long open = openBytes.get();
    boolean fits = path != AdaptiveFile.MAPPED ? open <= left * UNFIT_SHARE : open <= left * FIT_SHARE;
    if (fits) {
      if (path != AdaptiveFile.MAPPED) {
        log(open, left, why, "are below " + UNFIT_SHARE, "memory mappings");
        switchTo(AdaptiveFile.MAPPED, false);
      }
      releaseUnused();
      return;
    }
    if (path == AdaptiveFile.CACHE) {
      if (fixedCacheBytes == 0) {
        followMemory(budget, falling);
      }
      return;
    }
    if (fixedCacheBytes == 0 && (falling || (cache == null && budget < MIN_CACHE_BYTES))) {
      // No room for memory the kernel cannot take back, or memory is being taken now: stay on the
      // page cache, read with pread and no readahead, whose pages the kernel reclaims more cheaply
      // than mapped ones.
      if (path != AdaptiveFile.PAGE_CACHE) {
        log(open, left, why, "exceed " + FIT_SHARE, "the page cache with pread, without readahead ("
            + (falling ? "memory left fell by " + ((previous - left) >> 20) + " MiB since the last look: no cache while it falls"
                : "no room for a block cache of at least " + (MIN_CACHE_BYTES >> 20) + " MiB after the slack") + ")");
        switchTo(AdaptiveFile.PAGE_CACHE, true);
      }
      releaseUnused(); // a cache from an earlier spell, not read on this path
      return;
    }
    if (cacheLocked(budget) != null) {
      log(open, left, why, "exceed " + FIT_SHARE, "a block cache of " + (cache.budgetBytes() >> 20) + " MiB");
      if (fixedCacheBytes == 0) {
        followMemory(budget, false); // a cache made earlier, when more memory was left, grows no further
      }
      switchTo(AdaptiveFile.CACHE, true);
    }
  }

  /**
   * Keeps the cache's committed memory within {@code budget}, its share of the memory left for
   * files now: it may grow up to it, by at most {@value #GROWTH_STEP_MIB} MiB before the next look
   * (so that a neighbour taking memory fast meets a cache that grows slowly), not at all while
   * memory falls, and no further; if it holds more by over {@value #SHRINK_MARGIN_MIB} MiB (a
   * neighbour took memory after the cache filled), it gives the rest back ({@link
   * BlockCache#shrink}), so that the container's limit is not reached by memory the kernel cannot
   * reclaim. Caller holds the lock.
   */
  private void followMemory(long budget, boolean falling) {
    long allocated = cache.stats().allocatedBytes();
    cache.limitGrowth(Math.min(budget, allocated + (falling ? 0 : GROWTH_STEP_MIB << 20)));
    if (allocated > budget + (SHRINK_MARGIN_MIB << 20)) {
      long now = cache.shrink(budget);
      LOG.log(
          logLevel,
          "AdaptiveDirectory: the block cache gave back {0} MiB: it held {1} MiB, more than the {2} MiB it may hold"
              + " now (the memory left for file pages less the slack)",
          (allocated - now) >> 20,
          allocated >> 20,
          budget >> 20);
    }
  }

  /**
   * While inputs read their mappings or the page cache, the cache is not read: its memory, which
   * the kernel cannot reclaim, goes back to the page cache they read (all of it but a chunk; the
   * cache fills again, a step per look, if inputs come back to it). Merges and read-once inputs
   * may still read around it. Caller holds the lock.
   */
  private void releaseUnused() {
    if (cache != null && fixedCacheBytes == 0 && cache.stats().allocatedBytes() > (SHRINK_MARGIN_MIB << 20)) {
      long before = cache.stats().allocatedBytes();
      long now = cache.shrink(0);
      LOG.log(logLevel, "AdaptiveDirectory: the block cache gave back {0} MiB: inputs read "
          + (path == AdaptiveFile.MAPPED ? "memory mappings" : "the page cache"),
          (before - now) >> 20);
    }
  }

  private void log(long open, long left, CharSequence why, String relation, String path) {
    LOG.log(
        logLevel,
        "AdaptiveDirectory: {0} MiB of index files open {1} of the {2} MiB left for file pages ({3}): reading through {4}",
        open >> 20,
        relation,
        left >> 20,
        why,
        path);
  }

  /**
   * The memory left for file pages and the slack the cache leaves of it.
   *
   * @param left the limit minus what the kernel cannot reclaim, plus the cache's own memory
   * @param slack what a cache leaves beside it for the JVM's own files and growth
   */
  private record MemoryLeft(long left, long slack) {
    /** What the cache may hold: the memory left minus the slack, at least 0. */
    long cacheBudget() {
      return Math.max(0, left - slack);
    }
  }

  /**
   * The memory left for file pages now. Caller holds the lock.
   *
   * @param why if not null, receives the formula with its figures
   */
  private MemoryLeft memoryLeft(StringBuilder why) throws IOException {
    ContainerMemory.Reading r = memory.read();
    long own = cache == null ? 0 : cache.stats().allocatedBytes();
    long slack = fixedSlackBytes >= 0 ? fixedSlackBytes : slackBytes(r.limitBytes());
    long left = Math.min(r.limitBytes(), r.availableForFilesBytes() + own);
    if (why != null) {
      why.append(String.format(Locale.ROOT, "limit %d MiB - unreclaimable %d MiB + block cache %d MiB, from %s;"
              + " a cache gets that - slack %d MiB", r.limitBytes() >> 20, r.unreclaimableBytes() >> 20, own >> 20,
          r.source(), slack >> 20));
    }
    return new MemoryLeft(left, slack);
  }

  /**
   * What this regime does, in one line for an operator's log: the mode, the rule or the cache's
   * size it follows, and the memory figures it reads now with the formula of the memory left for
   * file pages. Reads the figures anew; if they cannot be read, says so instead of them.
   */
  String describe() {
    lock.lock();
    try {
      String name = "mode " + mode.name().toLowerCase(Locale.ROOT);
      if (!nativeAccess) {
        return name + ": memory mappings only, with no block cache (native access is off: "
            + NativeAccess.unavailableReason().orElse("?") + ")";
      }
      if (mode == Mode.MAPPED) {
        return name + " (" + MODE_PROPERTY + "): memory mappings always, with no block cache";
      }
      String slackRule = "slack = " + MIN_SLACK_MIB + " MiB + " + SLACK_HEAP_PERCENT + "% of the maximum heap, "
          + (Runtime.getRuntime().maxMemory() >> 20) + " MiB";
      String left;
      String cacheSize;
      try {
        StringBuilder why = new StringBuilder();
        MemoryLeft m = memoryLeft(why);
        left = "the memory left for file pages (" + (m.left() >> 20) + " MiB now = " + why + ")";
        cacheSize = "the memory left for file pages less the slack (" + (m.cacheBudget() >> 20) + " MiB now; " + slackRule
            + "), at least " + (MIN_CACHE_BYTES >> 20) + " MiB";
      } catch (IOException e) {
        left = "the memory left for file pages (unknown now, the memory figures cannot be read: " + e.getMessage() + ")";
        cacheSize = "the memory left for file pages less the slack (" + slackRule + "), at least " + (MIN_CACHE_BYTES >> 20) + " MiB";
      }
      if (fixedCacheBytes > 0) {
        cacheSize = (fixedCacheBytes >> 20) + " MiB (" + CACHE_BYTES_PROPERTY + ")";
      }
      return switch (mode) {
        case CACHED -> name + " (" + MODE_PROPERTY + "): a block cache of " + cacheSize + " always";
        case ALTERNATE -> name + " (" + MODE_PROPERTY + ", for tests): switches at every open, clone, slice and prefetch";
        default -> name + ": memory mappings while the open index files are at most " + FIT_SHARE + " of " + left
            + "; beyond that a block cache of " + cacheSize + ", and mappings again below " + UNFIT_SHARE;
      };
    } finally {
      lock.unlock();
    }
  }

  /** The slack left beside file pages for the JVM's own files and growth. */
  static long slackBytes(long limitBytes) {
    return slackBytes(limitBytes, Runtime.getRuntime().maxMemory());
  }

  /**
   * The slack for a JVM of {@code maxHeapBytes} under {@code limitBytes}: {@value #MIN_SLACK_MIB}
   * MiB plus {@value #SLACK_HEAP_PERCENT}% of the smaller of the two (a heap cannot use more than the
   * limit; {@link Long#MAX_VALUE}, no heap limit, counts as the limit).
   */
  static long slackBytes(long limitBytes, long maxHeapBytes) {
    return (MIN_SLACK_MIB << 20) + Math.min(limitBytes, maxHeapBytes) / 100 * SLACK_HEAP_PERCENT;
  }

  /** Sets the read path and the mappings' advice. Caller holds the lock. */
  private void switchTo(int next, boolean random) {
    path = next;
    for (AdaptiveFile f : files) {
      f.follow(next);
    }
    if (users > 0) {
      CompiledPath.follow(this, compiledPath(next)); // after the files: a read that sees it finds its file there
    }
    if (random != randomAdvice) {
      randomAdvice = random;
      for (AdaptiveFile f : files) {
        f.adviseMapping(random ? MapAdvice.RANDOM : MapAdvice.NORMAL);
      }
    }
  }

  /** For {@link MappedFiles}' users: whether a mapping should be advised RANDOM when it is made. */
  MapAdvice mappingAdvice() {
    return randomAdvice ? MapAdvice.RANDOM : MapAdvice.NORMAL;
  }
}
