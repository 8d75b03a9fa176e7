package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.CachedFile;
import dev.pread.nativeio.MappedFiles;
import dev.pread.nativeio.MappedFiles.MapAdvice;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * One opened file of an {@link AdaptiveDirectory}, shared by its input, clones and slices: the
 * file mapped read-only, and, once inputs read through the block cache, the file opened in it.
 *
 * <p>Close (by the input that opened it) unmaps the file and closes it in the cache. A clone
 * reading at that moment gets {@link AlreadyClosedException}: the mapping's arena is shared, and
 * closing it makes racing accesses fail instead of touching unmapped memory.
 *
 * <p>Thread-safe.
 */
final class AdaptiveFile {
  final Path path;
  final long size;
  final MemorySegment map;
  /** False for merges and read-once inputs: they read the mapping and never fill the cache. */
  final boolean usesCache;

  private final AdaptiveRegime regime;
  private final Arena arena;
  private volatile CachedFile cached;
  private volatile boolean closed;

  private AdaptiveFile(Path path, long size, MemorySegment map, Arena arena, boolean usesCache, AdaptiveRegime regime) {
    this.path = path;
    this.size = size;
    this.map = map;
    this.arena = arena;
    this.usesCache = usesCache;
    this.regime = regime;
  }

  /** Maps {@code path} (the real path, for the kernel) and registers it with {@code regime}. */
  static AdaptiveFile open(Path path, long size, boolean usesCache, AdaptiveRegime regime) throws IOException {
    Arena arena = Arena.ofShared();
    try {
      MemorySegment map = MappedFiles.map(path, size, arena);
      AdaptiveFile f = new AdaptiveFile(path, size, map, arena, usesCache, regime);
      MapAdvice advice = usesCache ? regime.mappingAdvice() : MapAdvice.NORMAL;
      if (advice != MapAdvice.NORMAL) {
        f.adviseMapping(advice);
      }
      if (usesCache) {
        regime.register(f);
      }
      return f;
    } catch (Throwable t) {
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
      if (cache == null) {
        throw new IllegalStateException(path + ": no block cache without native access");
      }
      cached = cache.open(path, true);
    }
    return cached;
  }

  void adviseMapping(MapAdvice advice) {
    if (size > 0) {
      MappedFiles.advise(map, 0, size, advice);
    }
  }

  boolean isClosed() {
    return closed;
  }

  synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    regime.unregister(this);
    try {
      if (cached != null) {
        cached.close();
      }
    } finally {
      arena.close();
    }
  }
}
