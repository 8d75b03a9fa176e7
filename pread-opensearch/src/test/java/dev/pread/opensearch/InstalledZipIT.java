package dev.pread.opensearch;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.opensearch.action.admin.cluster.node.info.NodeInfo;
import org.opensearch.action.admin.cluster.node.info.NodesInfoRequest;
import org.opensearch.action.admin.cluster.node.info.PluginsAndModules;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * The plugin as users install it: the zip unpacked into the node's {@code plugins/} directory and
 * loaded by OpenSearch's plugin class loader, serving its three store types. Neither the plugin's classes
 * nor pread-core are on this JVM's class path (the failsafe executions leave them out), so
 * everything below goes through the installed jars, and the directories are inspected by
 * reflection.
 *
 * <p>Three failsafe executions run this class ({@code pread.expect.native} says what to expect):
 * with {@code --enable-native-access=ALL-UNNAMED}, which covers the unnamed module of every class
 * loader, the plugin's included, it must read natively; without the flag too, on JDK 24 and 25
 * (see the pom); with {@code -Ddev.pread.nativeio.disable=true} it must fall back and still work
 * ({@code pread_cached} then has no block cache).
 *
 * <p>Lucene's ExtrasFS is off: it adds stray files to new directories, and OpenSearch would take
 * one in {@code plugins/} for a plugin without a descriptor.
 */
@LuceneTestCase.SuppressFileSystems("ExtrasFS")
public class InstalledZipIT extends OpenSearchSingleNodeTestCase {
  private static Path home;

  @Override
  protected Settings nodeSettings() {
    try {
      if (home == null) {
        home = createTempDir("opensearch-home");
        PluginZip.installInto(home.resolve("plugins"));
      }
    } catch (Exception e) {
      throw new AssertionError("installing the plugin zip failed", e);
    }
    return Settings.builder().put(Environment.PATH_HOME_SETTING.getKey(), home.toString()).build();
  }

  private static boolean expectNative() {
    return Boolean.parseBoolean(PluginZip.property("pread.expect.native"));
  }

  public void testPluginClassesAreNotOnTheClassPath() {
    expectThrows(ClassNotFoundException.class, () -> Class.forName("dev.pread.store.PreadDirectory"));
    expectThrows(ClassNotFoundException.class, () -> Class.forName(PluginZip.property("pread.plugin.classname")));
  }

  public void testInstalledPluginServesStoreTypePread() throws Exception {
    String index = "installed-adaptive";
    Directory inner = createIndexOf(index, Settings.builder().put("index.store.type", "pread"), "dev.pread.store.AdaptiveDirectory");
    indexSearchMergeDelete(index);
    // A tiny index fits in memory: mappings, natively or not (without native access there is no cache).
    assertEquals("MAPPINGS", inner.getClass().getMethod("readPath").invoke(inner).toString());
    assertAcked(client().admin().indices().prepareDelete(index));
  }

  public void testInstalledPluginServesStoreTypePreadPlain() throws Exception {
    NodeInfo node =
        client().admin().cluster().prepareNodesInfo().clear().addMetric(NodesInfoRequest.Metric.PLUGINS.metricName()).get().getNodes().get(0);
    List<PluginInfo> plugins = node.getInfo(PluginsAndModules.class).getPluginInfos();
    Optional<PluginInfo> ours = plugins.stream().filter(p -> p.getName().equals(PluginZip.pluginName())).findFirst();
    assertTrue("installed plugins: " + plugins, ours.isPresent());
    assertEquals(PluginZip.property("pread.plugin.version"), ours.get().getVersion());

    String index = "installed";
    Directory inner =
        createIndexOf(index, Settings.builder().put("index.store.type", "pread_plain").put("index.store.pread.buffer_size", "32kb"),
            "dev.pread.store.PreadDirectory");
    Class<?> type = inner.getClass();
    assertEquals(32 * 1024, type.getMethod("getBufferSize").invoke(inner));
    Object nativePread = type.getMethod("isNativePread").invoke(inner);
    Optional<?> reason = (Optional<?>) type.getMethod("nativeUnavailableReason").invoke(null);
    assertEquals("native pread (reason if off: " + reason + ")", expectNative(), nativePread);
    if (!expectNative()) {
      String expected = PluginZip.property("pread.expect.reason");
      assertTrue(reason + " should contain: " + expected, reason.map(r -> r.toString().contains(expected)).orElse(false));
    }

    indexSearchMergeDelete(index);
    assertAcked(client().admin().indices().prepareDelete(index));
  }

  /** Index, search, delete documents, force-merge to one segment, search again. */
  private void indexSearchMergeDelete(String index) {
    TestDocs.index(client(), index, 0, 1200);
    client().admin().indices().prepareRefresh(index).get();
    client().admin().indices().prepareFlush(index).get();
    TestDocs.assertSearches(client(), index, null, IntStream.range(0, 1200));
    TestDocs.delete(client(), index, 0, 100);
    assertEquals(0, client().admin().indices().prepareForceMerge(index).setMaxNumSegments(1).get().getFailedShards());
    client().admin().indices().prepareRefresh(index).get();
    TestDocs.assertSearches(client(), index, null, IntStream.range(100, 1200));
    TestDocs.assertStoredDocuments(client(), index, 100, 1199);
  }

  public void testInstalledPluginServesStoreTypePreadCached() throws Exception {
    String index = "installed-cached";
    Directory inner =
        createIndexOf(index, Settings.builder().put("index.store.type", "pread_cached"), "dev.pread.store.CachedPreadDirectory");
    Class<?> type = inner.getClass();
    assertEquals("reads through the block cache", expectNative(), type.getMethod("isCached").invoke(inner));
    Object cache = type.getMethod("getCache").invoke(inner);
    assertEquals("a cache exists only with native access", expectNative(), cache != null);

    TestDocs.index(client(), index, 0, 600);
    client().admin().indices().prepareRefresh(index).get();
    TestDocs.assertSearches(client(), index, null, IntStream.range(0, 600));
    TestDocs.assertSearches(client(), index, null, IntStream.range(0, 600));
    TestDocs.assertStoredDocuments(client(), index, 0, 599);
    // The statistics record (all zero on the fallback) through reflection too.
    Object stats = type.getMethod("stats").invoke(inner);
    long hits = (Long) stats.getClass().getMethod("hits").invoke(stats);
    long misses = (Long) stats.getClass().getMethod("misses").invoke(stats);
    if (expectNative()) {
      assertTrue("hits after searches: " + stats, hits > 0);
      assertTrue("misses of the first search: " + stats, misses > 0);
    } else {
      assertEquals(0, hits + misses);
    }
    assertAcked(client().admin().indices().prepareDelete(index));
  }

  /**
   * Creates a one-shard index with {@code settings}, waits for it, and returns its shard's
   * directory, checked to be {@code directoryClass} loaded by the plugin's class loader.
   */
  private Directory createIndexOf(String index, Settings.Builder settings, String directoryClass) {
    assertAcked(
        client().admin().indices().prepareCreate(index)
            .setSettings(
                settings
                    .put("index.number_of_shards", 1)
                    .put("index.number_of_replicas", 0)
                    .put("index.refresh_interval", "-1"))
            .setMapping(TestDocs.MAPPING));
    ensureGreen(index);
    IndexShard shard = getInstanceFromNode(IndicesService.class).indexServiceSafe(resolveIndex(index)).getShard(0);
    Directory inner = FilterDirectory.unwrap(shard.store().directory());
    assertEquals(directoryClass, inner.getClass().getName());
    assertNotSame("loaded by the plugin's class loader", ClassLoader.getSystemClassLoader(), inner.getClass().getClassLoader());
    return inner;
  }
}
