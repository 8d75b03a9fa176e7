package dev.pread.bench.cache;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;

import dev.pread.cache.BlockCache;
import dev.pread.cache.CachedFile;
import dev.pread.store.CachedPreadDirectory;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.NoLockFactory;

/**
 * dir-cached, as every benchmark opens it: a {@link CachedPreadDirectory} over a {@link BlockCache}
 * of the given {@link CacheSettings} that belongs to the directory and closes with it (the
 * directory's own-cache constructor would size it from a system property, at the default block
 * size).
 */
public final class CachedDirectories {
  private CachedDirectories() {}

  /**
   * Opens dir-cached over {@code folder}. Open it through {@link
   * dev.pread.bench.raw.StrategyRegistry}, which first refuses when native access is off (it would
   * measure NIOFSDirectory).
   */
  public static CachedPreadDirectory open(Path folder, CacheSettings settings) throws IOException {
    BlockCache cache = settings.build("bench:" + folder.getFileName());
    try {
      return new Owning(folder, cache);
    } catch (IOException | RuntimeException e) {
      cache.close();
      throw e;
    }
  }

  /**
   * Fails unless {@code file} is read with O_DIRECT through {@code dir}'s cache (a file system
   * that refuses O_DIRECT is read with buffered pread, through the page cache: another strategy).
   * Open an input on the file first, so that the check shares its blocks instead of freeing them.
   */
  public static void requireDirect(CachedPreadDirectory dir, Path file) throws IOException {
    try (CachedFile f = dir.getCache().open(file.toAbsolutePath())) {
      if (!f.isDirect()) {
        throw new IllegalStateException(
            DIR_CACHED + " would measure buffered pread: the file system of " + file + " refuses O_DIRECT");
      }
    }
  }

  /**
   * Bytes of block memory the cache of {@code dir} has allocated (dir-cached's own cache, or the
   * JVM-wide cache of dir-adaptive), 0 if it has none.
   */
  public static long allocatedBytes(org.apache.lucene.store.Directory dir) {
    if (dir instanceof CachedPreadDirectory c) {
      return c.getCache().stats().allocatedBytes();
    }
    if (dir instanceof dev.pread.store.AdaptiveDirectory a) {
      return a.cacheStats().allocatedBytes();
    }
    return 0;
  }

  /** The block cache {@code dir} reads through, or null when it is not dir-cached. */
  public static BlockCache cacheOf(org.apache.lucene.store.Directory dir) {
    return dir instanceof CachedPreadDirectory c ? c.getCache() : null;
  }

  /**
   * Reads every file of {@code dir} through it once, so that its cache holds them: the warm regime
   * of dir-cached. Call with the index's reader open: the last close of a file frees its blocks, and
   * the reader keeps the files queries read open.
   */
  public static void preload(org.apache.lucene.store.Directory dir) throws IOException {
    if (cacheOf(dir) == null) {
      return;
    }
    byte[] buf = new byte[1 << 20];
    for (String name : dir.listAll()) {
      if (name.equals("write.lock")) {
        continue;
      }
      try (org.apache.lucene.store.IndexInput in = dir.openInput(name, org.apache.lucene.store.IOContext.DEFAULT)) {
        for (long left = in.length(); left > 0; left -= buf.length) {
          in.readBytes(buf, 0, (int) Math.min(buf.length, left));
        }
      }
    }
  }

  /** Closes its cache after itself. */
  private static final class Owning extends CachedPreadDirectory {
    Owning(Path folder, BlockCache cache) throws IOException {
      super(folder, NoLockFactory.INSTANCE, cache);
    }

    @Override
    public synchronized void close() throws IOException {
      try {
        super.close();
      } finally {
        getCache().close();
      }
    }
  }
}
