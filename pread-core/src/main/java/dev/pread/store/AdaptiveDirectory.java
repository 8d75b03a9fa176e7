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
import org.apache.lucene.store.LockFactory;
import org.apache.lucene.store.MemorySegmentAccessInput;
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
 * directory in the JVM: {@code O_DIRECT} reads of 16 KiB blocks into memory sized from the
 * container (its memory limit, or the machine's memory, minus what the kernel cannot reclaim, minus
 * a slack), with scan-resistant admission, so a query's misses cost one small read each instead of
 * the page faults with readahead that make mmap thrash under a memory limit. Merges and read-once
 * inputs keep reading the mapping and so never displace the blocks queries use.
 *
 * <p>The choice is made for all adaptive directories of the JVM together, at most once a second,
 * from the total size of their open files and the kernel's memory figures; every switch is logged
 * with its figures. Open inputs follow a switch at their next read. The system properties {@code
 * dev.pread.adaptive.mode} ({@code auto}, {@code mapped}, {@code cached}) and {@code
 * dev.pread.adaptive.cache.bytes} override the choice and the cache's size.
 *
 * <p><b>Memory.</b> The block cache is created at the first switch to it, and its memory, which the
 * kernel cannot reclaim, is freed when the last adaptive directory closes. Where the memory left
 * for file pages is too small for a cache of 16 MiB, inputs read the page cache with {@code pread}
 * and no readahead instead, as {@link PreadDirectory} does. Each open file is one
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
 * <p>Writing, deleting, renaming and syncing are {@link FSDirectory}'s. Thread-safe.
 */
public class AdaptiveDirectory extends FSDirectory {
  private final AdaptiveRegime regime;
  private final AtomicBoolean released = new AtomicBoolean();

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
    return cache != null ? cache.stats() : new BlockCacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    ensureCanRead(name);
    Path path = getDirectory().resolve(name);
    // Lucene's test file systems wrap the default one; the kernel needs the real path.
    Path real = Unwrappable.unwrapAll(path);
    regime.maybeCheck();
    AdaptiveFile file = AdaptiveFile.open(real, CachedPreadDirectory.inserts(context), regime);
    return new AdaptiveIndexInput("AdaptiveIndexInput(path=\"" + path + "\")", file, regime);
  }

  @Override
  public synchronized void close() throws IOException {
    try {
      super.close();
    } finally {
      if (released.compareAndSet(false, true)) {
        regime.release();
      }
    }
  }
}
