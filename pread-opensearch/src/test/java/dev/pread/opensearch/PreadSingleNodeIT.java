package dev.pread.opensearch;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.cache.ContainerMemory;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.ReadAdvice;
import org.apache.lucene.util.Version;
import org.opensearch.action.admin.indices.segments.IndicesSegmentResponse;
import org.opensearch.action.admin.indices.segments.ShardSegments;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.settings.SettingsException;
import org.opensearch.index.IndexService;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginsService;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * One node with the plugin: an index with {@code index.store.type: pread} ({@code
 * AdaptiveDirectory}), one with {@code pread_plain} ({@code PreadDirectory}) and one with {@code
 * pread_cached}, through its whole life (bulk index, refresh, search, flush, force-merge, delete
 * documents, delete the index), settings reaching the directory, and invalid settings refused with
 * clear messages. The {@code pread_cached} indices read through the node's one block cache, built
 * with the size it takes from the container when none is set; its statistics show the searches' hits and the merge reading
 * around it.
 */
public class PreadSingleNodeIT extends OpenSearchSingleNodeTestCase {

  @Override
  protected Collection<Class<? extends Plugin>> getPlugins() {
    return List.of(PreadStorePlugin.class);
  }

  private static Settings.Builder pread() {
    return Settings.builder()
        .put("index.store.type", "pread")
        .put("index.number_of_shards", 1)
        .put("index.number_of_replicas", 0)
        // No background refreshes: the test decides when segments appear.
        .put("index.refresh_interval", "-1");
  }

  private static Settings.Builder plain() {
    return pread().put("index.store.type", "pread_plain");
  }

  private static Settings.Builder cached() {
    return pread().put("index.store.type", "pread_cached");
  }

  /** This node's pread_cached cache (null on the fallback). */
  private BlockCache nodeCache() {
    return Directories.nodeCache(getInstanceFromNode(PluginsService.class));
  }

  private IndexShard shard(String index) {
    IndexService service = getInstanceFromNode(IndicesService.class).indexServiceSafe(resolveIndex(index));
    return service.getShard(0);
  }

  private int segmentCount(String index) {
    IndicesSegmentResponse response = client().admin().indices().prepareSegments(index).get();
    int count = 0;
    for (var shardSegments : response.getIndices().get(index).getShards().values()) {
      for (ShardSegments copy : shardSegments.getShards()) {
        count += copy.getSegments().size();
      }
    }
    return count;
  }

  public void testRunsOnTheLuceneOpenSearchShips() {
    // pread-core is built against a newer Lucene; here it runs on OpenSearch 3.7's.
    assertEquals(Version.LUCENE_10_4_0, Version.LATEST);
    assertEquals(
        "pread-core and Lucene come from the same class path, Lucene from OpenSearch's dependencies",
        "10.4.0",
        org.apache.lucene.store.FSDirectory.class.getPackage().getSpecificationVersion());
  }

  public void testIndexLifecycle() throws Exception {
    String index = "books";
    assertAcked(client().admin().indices().prepareCreate(index).setSettings(pread()).setMapping(TestDocs.MAPPING));
    ensureGreen(index);

    AdaptiveDirectory directory = Directories.adaptive(shard(index));
    assertEquals(shard(index).shardPath().resolveIndex().toRealPath(), directory.getDirectory().toRealPath());
    lifecycle(index, () -> assertSame("the shard kept its directory", directory, Directories.adaptive(shard(index))));
    assertTrue("the shard's files are open through the JVM's adaptive directories", directory.openFileBytes() > 0);
    // The index is tiny next to the machine's memory: it fits, and inputs read the mappings.
    assertEquals(AdaptiveDirectory.ReadPath.MAPPINGS, directory.readPath());
    deleteAndAssertFilesGone(index);
  }

  public void testPlainIndexLifecycle() throws Exception {
    String index = "plain-books";
    assertAcked(client().admin().indices().prepareCreate(index).setSettings(plain()).setMapping(TestDocs.MAPPING));
    ensureGreen(index);

    PreadDirectory directory = Directories.of(shard(index));
    assertEquals(PreadDirectory.DEFAULT_BUFFER_SIZE, directory.getBufferSize());
    assertSame(PreadDirectory.ADVISE_BY_CONTEXT, directory.getReadAdvice());
    assertTrue(directory.isPrefetch());
    assertEquals(shard(index).shardPath().resolveIndex().toRealPath(), directory.getDirectory().toRealPath());

    lifecycle(index, () -> assertSame("the shard kept its directory", directory, Directories.of(shard(index))));
    deleteAndAssertFilesGone(index);
  }

  public void testCachedIndexLifecycle() throws Exception {
    String index = "cached-books";
    assertAcked(client().admin().indices().prepareCreate(index).setSettings(cached()).setMapping(TestDocs.MAPPING));
    ensureGreen(index);

    // The first pread_cached shard built the node's cache, sized from the container (no size set).
    BlockCache cache = nodeCache();
    CachedPreadDirectory directory = Directories.cached(shard(index), cache);
    assertTrue(directory.isPrefetch());
    assertEquals(shard(index).shardPath().resolveIndex().toRealPath(), directory.getDirectory().toRealPath());
    if (cache != null) {
      NodeCacheSizing.Size expected =
          NodeCacheSizing.fromContainer(ContainerMemory.system(), Runtime.getRuntime().maxMemory(), BlockCache.DEFAULT_BLOCK_SIZE);
      assertEquals(expected.bytes(), cache.budgetBytes());
      assertEquals(BlockCache.DEFAULT_BLOCK_SIZE, cache.blockSize());
      NodeBlockCache nodeCache = getInstanceFromNode(PluginsService.class).filterPlugins(PreadStorePlugin.class).get(0).blockCache();
      assertEquals("= " + expected.formula(), nodeCache.sizeOrigin().orElseThrow());
    }
    BlockCacheStats before = directory.stats();

    lifecycle(index, () -> assertSame("the shard kept its directory", directory, Directories.cached(shard(index), cache)));

    if (cache != null) {
      // Searches read through the cache: what one search read from storage the next finds cached.
      BlockCacheStats afterLifecycle = cache.stats();
      logger.info("block cache after the lifecycle: {}", afterLifecycle);
      assertTrue("misses: " + afterLifecycle, afterLifecycle.misses() > before.misses());
      assertTrue("hits: " + afterLifecycle, afterLifecycle.hits() > before.hits());
      assertTrue("the force-merge read around the cache: " + afterLifecycle, afterLifecycle.readAround() > before.readAround());
      TestDocs.assertSearches(client(), index, null, liveAfterLifecycle());
      BlockCacheStats again = cache.stats();
      assertTrue("hits of a repeated search: " + again, again.hits() > afterLifecycle.hits());
      assertEquals("a repeated search misses nothing: " + again, afterLifecycle.misses(), again.misses());
    }

    // Delete the index: its files go, and the node's cache lets go of them but stays open.
    deleteAndAssertFilesGone(index);
    if (cache != null) {
      assertBusy(() -> assertEquals("files open through the cache", 0, cache.openFiles()));
      assertFalse(cache.isClosed());
      assertSame("the node keeps its one cache", cache, nodeCache());
    }
  }

  /** The documents {@link #lifecycle} leaves. */
  private static IntStream liveAfterLifecycle() {
    return IntStream.concat(IntStream.range(0, 1000), IntStream.range(1200, 2500));
  }

  /**
   * Bulk index, refresh, search, flush, more documents, delete some, force-merge to one segment,
   * with hits and stored documents checked after each step; {@code sameDirectory} after the merge.
   * The index stays (the caller deletes it).
   */
  private void lifecycle(String index, Runnable sameDirectory) throws Exception {
    // Bulk index, refresh, search: segments written by FSDirectory, read by the plugin's directory.
    TestDocs.index(client(), index, 0, 1500);
    client().admin().indices().prepareRefresh(index).get();
    TestDocs.assertSearches(client(), index, null, IntStream.range(0, 1500));
    TestDocs.assertStoredDocuments(client(), index, 0, 7, 777, 1499);

    // Flush (a Lucene commit), more documents in a second segment, search again.
    client().admin().indices().prepareFlush(index).get();
    TestDocs.index(client(), index, 1500, 2500);
    client().admin().indices().prepareRefresh(index).get();
    TestDocs.assertSearches(client(), index, null, IntStream.range(0, 2500));
    assertTrue("several segments before the merge", segmentCount(index) > 1);

    // Delete documents, then force-merge to one segment: the merge reads every segment through
    // the directory (merge context) and drops the deleted documents.
    TestDocs.delete(client(), index, 1000, 1200);
    client().admin().indices().prepareRefresh(index).get();
    TestDocs.assertSearches(client(), index, null, liveAfterLifecycle());
    assertEquals(0, client().admin().indices().prepareForceMerge(index).setMaxNumSegments(1).setFlush(true).get().getFailedShards());
    client().admin().indices().prepareRefresh(index).get();
    assertEquals(1, segmentCount(index));
    TestDocs.assertSearches(client(), index, null, liveAfterLifecycle());
    TestDocs.assertStoredDocuments(client(), index, 0, 999, 1200, 2499);
    sameDirectory.run();
  }

  private void deleteAndAssertFilesGone(String index) throws Exception {
    Path location = shard(index).shardPath().resolveIndex();
    assertTrue(Files.exists(location));
    assertAcked(client().admin().indices().prepareDelete(index));
    assertBusy(() -> assertFalse("index files left at " + location, Files.exists(location)));
  }

  public void testSettingsReachTheDirectory() throws Exception {
    assertAcked(
        client().admin().indices().prepareCreate("random-advice")
            .setSettings(
                plain()
                    .put("index.store.pread.buffer_size", "4kb")
                    .put("index.store.pread.read_advice", "random")
                    .put("index.store.pread.prefetch", false))
            .setMapping(TestDocs.MAPPING));
    assertAcked(
        client().admin().indices().prepareCreate("sequential-advice")
            .setSettings(plain().put("index.store.pread.buffer_size", "64kb").put("index.store.pread.read_advice", "sequential"))
            .setMapping(TestDocs.MAPPING));
    assertAcked(
        client().admin().indices().prepareCreate("normal-advice")
            .setSettings(plain().put("index.store.pread.read_advice", "normal"))
            .setMapping(TestDocs.MAPPING));
    ensureGreen("random-advice", "sequential-advice", "normal-advice");

    PreadDirectory random = Directories.of(shard("random-advice"));
    assertEquals(4096, random.getBufferSize());
    assertEquals(Optional.of(ReadAdvice.RANDOM), random.getReadAdvice().apply("_0.cfs", IOContext.DEFAULT));
    assertFalse(random.isPrefetch());
    PreadDirectory sequential = Directories.of(shard("sequential-advice"));
    assertEquals(65536, sequential.getBufferSize());
    assertEquals(Optional.of(ReadAdvice.SEQUENTIAL), sequential.getReadAdvice().apply("_0.cfs", IOContext.DEFAULT));
    assertTrue(sequential.isPrefetch());
    PreadDirectory normal = Directories.of(shard("normal-advice"));
    assertEquals(Optional.of(ReadAdvice.NORMAL), normal.getReadAdvice().apply("_0.cfs", IOContext.DEFAULT));

    for (String index : List.of("random-advice", "sequential-advice", "normal-advice")) {
      TestDocs.index(client(), index, 0, 600);
      client().admin().indices().prepareFlush(index).get();
      client().admin().indices().prepareRefresh(index).get();
      TestDocs.assertSearches(client(), index, null, IntStream.range(0, 600));
      TestDocs.assertStoredDocuments(client(), index, 1, 599);
    }
  }

  public void testSettingsAreReadWhenTheIndexOpens() throws Exception {
    String index = "reopened";
    assertAcked(client().admin().indices().prepareCreate(index).setSettings(plain()).setMapping(TestDocs.MAPPING));
    ensureGreen(index);
    TestDocs.index(client(), index, 0, 300);
    client().admin().indices().prepareFlush(index).get();
    assertEquals(PreadDirectory.DEFAULT_BUFFER_SIZE, Directories.of(shard(index)).getBufferSize());

    // Not dynamic: refused on an open index, accepted on a closed one, applied when it reopens.
    IllegalArgumentException e =
        expectThrows(
            IllegalArgumentException.class,
            () -> client().admin().indices().prepareUpdateSettings(index)
                .setSettings(Settings.builder().put("index.store.pread.buffer_size", "8kb"))
                .get());
    assertTrue(e.getMessage(), e.getMessage().contains("index.store.pread.buffer_size"));
    assertAcked(client().admin().indices().prepareClose(index));
    assertAcked(
        client().admin().indices().prepareUpdateSettings(index)
            .setSettings(Settings.builder().put("index.store.pread.buffer_size", "8kb").put("index.store.pread.prefetch", false)));
    assertAcked(client().admin().indices().prepareOpen(index));
    ensureGreen(index);
    PreadDirectory reopened = Directories.of(shard(index));
    assertEquals(8192, reopened.getBufferSize());
    assertFalse(reopened.isPrefetch());
    client().admin().indices().prepareRefresh(index).get();
    TestDocs.assertSearches(client(), index, null, IntStream.range(0, 300));
  }

  public void testCachedIndicesShareTheNodesCacheAndReadTheirSettings() throws Exception {
    assertAcked(client().admin().indices().prepareCreate("cached-prefetch").setSettings(cached()).setMapping(TestDocs.MAPPING));
    assertAcked(
        client().admin().indices().prepareCreate("cached-no-prefetch")
            .setSettings(cached().put("index.store.pread.prefetch", false))
            .setMapping(TestDocs.MAPPING));
    ensureGreen("cached-prefetch", "cached-no-prefetch");
    BlockCache cache = nodeCache();
    CachedPreadDirectory prefetching = Directories.cached(shard("cached-prefetch"), cache);
    CachedPreadDirectory notPrefetching = Directories.cached(shard("cached-no-prefetch"), cache);
    assertTrue(prefetching.isPrefetch());
    assertFalse(notPrefetching.isPrefetch());
    for (String index : List.of("cached-prefetch", "cached-no-prefetch")) {
      TestDocs.index(client(), index, 0, 600);
      client().admin().indices().prepareFlush(index).get();
      client().admin().indices().prepareRefresh(index).get();
    }

    // Searches of the index with prefetch off ask the cache for no prefetch.
    BlockCacheStats before = notPrefetching.stats();
    TestDocs.assertSearches(client(), "cached-no-prefetch", null, IntStream.range(0, 600));
    TestDocs.assertStoredDocuments(client(), "cached-no-prefetch", 1, 599);
    BlockCacheStats after = notPrefetching.stats();
    logger.info("block cache, searches with prefetch off: {} -> {}", before, after);
    assertEquals("prefetch off: " + after, prefetchRequests(before), prefetchRequests(after));
    // Lucene's searches ask for prefetches (here of blocks already cached: counted as deduplicated).
    before = after;
    TestDocs.assertSearches(client(), "cached-prefetch", null, IntStream.range(0, 600));
    TestDocs.assertStoredDocuments(client(), "cached-prefetch", 1, 599);
    after = prefetching.stats();
    logger.info("block cache, searches with prefetch on: {} -> {}", before, after);
    if (cache != null) {
      assertTrue("prefetch on: " + after, prefetchRequests(after) > prefetchRequests(before));
    }

    // Not dynamic: applied when the index opens again, with the same node cache.
    assertAcked(client().admin().indices().prepareClose("cached-prefetch"));
    assertAcked(
        client().admin().indices().prepareUpdateSettings("cached-prefetch")
            .setSettings(Settings.builder().put("index.store.pread.prefetch", false)));
    assertAcked(client().admin().indices().prepareOpen("cached-prefetch"));
    ensureGreen("cached-prefetch");
    CachedPreadDirectory reopened = Directories.cached(shard("cached-prefetch"), cache);
    assertNotSame(prefetching, reopened);
    assertFalse(reopened.isPrefetch());
    client().admin().indices().prepareRefresh("cached-prefetch").get();
    TestDocs.assertSearches(client(), "cached-prefetch", null, IntStream.range(0, 600));
    assertSame("the node keeps its one cache", cache, nodeCache());
  }

  private static long prefetchRequests(BlockCacheStats stats) {
    return stats.prefetchSubmitted() + stats.prefetchDeduplicated() + stats.prefetchDropped();
  }

  public void testInvalidSettingsAreRefusedWithClearMessages() {
    assertRefused("index.store.pread.buffer_size", "10b", "must be between 64b and 1mb");
    assertRefused("index.store.pread.buffer_size", "2gb", "must be between 64b and 1mb");
    assertRefused("index.store.pread.buffer_size", "big", "not a byte size");
    assertRefused("index.store.pread.read_advice", "willneed", "must be one of context, normal, random, sequential");
    assertRefused("index.store.pread.prefetch", "yes", "must be true or false");
    // The cache's settings belong to the node: an index cannot set them.
    SettingsException nodeOnly =
        expectThrows(
            SettingsException.class,
            () -> client().admin().indices().prepareCreate("node-setting")
                .setSettings(cached().put("node.store.pread_cached.size", "64mb"))
                .get());
    assertTrue(nodeOnly.getMessage(), nodeOnly.getMessage().contains("node.store.pread_cached.size"));
    assertFalse(client().admin().indices().prepareExists("node-setting").get().isExists());
    // A misspelt setting is refused by OpenSearch itself, since the plugin registers the real ones.
    SettingsException e =
        expectThrows(
            SettingsException.class,
            () -> client().admin().indices().prepareCreate("misspelt").setSettings(pread().put("index.store.pread.bufer_size", "4kb")).get());
    assertTrue(e.getMessage(), e.getMessage().contains("unknown setting [index.store.pread.bufer_size] did you mean [index.store.pread.buffer_size]?"));
    assertFalse(client().admin().indices().prepareExists("misspelt").get().isExists());
  }

  private void assertRefused(String key, String value, String detail) {
    IllegalArgumentException e =
        expectThrows(
            IllegalArgumentException.class,
            () -> client().admin().indices().prepareCreate("bad").setSettings(pread().put(key, value)).get());
    String message = e.getMessage();
    assertTrue(message, message.contains("[" + key + "]"));
    assertTrue(message, message.contains("[" + value + "]"));
    assertTrue(message, message.contains(detail));
    assertFalse("no index is created with " + key + "=" + value, client().admin().indices().prepareExists("bad").get().isExists());
  }
}
