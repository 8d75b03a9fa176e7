package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.nativeio.NativeAccess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.LockFactory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.ReadOnceHint;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.Unwrappable;

/**
 * An {@link FSDirectory} that reads files with {@code O_DIRECT} into a {@link BlockCache} of fixed
 * size off the Java heap, and serves reads from it.
 *
 * <p>Where {@link PreadDirectory} and {@code MMapDirectory} leave caching to the kernel's page
 * cache, which a container's memory limit shrinks and which evicts by its own rules, this directory
 * keeps the blocks it reads in memory it sizes: a full cache is read without system calls, and
 * memory use does not grow with the index. The cache can be shared by several directories ({@link
 * #CachedPreadDirectory(Path, LockFactory, BlockCache)}); otherwise each directory has its own, of
 * {@link #DEFAULT_CACHE_BYTES} bytes or the size in the system property {@value
 * #CACHE_BYTES_PROPERTY}.
 *
 * <p><b>Contexts.</b> Inputs opened for merges or with {@link ReadOnceHint} read what is cached
 * and read the rest around the cache, so a merge does not flush the blocks queries use. Every other
 * input inserts what it misses, except in Lucene's merge threads: a merge of segments the writer
 * keeps open for near-real-time readers reads those readers' inputs, and its misses read around
 * the cache too (the cache's {@link BlockCache.Builder#readAroundIn} default, which a shared
 * cache can change). A file a merge thread opens with another context than a merge's (the
 * segment it writes, read back at random: norms for the postings, vectors for the graph; the
 * reader a writer opens on a merged segment for near-real-time search) inserts in every thread
 * ({@link BlockCache#openForCaller}).
 *
 * <p><b>Inputs</b> that insert read the cache's block memory in place ({@link
 * dev.pread.cache.BlockReader}): no buffer, no copy for a value, no pin. Merge and read-once inputs
 * keep a heap buffer of up to {@link PreadDirectory#DEFAULT_BUFFER_SIZE} bytes, refilled from the
 * cache as {@link PreadDirectory}'s are from the file. {@link IndexInput#prefetch} loads missing
 * blocks on the cache's prefetch threads.
 *
 * <p><b>Native access</b> is needed, as for {@link PreadDirectory}; without it inputs are those of
 * {@link NIOFSDirectory}, after one warning per JVM. {@link #isCached()} tells which.
 *
 * <p><b>Hot set.</b> As {@link AdaptiveDirectory} does, the directory records which blocks of its
 * files its cache held (in {@value AdaptiveDirectory#HOT_SET_FILE}, not listed by {@link
 * #listAll()}) and loads them into the cache's free blocks in the background when it opens; the
 * same system properties apply, and {@link #hotSetStats()} counts what it did.
 *
 * <p>Writing, deleting, renaming and syncing are {@link FSDirectory}'s. Thread-safe. Closing the
 * directory closes the cache it created, not a shared one.
 */
public class CachedPreadDirectory extends FSDirectory {
  /** Size of a directory's own cache when the system property is not set: 64 MiB. */
  public static final long DEFAULT_CACHE_BYTES = 64L << 20;

  /**
   * System property with the size in bytes of a directory's own cache (not of a shared one), for
   * use where the directory is created by class name (Lucene's {@code -Dtests.directory}).
   */
  public static final String CACHE_BYTES_PROPERTY = "dev.pread.cache.bytes";

  private final BlockCache cache;
  private final boolean ownsCache;
  private final DirectoryInputs inputs;
  /** Null when the hot set is off, or without native access. */
  private final HotSet hotSet;

  /** A directory at {@code path} with {@link FSLockFactory#getDefault()} and a cache of its own. */
  public CachedPreadDirectory(Path path) throws IOException {
    this(path, FSLockFactory.getDefault());
  }

  /** A directory at {@code path} with a cache of its own (see the class documentation for its size). */
  public CachedPreadDirectory(Path path, LockFactory lockFactory) throws IOException {
    this(path, lockFactory, null, true);
  }

  /**
   * A directory at {@code path} reading through {@code cache}, which it does not close.
   *
   * @throws org.apache.lucene.store.AlreadyClosedException if the cache is closed
   */
  public CachedPreadDirectory(Path path, LockFactory lockFactory, BlockCache cache) throws IOException {
    this(path, lockFactory, Objects.requireNonNull(cache, "cache"), false);
  }

  private CachedPreadDirectory(Path path, LockFactory lockFactory, BlockCache shared, boolean own)
      throws IOException {
    super(path, lockFactory);
    // A shared cache was built with native access; only a directory's own cache can fall back.
    Optional<String> reason = own ? NativeAccess.unavailableReason() : Optional.empty();
    this.inputs =
        new DirectoryInputs(
            CachedPreadDirectory.class,
            path,
            lockFactory,
            reason,
            "CachedPreadDirectory: native access is off ({0}); reading through FileChannel like"
                + " NIOFSDirectory, with no block cache");
    if (!inputs.isNative()) {
      this.cache = null;
      this.ownsCache = false;
      this.hotSet = null;
      return;
    }
    if (shared != null && shared.isClosed()) {
      throw new org.apache.lucene.store.AlreadyClosedException("block cache is closed: " + shared);
    }
    this.ownsCache = own;
    this.cache = own ? BlockCache.builder(ownCacheBytes()).name("dir:" + path.getFileName()).build() : shared;
    HotSet h = null;
    try {
      h = HotSet.enabled() ? new HotSet(new Host()) : null;
    } catch (RuntimeException | Error e) {
      IOUtils.closeWhileSuppressingExceptions(e, ownsCache ? cache : null, inputs);
      throw e;
    }
    this.hotSet = h;
  }

  /** What the hot set reads of this directory: everything goes to its block cache. */
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
      return HotSet.Tier.BLOCK_CACHE;
    }

    @Override
    public BlockCache cache(boolean create) {
      return cache;
    }

    @Override
    public long pageCacheBudget() {
      return 0;
    }
  }

  /** The hot set's counters: all zero when it is off or there was no record. */
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
   * Deletes {@code name}, as {@link FSDirectory#deleteFile} does; {@value
   * AdaptiveDirectory#HOT_SET_FILE} can be deleted too (it is written again at the next record).
   */
  @Override
  public void deleteFile(String name) throws IOException {
    super.deleteFile(name);
    if (hotSet != null) {
      hotSet.release(name);
    }
  }

  private static long ownCacheBytes() {
    String value = System.getProperty(CACHE_BYTES_PROPERTY);
    if (value == null || value.isBlank()) {
      return DEFAULT_CACHE_BYTES;
    }
    return NumberProperty.parse(CACHE_BYTES_PROPERTY, value, 1, Long.MAX_VALUE, "a positive number of bytes");
  }

  /** True when inputs read through the block cache; false when they are NIOFSDirectory's. */
  public boolean isCached() {
    return cache != null;
  }

  /** The cache inputs read through, or null on the fallback path. */
  public BlockCache getCache() {
    return cache;
  }

  /** The cache's counters; all zero on the fallback path. */
  public BlockCacheStats stats() {
    return cache != null ? cache.stats() : new BlockCacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /**
   * Whether inputs opened from now on act on {@link IndexInput#prefetch} (the default) or ignore it.
   * Inputs already open keep the setting they were opened with.
   */
  public void setPrefetch(boolean enabled) {
    inputs.setPrefetch(enabled);
  }

  /** True when inputs opened from now on act on prefetch. */
  public boolean isPrefetch() {
    return inputs.isPrefetch();
  }

  /** False for merges and read-once inputs, which read misses around the cache. */
  static boolean inserts(IOContext context) {
    return context.context() != IOContext.Context.MERGE && !context.hints().contains(ReadOnceHint.INSTANCE);
  }

  /**
   * True if {@code context} says reads will be random ({@link DataAccessHint#RANDOM}: Lucene's
   * stored fields, term vectors and vectors): their block readers take no extra block on a walk
   * into the next one ({@link dev.pread.cache.BlockReader}).
   */
  static boolean randomAccess(IOContext context) {
    return context.hints().contains(DataAccessHint.RANDOM);
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    ensureCanRead(name);
    boolean inserts = inserts(context);
    if (inserts && hotSet != null) {
      hotSet.noteRead();
    }
    return inputs.open(
        getDirectory(),
        name,
        context,
        "CachedPreadIndexInput",
        real -> inserts ? cache.openForCaller(real) : cache.open(real, false),
        (file, description, prefetch) ->
            inserts
                ? new CachedIndexInput(description, file, prefetch, randomAccess(context))
                : new PreadIndexInput(
                    description, new BlockCacheSource(file), PreadDirectory.DEFAULT_BUFFER_SIZE, prefetch));
  }

  @Override
  public synchronized void close() throws IOException {
    IOUtils.close(hotSet, inputs, ownsCache ? cache : null, super::close);
  }
}
