package dev.pread.opensearch;

import dev.pread.cache.BlockCache;
import dev.pread.store.CachedPreadDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockFactory;
import org.opensearch.index.IndexSettings;

/**
 * Creates the {@link CachedPreadDirectory} of a shard of an index with {@code index.store.type:
 * pread_cached}: it reads with {@code O_DIRECT} into the node's one {@link BlockCache} ({@link
 * NodeBlockCache}), which it does not close. {@link PreadStoreSettings#PREFETCH} applies; the
 * buffer size and read advice of store type {@code pread_plain} do not (the cache has its own
 * blocks, and {@code O_DIRECT} reads take no advice).
 *
 * <p>Without native access there is no cache, and the directory reads through {@code
 * NIOFSDirectory}'s inputs ({@link CachedPreadDirectory#isCached()} is false). OpenSearch wraps the
 * directory, so reach it with {@code FilterDirectory.unwrap}.
 */
public class CachedPreadDirectoryFactory extends ShardDirectoryFactory {
  private final NodeBlockCache nodeCache;

  CachedPreadDirectoryFactory(NodeBlockCache nodeCache) {
    super("pread_cached", List.of(PreadStoreSettings.PREFETCH));
    this.nodeCache = nodeCache;
  }

  @Override
  public Directory newFSDirectory(Path location, LockFactory lockFactory, IndexSettings indexSettings)
      throws IOException {
    Optional<BlockCache> cache = nodeCache.get();
    // Without native access the directory's own-cache constructor falls back to NIOFSDirectory's
    // inputs and allocates no cache; with it, it would allocate one, hence the shared one here.
    CachedPreadDirectory directory =
        cache.isPresent()
            ? new CachedPreadDirectory(location, lockFactory, cache.get())
            : new CachedPreadDirectory(location, lockFactory);
    directory.setPrefetch(indexSettings.getValue(PreadStoreSettings.PREFETCH));
    return directory;
  }
}
