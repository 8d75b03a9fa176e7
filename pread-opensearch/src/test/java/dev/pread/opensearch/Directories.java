package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import dev.pread.cache.BlockCache;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.opensearch.index.IndexService;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.plugins.PluginsService;

/**
 * Reaches the Lucene directory under OpenSearch's wrappers, and a node's plugin, for tests with the
 * plugin on the classpath.
 */
final class Directories {
  private Directories() {}

  /** Whether the native path is expected in this JVM (a failsafe execution may run without it). */
  static boolean expectNative() {
    return Boolean.parseBoolean(System.getProperty("pread.expect.native", "true"));
  }

  /** The PreadDirectory under the wrappers of one shard's store; fails if it is anything else. */
  static PreadDirectory of(IndexShard shard) {
    Directory store = shard.store().directory();
    Directory inner = FilterDirectory.unwrap(store);
    assertTrue(shard.shardId() + ": expected a PreadDirectory under " + store + ", found " + inner, inner instanceof PreadDirectory);
    PreadDirectory directory = (PreadDirectory) inner;
    assertEquals(
        shard.shardId() + " reads natively (reason if not: " + PreadDirectory.nativeUnavailableReason() + ")",
        expectNative(),
        directory.isNativePread());
    return directory;
  }

  /** The PreadDirectories of every copy of {@code index} on this node (primaries and replicas). */
  static List<PreadDirectory> onNode(IndicesService indices, String index) {
    List<PreadDirectory> result = new ArrayList<>();
    for (IndexService service : indices) {
      if (service.index().getName().equals(index)) {
        for (IndexShard shard : service) {
          result.add(of(shard));
        }
      }
    }
    return result;
  }

  /** The AdaptiveDirectory under the wrappers of one shard's store; fails if it is anything else. */
  static AdaptiveDirectory adaptive(IndexShard shard) {
    Directory store = shard.store().directory();
    Directory inner = FilterDirectory.unwrap(store);
    assertTrue(shard.shardId() + ": expected an AdaptiveDirectory under " + store + ", found " + inner, inner instanceof AdaptiveDirectory);
    return (AdaptiveDirectory) inner;
  }

  /** The AdaptiveDirectories of every copy of {@code index} on this node (primaries and replicas). */
  static List<AdaptiveDirectory> adaptiveOnNode(IndicesService indices, String index) {
    List<AdaptiveDirectory> result = new ArrayList<>();
    for (IndexService service : indices) {
      if (service.index().getName().equals(index)) {
        for (IndexShard shard : service) {
          result.add(adaptive(shard));
        }
      }
    }
    return result;
  }

  /**
   * The CachedPreadDirectory under the wrappers of one shard's store; fails if it is anything else,
   * or if it does not read through {@code nodeCache} (null: expects none, on the fallback).
   */
  static CachedPreadDirectory cached(IndexShard shard, BlockCache nodeCache) {
    Directory store = shard.store().directory();
    Directory inner = FilterDirectory.unwrap(store);
    assertTrue(
        shard.shardId() + ": expected a CachedPreadDirectory under " + store + ", found " + inner,
        inner instanceof CachedPreadDirectory);
    CachedPreadDirectory directory = (CachedPreadDirectory) inner;
    assertEquals(
        shard.shardId() + " reads through the block cache (reason if not: " + PreadDirectory.nativeUnavailableReason() + ")",
        expectNative(),
        directory.isCached());
    if (expectNative()) {
      assertSame(shard.shardId() + " reads through the node's one cache", nodeCache, directory.getCache());
    } else {
      assertNull(directory.getCache());
    }
    return directory;
  }

  /** The CachedPreadDirectories of every copy of {@code index} on this node, each through the node's cache. */
  static List<CachedPreadDirectory> cachedOnNode(IndicesService indices, String index, BlockCache nodeCache) {
    List<CachedPreadDirectory> result = new ArrayList<>();
    for (IndexService service : indices) {
      if (service.index().getName().equals(index)) {
        for (IndexShard shard : service) {
          result.add(cached(shard, nodeCache));
        }
      }
    }
    return result;
  }

  /** The node's pread_cached block cache: built (the node has opened such a shard) unless on the fallback. */
  static BlockCache nodeCache(PluginsService plugins) {
    List<PreadStorePlugin> ours = plugins.filterPlugins(PreadStorePlugin.class);
    assertEquals("one PreadStorePlugin per node", 1, ours.size());
    if (!expectNative()) {
      assertTrue("no cache without native access", ours.get(0).blockCache().current().isEmpty());
      return null;
    }
    return ours.get(0).blockCache().current().orElseThrow(() -> new AssertionError("the node has built no pread_cached cache"));
  }
}
