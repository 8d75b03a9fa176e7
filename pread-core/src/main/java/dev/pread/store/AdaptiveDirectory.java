package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.cache.ContainerMemory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.LockFactory;
import org.apache.lucene.store.MemorySegmentAccessInput;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.Unwrappable;

/**
 * The directory to use when you do not know whether the index fits in memory: it reads through
 * memory mappings while the open index files fit in the memory left for file pages, and through a
 * block cache of its own once they do not, and follows when that changes while it runs.
 *
 * <p><b>While the index fits</b>, inputs read the file's mapping, as {@code MMapDirectory}'s do:
 * reads are loads from the page cache, the kernel's readahead fills it on a cold start, and Lucene's
 * vector scorers and postings decoders read the mapping without a copy ({@link
 * MemorySegmentAccessInput}).
 *
 * <p><b>Once it does not</b>, inputs read through one {@link BlockCache} shared by every adaptive
 * directory in the JVM: {@code O_DIRECT} reads of 8 KiB blocks into memory sized from the
 * container (its memory limit, or the machine's memory, minus what the kernel cannot reclaim, minus
 * a slack for the JVM's own growth, which mapped pages would give way to and a cache does not),
 * with scan-resistant admission, so a query's misses cost one small read each instead of
 * the page faults with readahead that make mmap thrash under a memory limit. A miss whose bytes the
 * page cache still holds (right after a switch from the mappings, after a restart, in files just
 * written) is copied from it instead ({@link BlockCache.Builder#fillFromPageCache}): the cache
 * fills at memory speed from what the kernel has not reclaimed yet, for one {@code cachestat}
 * call per miss. Merges and read-once inputs never put blocks into the cache: they read what it
 * holds and the rest around it with {@code O_DIRECT}, so they neither displace the blocks queries
 * use nor fill the page cache that the container's limit counts beside the cache. So does a merge
 * thread reading an input that queries opened: a merge of segments whose readers the writer keeps
 * for near-real-time search reads through those readers, and the segment a merge writes may be
 * opened for the vector graph it builds. Their large reads from storage, a sequential run's
 * refills, are made in the idle I/O class ({@link BlockCache.Builder#idleReadsAround}), so the
 * queries' misses do not wait behind a merge's reads, at the cost of a merge that runs slower while
 * queries keep the disk busy; a small read (a vector graph being built reads one vector at a time,
 * at random, and waits for each) keeps the thread's class, where it costs the disk little. Where
 * inputs read the page cache with {@code pread}, merges do too, without readahead, and the pages
 * their reads bring in are dropped once copied ({@link dev.pread.nativeio.NativeFile#dropBehind()},
 * Linux 6.14+): the queries' pages stay, at the cost of a merge that reads again from storage what
 * it reads twice. On either path, a file that a merge thread opens while the page cache holds at
 * least three quarters of it (the segment it is writing, whose norms and vectors it reads back at
 * random, a few bytes at a time, millions of times) reads its mapping, advised random: loads from
 * the pages it wrote, instead of a system call and a page copy each; a page evicted meanwhile is
 * read back alone, at a fault, and stays in the page cache until the kernel reclaims it.
 *
 * <p>The choice is made for all adaptive directories of the JVM together, at most once a second,
 * from the total size of their open files and the kernel's memory figures; every switch is logged
 * with its figures. Open inputs follow a switch at their next read. The system properties {@code
 * dev.pread.adaptive.mode} ({@code auto}, {@code mapped}, {@code cached}) and {@code
 * dev.pread.adaptive.cache.bytes} override the choice and the cache's size; {@code
 * dev.pread.adaptive.merge.idle=false} keeps merges' reads in their thread's own I/O class.
 *
 * <p><b>Merges and the CPU.</b> A {@code ConcurrentMergeScheduler} merge thread (the kind
 * OpenSearch uses) that creates a merged segment's file here runs at nice 10 for
 * the rest of its merge, so that on a machine with few cores queries keep the CPU while a merge
 * runs; the thread ends with its merge, and with it the lower priority. The trade-off: while
 * queries keep every core busy, merges get a small share and take longer. {@code
 * dev.pread.adaptive.merge.nice} sets the value (1 to 19), 0 leaves merge threads alone. Other
 * threads are never changed: a nice value cannot be lowered again without privilege.
 *
 * <p><b>Memory.</b> The block cache is created at the first switch to it. Its memory, which the
 * kernel cannot reclaim, follows the memory left for file pages: it grows by at most a step at each
 * look and not while another process in the container is taking memory, gives back what such a
 * process took, and all but a chunk while inputs read mappings again; it is freed when the last
 * adaptive directory closes. Where the memory left for file pages less the slack is too small for a
 * cache of 16 MiB, or memory is falling when the index stops fitting, inputs read the page cache
 * with {@code pread} and no readahead instead, as {@link PreadDirectory} does. Each open file is one
 * memory mapping ({@code vm.max_map_count}, 65530 by default, bounds the files a JVM can have open
 * through mappings, as for {@code MMapDirectory}), and each open file that queries read holds a
 * descriptor, as with {@link PreadDirectory}, so that the cache can read a file that was deleted
 * while open.
 *
 * <p><b>Errors.</b> Reads after close throw {@code AlreadyClosedException}. A file truncated
 * under an open input is noticed at the next look at memory (at most a second later, see below):
 * from then on its reads throw an {@link IOException} naming the file and both sizes. A mapped read
 * of a page past the new end before that look gets the same IOException where the JVM reports the
 * bus error at the read, and may get the JVM's {@link InternalError} where compiled code reports it
 * later, as with {@code MMapDirectory}; the process does not crash. Without
 * native access (see {@link PreadDirectory}) there is no block cache: inputs read mappings only,
 * after one warning.
 *
 * <p><b>Hot set.</b> So that a directory opened again after a restart (the page cache kept, the
 * block cache empty) or on a cold machine (a reboot, or the files copied elsewhere) reads near its
 * warm speed from its first seconds, the directory records which byte ranges of its files were
 * cached, and loads them again when it opens. What is recorded is where queries read at the time:
 * through mappings, the chunks of 256 KiB more than half of whose pages are in the page cache
 * ({@code cachestat(2)}, Linux 6.5+; nothing is recorded without it); through the block cache, its
 * blocks (and, for a file no longer open in it, the previous record's ranges while the file is
 * unchanged). Only files that end with a Lucene codec footer are recorded, identified by their
 * length and last 8 bytes (the footer's checksum); the record holds at most what the page-cache
 * budget or the block cache could hold. It is written to the file {@value #HOT_SET_FILE} in the
 * index directory, a name Lucene never uses or deletes, which {@link #listAll()} does not list (so
 * Lucene and replication never see it; {@link #deleteFile} deletes it if asked), every {@value
 * HotSet#DEFAULT_INTERVAL_SECONDS} seconds ({@value #HOT_SET_INTERVAL_PROPERTY}) and at close, once
 * the load at open is done, if an input was opened for queries, and if it changed. Writes are
 * crash-safe (a temporary file, synced, renamed atomically, the directory synced), and the record
 * carries a CRC-32C: a torn, truncated or otherwise invalid record is ignored as a whole (logged at
 * debug level), and a file that is missing or was replaced is skipped. At open, one daemon thread
 * shared by all directories of the JVM loads the recorded ranges, the files with the fewest
 * recorded bytes first, without blocking opens or reads: into the page cache with reads of up to 4
 * MiB (skipping what is cached already, at most the memory the files may use there), or, while
 * inputs read the block cache, into its free
 * blocks (never evicting one), holding the file open in the cache until the directory closes or
 * deletes it. The trade-off: loading reads the disk at open and competes with the first queries for
 * I/O, but in large sequential reads, which a device serves much faster than the small random
 * reads they save. Closing the directory stops a load at its current read. Set {@value
 * #HOT_SET_PROPERTY} to {@code false} to turn it off; {@link #hotSetStats()} counts what it did.
 *
 * <p>An interrupt neither fails an open nor a read: files are mapped with the opening thread's
 * interrupt status cleared and set again after, and reads make no interruptible call.
 *
 * <p>Writing, deleting, renaming and syncing are {@link FSDirectory}'s. Thread-safe.
 */
public class AdaptiveDirectory extends FSDirectory {
  /**
   * System property: {@code false} turns the hot set off for directories opened from then on
   * ({@code true} by default).
   */
  public static final String HOT_SET_PROPERTY = HotSet.ENABLED_PROPERTY;

  /**
   * System property: seconds between records of the hot set while a directory is open (60 by
   * default; 0 records at close only).
   */
  public static final String HOT_SET_INTERVAL_PROPERTY = HotSet.INTERVAL_PROPERTY;

  /** The name of the hot set's record in the index directory; see the class documentation. */
  public static final String HOT_SET_FILE = HotSetRecord.FILE_NAME;

  private final AdaptiveRegime regime;
  private final AtomicBoolean released = new AtomicBoolean();
  /** Null when the hot set is off. */
  private final HotSet hotSet;

  /** Creates a directory at {@code path} with {@link FSLockFactory#getDefault()}. */
  public AdaptiveDirectory(Path path) throws IOException {
    this(path, FSLockFactory.getDefault());
  }

  /** Creates a directory at {@code path} with the given lock factory. */
  public AdaptiveDirectory(Path path, LockFactory lockFactory) throws IOException {
    this(path, lockFactory, AdaptiveRegime.shared());
  }

  /** For tests: a directory using {@code regime} instead of the JVM's. */
  AdaptiveDirectory(Path path, LockFactory lockFactory, AdaptiveRegime regime) throws IOException {
    super(path, lockFactory);
    this.regime = regime;
    regime.acquire();
    HotSet h = null;
    try {
      h = HotSet.enabled() && regime.hasCache() ? new HotSet(new Host()) : null;
    } catch (RuntimeException | Error e) {
      if (released.compareAndSet(false, true)) {
        regime.release();
      }
      throw e;
    }
    this.hotSet = h;
  }

  /** What the hot set reads of this directory and its regime. */
  private final class Host implements HotSet.Host {
    private final Path real = Unwrappable.unwrapAll(getDirectory());

    @Override
    public Path directory() {
      return real;
    }

    @Override
    public String[] files() throws IOException {
      return listAll();
    }

    @Override
    public HotSet.Tier tier() {
      regime.maybeCheck();
      return regime.path() == AdaptiveFile.CACHE ? HotSet.Tier.BLOCK_CACHE : HotSet.Tier.PAGE_CACHE;
    }

    @Override
    public BlockCache cache(boolean create) throws IOException {
      return create ? regime.cache() : regime.existingCache();
    }

    @Override
    public long pageCacheBudget() {
      regime.maybeCheck();
      return regime.fitBytes();
    }
  }

  /** A regime of its own for tests: {@code mode} with a cache of {@code cacheBytes}. */
  static AdaptiveRegime regime(AdaptiveRegime.Mode mode, long cacheBytes) {
    return new AdaptiveRegime(mode, ContainerMemory.system(), cacheBytes);
  }

  /**
   * What the adaptive directories of this JVM do, in one line for a log: the mode ({@code
   * dev.pread.adaptive.mode}), when they switch to the block cache and its size ({@code
   * dev.pread.adaptive.cache.bytes}, or the formula of the memory left for file pages with the
   * figures the kernel reports now). Every switch is logged on its own when it happens.
   *
   * @throws IllegalArgumentException if one of the system properties is invalid, as the first
   *     directory's constructor would
   */
  public static String describeRegime() {
    return AdaptiveRegime.shared().describe();
  }

  /** The regime this directory follows; for tests. */
  AdaptiveRegime regime() {
    return regime;
  }

  /** How inputs of files that queries read are read now (merges and read-once inputs always map). */
  public enum ReadPath {
    /** Through memory mappings: the page cache with the kernel's readahead, as MMapDirectory. */
    MAPPINGS,
    /** Through the shared block cache. */
    BLOCK_CACHE,
    /** Through the page cache with pread and no readahead, as PreadDirectory. */
    PAGE_CACHE
  }

  /** How inputs read now; see {@link ReadPath}. */
  public ReadPath readPath() {
    return switch (regime.path()) {
      case AdaptiveFile.CACHE -> ReadPath.BLOCK_CACHE;
      case AdaptiveFile.PAGE_CACHE -> ReadPath.PAGE_CACHE;
      default -> ReadPath.MAPPINGS;
    };
  }

  /** True while inputs read through the block cache. */
  public boolean isReadingCache() {
    return readPath() == ReadPath.BLOCK_CACHE;
  }

  /** Total size of the files open through adaptive directories sharing this one's choice. */
  public long openFileBytes() {
    return regime.openBytes();
  }

  /** The block cache's counters; all zero before a cache was needed. */
  public BlockCacheStats cacheStats() {
    BlockCache cache = regime.existingCache();
    return cache != null ? cache.stats() : new BlockCacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /**
   * The hot set's counters: all zero when it is off or there was no record. Its load at open runs
   * while {@link HotSetStats#loading()}.
   */
  public HotSetStats hotSetStats() {
    return HotSetStats.of(hotSet);
  }

  /** For tests: completes when the load at open has finished or stopped; null if the hot set is off. */
  java.util.concurrent.CompletableFuture<HotSetStats> hotSetLoaded() {
    return hotSet != null ? hotSet.loaded() : null;
  }

  /** For tests: the hot set, or null if it is off. */
  HotSet hotSet() {
    return hotSet;
  }

  /** The directory's files, without the hot set's record and its temporary file. */
  @Override
  public String[] listAll() throws IOException {
    return HotSet.withoutRecord(super.listAll());
  }

  /**
   * Deletes {@code name}, as {@link FSDirectory#deleteFile} does; {@value #HOT_SET_FILE} can be
   * deleted too (it is written again at the next record).
   */
  @Override
  public void deleteFile(String name) throws IOException {
    super.deleteFile(name);
    if (hotSet != null) {
      hotSet.release(name);
    }
  }

  /**
   * {@link FSDirectory#createOutput}; a merge thread that creates a merge's output yields the CPU
   * (see the class documentation).
   */
  @Override
  public IndexOutput createOutput(String name, IOContext context) throws IOException {
    yieldIfMerge(context);
    return super.createOutput(name, context);
  }

  /**
   * {@link FSDirectory#createTempOutput}; a merge thread that creates a merge's temporary file
   * yields the CPU (see the class documentation).
   */
  @Override
  public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
    yieldIfMerge(context);
    return super.createTempOutput(prefix, suffix, context);
  }

  private void yieldIfMerge(IOContext context) {
    if (context.context() == IOContext.Context.MERGE) {
      MergeThreads.yieldCpu(regime.mergeNiceValue());
    }
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    ensureCanRead(name);
    Path path = getDirectory().resolve(name);
    // Lucene's test file systems wrap the default one; the kernel needs the real path.
    Path real = Unwrappable.unwrapAll(path);
    regime.maybeCheck();
    boolean inserts = CachedPreadDirectory.inserts(context);
    if (inserts && hotSet != null) {
      hotSet.noteRead();
    }
    AdaptiveFile file = AdaptiveFile.open(real, inserts, regime);
    return new AdaptiveIndexInput(
        "AdaptiveIndexInput(path=\"" + path + "\")", file, regime, CachedPreadDirectory.randomAccess(context));
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      IOUtils.close(hotSet, super::close);
    } finally {
      if (released.compareAndSet(false, true)) {
        regime.release();
      }
    }
  }
}
