package dev.pread.opensearch;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.store.PreadDirectory;
import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.lucene.store.AlreadyClosedException;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.common.unit.ByteSizeValue;

/**
 * The one {@link BlockCache} of a node, shared by the shards of every {@code pread_cached} index on
 * it. The plugin owns it: it is built from {@link PreadCachedSettings} when the first such shard
 * opens (a node without {@code pread_cached} indices never allocates it), and closed with the plugin
 * when the node closes, after OpenSearch has closed the node's shards. Closing stops its prefetch
 * threads and frees its memory.
 *
 * <p>Without native access there is no cache ({@link #get()} is empty): {@code pread_cached} shards
 * then read like {@code niofs}.
 *
 * <p>Thread-safe.
 */
final class NodeBlockCache implements Closeable {
  private static final Logger LOG = LogManager.getLogger(NodeBlockCache.class);

  private final Settings nodeSettings;
  private BlockCache cache; // guarded by this
  private boolean closed; // guarded by this

  NodeBlockCache(Settings nodeSettings) {
    this.nodeSettings = nodeSettings;
  }

  /**
   * The node's cache, built on the first call; empty when native access is unavailable.
   *
   * @throws AlreadyClosedException once the node (the plugin) is closed
   * @throws IllegalArgumentException if a node setting is invalid (a node refuses to start with one,
   *     so only for settings that were not validated)
   */
  synchronized Optional<BlockCache> get() {
    if (closed) {
      throw new AlreadyClosedException("the node's pread_cached block cache is closed: the node is closing");
    }
    if (PreadDirectory.nativeUnavailableReason().isPresent()) {
      return Optional.empty();
    }
    if (cache == null) {
      ByteSizeValue size = PreadCachedSettings.SIZE.get(nodeSettings);
      ByteSizeValue blockSize = PreadCachedSettings.BLOCK_SIZE.get(nodeSettings);
      int threads = PreadCachedSettings.PREFETCH_THREADS.get(nodeSettings);
      String node = nodeSettings.get("node.name", "");
      cache =
          BlockCache.builder(size.getBytes())
              .blockSize(Math.toIntExact(blockSize.getBytes()))
              .prefetchThreads(threads)
              .name(node.isEmpty() ? "pread_cached" : "pread_cached[" + node + "]")
              .build();
      LOG.info(
          "store type [pread_cached]: block cache of {} in blocks of {}, {} prefetch threads ({} of heap for its index)",
          size,
          blockSize,
          threads,
          new ByteSizeValue(cache.fixedOverheadBytes()));
    }
    return Optional.of(cache);
  }

  /** The cache if it has been built and not closed, without building it. */
  synchronized Optional<BlockCache> current() {
    return closed ? Optional.empty() : Optional.ofNullable(cache);
  }

  /** Closes the cache if it was built; later {@link #get()} calls fail. Closing twice is harmless. */
  @Override
  public void close() throws IOException {
    BlockCache toClose;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toClose = cache;
    }
    if (toClose != null) {
      BlockCacheStats stats = toClose.stats();
      LOG.debug(
          "store type [pread_cached]: closing {}: {} hits, {} misses, {} evictions, {} read",
          toClose,
          stats.hits(),
          stats.misses(),
          stats.evictions(),
          new ByteSizeValue(stats.bytesRead()));
      toClose.close();
    }
  }
}
