package dev.pread.opensearch;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.cache.ContainerMemory;
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
 * opens (a node without {@code pread_cached} indices never allocates it, nor reads the container's
 * memory), and closed with the plugin when the node closes, after OpenSearch has closed the node's
 * shards. Closing stops its prefetch threads and frees its memory. Without {@link
 * PreadCachedSettings#SIZE} its size comes from the container ({@link NodeCacheSizing}); the log
 * line that announces the cache gives the size and where it came from, with the figures.
 *
 * <p>Without native access there is no cache ({@link #get()} is empty): {@code pread_cached} shards
 * then read like {@code niofs}.
 *
 * <p>Thread-safe.
 */
final class NodeBlockCache implements Closeable {
  private static final Logger LOG = LogManager.getLogger(NodeBlockCache.class);

  private final Settings nodeSettings;
  private final ContainerMemory memory;
  private final long heapBytes;
  private BlockCache cache; // guarded by this
  private String sizeOrigin; // guarded by this
  private boolean closed; // guarded by this

  /** The cache of a node in this JVM, sized from this process's container if its size is not set. */
  NodeBlockCache(Settings nodeSettings) {
    this(nodeSettings, ContainerMemory.system(), Runtime.getRuntime().maxMemory());
  }

  /** For tests: the memory figures of {@code memory} and a heap of {@code heapBytes}. */
  NodeBlockCache(Settings nodeSettings, ContainerMemory memory, long heapBytes) {
    this.nodeSettings = nodeSettings;
    this.memory = memory;
    this.heapBytes = heapBytes;
  }

  /**
   * The node's cache, built on the first call; empty when native access is unavailable.
   *
   * @throws AlreadyClosedException once the node (the plugin) is closed
   * @throws IllegalArgumentException if a node setting is invalid (a node refuses to start with one,
   *     so only for settings that were not validated), or if the size is not set and the container
   *     leaves too little memory for a cache (the message gives the figures)
   * @throws IOException naming the file if the size is not set and the container's memory figures
   *     cannot be read
   */
  synchronized Optional<BlockCache> get() throws IOException {
    if (closed) {
      throw new AlreadyClosedException("the node's pread_cached block cache is closed: the node is closing");
    }
    if (PreadDirectory.nativeUnavailableReason().isPresent()) {
      return Optional.empty();
    }
    if (cache == null) {
      ByteSizeValue setSize = PreadCachedSettings.SIZE.get(nodeSettings);
      ByteSizeValue blockSize = PreadCachedSettings.BLOCK_SIZE.get(nodeSettings);
      int threads = PreadCachedSettings.PREFETCH_THREADS.get(nodeSettings);
      long bytes;
      String origin;
      if (setSize.getBytes() >= 0) {
        bytes = setSize.getBytes();
        origin = "set by " + PreadCachedSettings.SIZE.getKey();
      } else {
        NodeCacheSizing.Size sized = NodeCacheSizing.fromContainer(memory, heapBytes, blockSize.getBytes());
        bytes = sized.bytes();
        origin = "= " + sized.formula();
      }
      String node = nodeSettings.get("node.name", "");
      cache =
          BlockCache.builder(bytes)
              .blockSize(Math.toIntExact(blockSize.getBytes()))
              .prefetchThreads(threads)
              .name(node.isEmpty() ? "pread_cached" : "pread_cached[" + node + "]")
              .build();
      sizeOrigin = origin;
      LOG.info(
          "store type [pread_cached]: block cache of {} {}, in blocks of {}, {} prefetch threads ({} of heap for its index)",
          new ByteSizeValue(bytes),
          origin,
          blockSize,
          threads,
          new ByteSizeValue(cache.fixedOverheadBytes()));
    }
    return Optional.of(cache);
  }

  /** Where the built cache's size came from, as its log line says it; empty before it is built. */
  synchronized Optional<String> sizeOrigin() {
    return Optional.ofNullable(sizeOrigin);
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
