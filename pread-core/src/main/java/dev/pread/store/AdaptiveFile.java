package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.CachedFile;
import dev.pread.nativeio.MappedFiles;
import dev.pread.nativeio.NativeFile;
import dev.pread.nativeio.MappedFiles.MapAdvice;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.util.IOUtils;

/**
 * One opened file of an {@link AdaptiveDirectory}, shared by its input, clones and slices: the
 * file mapped read-only, and, once inputs read through the block cache, the file opened in it.
 *
 * <p>An input that may read the cache also holds a descriptor of the file, from which the cache
 * opens it when first needed, so that a file Lucene deleted while it was open can still be read
 * through the cache. Close (by the input that opened it) unmaps the file, closes it in the cache
 * and closes the descriptor. A clone
 * reading at that moment gets {@link AlreadyClosedException}: the mapping's arena is shared, and
 * closing it makes racing accesses fail instead of touching unmapped memory.
 *
 * <p>Thread-safe.
 */
final class AdaptiveFile {
  /**
   * {@link #readPath} values: read the mapping, the block cache, or the page cache with {@code
   * pread}; or the file shrank.
   */
  static final int MAPPED = 0, CACHE = 1, PAGE_CACHE = 3, TRUNCATED = 2;

  /**
   * The buffer of the reader that reads this file through the page cache, and so its largest
   * refill: twice {@code PreadDirectory}'s default. On that path memory is short and a miss is a
   * read from storage the query waits for; a stored document's compressed block (header,
   * dictionary and the sub-blocks up to the document) mostly fits in 32 KiB, so that its fetch is
   * one read rather than two or three ({@link RunLengths}). A clone's buffer grows to it only in a
   * file read in runs that long.
   */
  static final int PAGE_CACHE_BUFFER_SIZE = 32 * 1024;

  /**
   * The buffer of {@link #aroundCache()}: the size its sequential refills grow to. Those reads go to
   * storage in the idle I/O class, where each waits for a moment when no query's read is queued or
   * in flight; a merge that read in small pieces would pay that wait for every piece and make
   * almost no progress while queries keep the disk busy (a codec's checksum pass, which reads a
   * segment's stored fields whole before the merge copies them, became most of the merge's time).
   * Large pieces pay it rarely. A refill after a jump still starts small, so random reads (a vector
   * graph built over vectors just merged) read no more than they need. The cost is heap: up to this
   * much per input that a merge or read-once input reads sequentially, for as long as it is open.
   */
  static final int AROUND_CACHE_BUFFER_SIZE = 256 * 1024;

  /**
   * The share of a file's pages the page cache must hold when a merge thread opens it for the file
   * to read its mapping whatever the mode ({@link #mapsAlways}). A merge reads back at random parts
   * of the segment it is writing, a few bytes at a time (a document's norm for each posting, a
   * vector for each comparison while it builds the vector graph): millions of reads, each a system
   * call and a copy of a page or two around the cache, where the mapping serves them as memory
   * loads from pages the merge wrote moments before. A file the page cache holds less of (a
   * segment the merge reads from, once, in order) reads as every merge input does, so the merge
   * fills no page cache with it. The trade-off: a page of such a file evicted while the merge
   * runs is read back alone, at a fault, and stays in the page cache until the kernel reclaims it.
   */
  static final double MERGE_MAPS_CACHED_SHARE = 0.75;

  /** A read path's name, for messages. */
  static String pathName(int path) {
    return switch (path) {
      case MAPPED -> "mappings";
      case CACHE -> "block cache";
      case PAGE_CACHE -> "page cache";
      default -> "truncated";
    };
  }

  final Path path;
  final long size;
  final MemorySegment map;
  /**
   * False for merges and read-once inputs: they never fill the cache (they read around it while
   * queries read it) and are not counted in the regime's open bytes.
   */
  final boolean usesCache;

  /**
   * How inputs read this file now. Plain on purpose: every read of every input looks at it, and a
   * reader that sees a switch late reads the same bytes the other way. Written under the regime's
   * lock.
   */
  int readPath;

  /**
   * True once the file was closed or found {@link #TRUNCATED}: sequential reads then stop taking
   * bytes from their inputs' buffers and go the way that throws. Plain for the reason {@link
   * #readPath} is, and a field rather than a method so that the look costs no call in the decoding
   * loops whatever the JIT's profile (see {@code AdaptiveIndexInput.copyUsable}).
   */
  boolean copiesBarred;

  private final AdaptiveRegime regime;
  /**
   * True for a file a merge thread opened while inputs did not read mappings and the page cache
   * held nearly all of it (the segment the merge is writing: the norms its postings writer reads
   * back, the vectors its graph builder reads at random): it reads its mapping whatever the
   * regime's mode ({@link #MERGE_MAPS_CACHED_SHARE}). Cleared for good when a thread other than
   * a merge's makes an input of it ({@link #noteQueryInput}): then queries read it too (the reader
   * a writer opens on a merged segment in the merge thread, as OpenSearch's merged-segment warmer
   * has it, serves near-real-time searches), and it follows the regime's path. Written under the
   * regime's lock.
   */
  volatile boolean mapsAlways;
  private final Object fileKey;
  /**
   * The file held open for the block cache, which may need it after the path was deleted (Lucene
   * deletes files that readers still have open); null for inputs that never read the cache.
   */
  private final NativeFile handle;
  private final Arena arena;
  private volatile CachedFile cached;
  /** The whole file through the page cache with pread and RANDOM advice; made on first use. */
  private volatile PreadIndexInput pageCache;
  /** Merges and read-once inputs while queries read the cache: reads around it, made on first use. */
  private volatile PreadIndexInput aroundCache;
  private volatile boolean closed;
  /** Guards marking the file truncated against its close ({@link #markTruncated}); a leaf lock. */
  private final Object truncation = new Object();

  private AdaptiveFile(
      Path path,
      long size,
      Object fileKey,
      NativeFile handle,
      MemorySegment map,
      Arena arena,
      boolean usesCache,
      boolean mapsAlways,
      AdaptiveRegime regime) {
    this.handle = handle;
    this.mapsAlways = mapsAlways;
    this.path = path;
    this.size = size;
    this.fileKey = fileKey;
    this.map = map;
    this.arena = arena;
    this.usesCache = usesCache;
    this.regime = regime;
  }

  /** Maps {@code path} (the real path, for the kernel) and registers it with {@code regime}. */
  static AdaptiveFile open(Path path, boolean usesCache, AdaptiveRegime regime) throws IOException {
    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
    long size = attributes.size();
    Arena arena = Arena.ofShared();
    NativeFile handle = null;
    try {
      handle = regime.hasCache() ? NativeFile.open(path) : null;
      MemorySegment map = MappedFiles.map(path, size, arena);
      boolean mapsAlways = handle != null && size > 0 && regime.path() != MAPPED
          && MergeThreads.isMergeThread(Thread.currentThread())
          && handle.cachedPages(0, size)
              >= (size + MappedFiles.PAGE - 1) / MappedFiles.PAGE * MERGE_MAPS_CACHED_SHARE;
      AdaptiveFile f = new AdaptiveFile(path, size, attributes.fileKey(), handle, map, arena, usesCache, mapsAlways, regime);
      // a file a merge maps reads at random (a page it finds evicted is read alone), others as they read
      MapAdvice advice = mapsAlways ? MapAdvice.RANDOM : usesCache ? regime.mappingAdvice() : MapAdvice.NORMAL;
      if (advice != MapAdvice.NORMAL) {
        f.adviseMapping(advice);
      }
      regime.register(f);
      return f;
    } catch (Throwable t) {
      try {
        if (handle != null) {
          handle.close();
        }
      } catch (IOException | RuntimeException suppressed) {
        t.addSuppressed(suppressed);
      }
      arena.close();
      throw t;
    }
  }

  /** The file in the block cache, opened on first use. */
  CachedFile cached() throws IOException {
    CachedFile c = cached;
    return c != null ? c : openCached();
  }

  private synchronized CachedFile openCached() throws IOException {
    if (closed) {
      throw new AlreadyClosedException("already closed: " + path);
    }
    if (cached == null) {
      BlockCache cache = regime.cache();
      if (cache == null || handle == null) {
        throw new IllegalStateException(path + ": no block cache without native access");
      }
      cached = cache.open(handle, usesCache); // merges and read-once inputs read around the cache
    }
    return cached;
  }

  /** Sets the read path for the regime's mode, unless the file shrank. Caller holds the regime's lock. */
  void follow(int path) {
    if (readPath != TRUNCATED) {
      // Merges and read-once inputs read as queries do, without filling the cache: around the
      // block cache with O_DIRECT while queries read it, the page cache with pread and no
      // readahead while they read that (a mapping's readahead would evict their pages), and their
      // mapping while the index fits. A file a merge opened while it was cached reads its mapping.
      readPath = mapsAlways ? MAPPED : path;
    }
  }

  /**
   * Marks the file {@link #TRUNCATED} if the file at its path is the one opened (same file key) and
   * is now shorter than at open: from then on every read of it throws an IOException naming it,
   * instead of touching mapped pages past its end, which the JVM reports as an {@link InternalError}.
   * A file that was deleted or replaced keeps its mapping (Lucene deletes files that are still open).
   */
  void checkSize() {
    try {
      BasicFileAttributes now = Files.readAttributes(path, BasicFileAttributes.class);
      if (now.size() < size && fileKey != null && fileKey.equals(now.fileKey())) {
        markTruncated();
      }
    } catch (IOException e) {
      // deleted: its pages stay readable through the mapping
    }
  }

  /**
   * Marks the file {@link #TRUNCATED}, once, and tells {@link CompiledPath}, whose mapped reads do
   * not look at their file's path: while a truncated file is open the constant is not {@link
   * #MAPPED}, so that every read of this file looks and throws. Under {@link #truncation}, as is
   * {@link #close}'s part, so that a file counted as truncated is uncounted exactly once; not under
   * this file's monitor, which {@link #openCached} holds while it takes the regime's lock, and the
   * caller holds the regime's lock.
   */
  private void markTruncated() {
    synchronized (truncation) {
      if (closed || readPath == TRUNCATED) {
        return;
      }
      readPath = TRUNCATED;
      copiesBarred = true;
      CompiledPath.truncated(true);
    }
  }

  /** Bytes in the file now, or -1 if that cannot be read; for error messages. */
  long currentSize() {
    try {
      return Files.size(path);
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * An input of the whole file that reads what the block cache holds and the rest around it with
   * {@code O_DIRECT}, without inserting: for merges and read-once inputs. Made on first use.
   */
  PreadIndexInput aroundCache() throws IOException {
    PreadIndexInput p = aroundCache;
    return p != null ? p : openAroundCache();
  }

  private synchronized PreadIndexInput openAroundCache() throws IOException {
    if (aroundCache == null) {
      aroundCache = new PreadIndexInput("AdaptiveIndexInput(path=\"" + path + "\", around the block cache)",
          new BlockCacheSource(cached()), AROUND_CACHE_BUFFER_SIZE, false);
    }
    return aroundCache;
  }

  /** An input of the whole file reading the page cache with {@code pread}, made on first use. */
  PreadIndexInput pageCache() throws IOException {
    PreadIndexInput p = pageCache;
    return p != null ? p : openPageCache();
  }

  private synchronized PreadIndexInput openPageCache() throws IOException {
    if (closed) {
      throw new AlreadyClosedException("already closed: " + path);
    }
    if (pageCache == null) {
      if (handle == null) {
        throw new IllegalStateException(path + ": no pread without native access");
      }
      NativeFile file = handle.reopen(false); // a descriptor of its own, for its own advice
      try {
        file.advise(0, 0, dev.pread.nativeio.Advice.RANDOM);
      } catch (IOException e) {
        // advice is a hint: read on without it
      }
      if (!usesCache) {
        // Merges and read-once inputs leave no page of their own behind: the queries' pages, which
        // this path keeps in little memory, stay (pages a merge finds cached stay too).
        file.dropBehind();
      }
      // Merges read the page cache at their thread's own I/O class: the queries' misses keep the
      // disk busy on this path, and an idle merge there wrote a fifth of what MMapDirectory's did.
      // A query's reads go first while the disk is slow (SlowReads).
      pageCache = new PreadIndexInput("AdaptiveIndexInput(path=\"" + path + "\", page cache)",
          new PageCacheSource(file, usesCache ? SlowReads.SHARED : null), PAGE_CACHE_BUFFER_SIZE, true);
    }
    return pageCache;
  }

  /**
   * Called when a thread makes a clone or slice of an input of this file: if it is not a merge
   * thread and a merge mapped the file ({@link #mapsAlways}), the file follows the regime's read
   * path from now on. A volatile read otherwise.
   */
  void noteQueryInput() {
    if (mapsAlways && !MergeThreads.isMergeThread(Thread.currentThread())) {
      regime.releaseMergeMapping(this);
    }
  }

  void adviseMapping(MapAdvice advice) {
    if (size > 0) {
      MappedFiles.advise(map, 0, size, advice);
    }
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * {@link #isClosed()} as a plain read, for checks on every position query: the thread that
   * closed the file sees it at once, other threads soon; their reads fail at the mapping or the
   * reader in any case. A volatile read there kept the JIT from keeping the input's fields in
   * registers across the decoding loops that call it.
   */
  boolean isClosedPlain() {
    return (boolean) CLOSED.get(this);
  }

  private static final java.lang.invoke.VarHandle CLOSED;

  static {
    try {
      CLOSED = java.lang.invoke.MethodHandles.lookup().findVarHandle(AdaptiveFile.class, "closed", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    copiesBarred = true;
    synchronized (truncation) {
      if (readPath == TRUNCATED) {
        CompiledPath.truncated(false);
      }
    }
    regime.unregister(this);
    try {
      IOUtils.close(aroundCache, cached, pageCache, handle);
    } finally {
      arena.close();
    }
  }
}
