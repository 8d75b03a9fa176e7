package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.index.IndexSettings;
import org.opensearch.plugins.IndexStorePlugin;
import org.opensearch.test.IndexSettingsModule;

/**
 * The node's block cache through the plugin's own objects, without a node: built by the first
 * {@code pread_cached} directory from the node settings, shared by every directory, left open when a
 * directory closes, and closed, prefetch threads stopped, when the plugin closes (OpenSearch closes
 * plugins when the node closes; the integration tests check that with nodes). Needs native access
 * (the build's test JVM has it).
 */
public class PreadCachedLifecycleTests {
  private static final String PREFETCH_THREAD = "pread-cache-prefetch-";

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static IndexSettings index(String name, boolean prefetch) {
    return IndexSettingsModule.newIndexSettings(
        name,
        Settings.builder().put("index.store.type", "pread_cached").put("index.store.pread.prefetch", prefetch).build(),
        PreadStoreSettings.PREFETCH);
  }

  private static List<Thread> prefetchThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(PREFETCH_THREAD) && t.isAlive()).toList();
  }

  @Test
  public void oneCacheBuiltOnFirstUseSharedAndClosedWithThePlugin() throws Exception {
    assumeTrue("native access: " + PreadDirectory.nativeUnavailableReason(), PreadDirectory.nativeUnavailableReason().isEmpty());
    assertEquals("no prefetch thread before the test", List.of(), prefetchThreads());
    Settings node =
        Settings.builder()
            .put("node.name", "n1")
            .put("node.store.pread_cached.size", "8mb")
            .put("node.store.pread_cached.block_size", "8kb")
            .put("node.store.pread_cached.prefetch_threads", "2")
            .build();
    PreadStorePlugin plugin = new PreadStorePlugin(node);
    IndexStorePlugin.DirectoryFactory factory = plugin.getDirectoryFactories().get("pread_cached");
    assertTrue("nothing built before the first shard", plugin.blockCache().current().isEmpty());

    Path a = tmp.newFolder("a").toPath();
    Path b = tmp.newFolder("b").toPath();
    CachedPreadDirectory first = (CachedPreadDirectory) factory.newFSDirectory(a, FSLockFactory.getDefault(), index("a", true));
    CachedPreadDirectory second = (CachedPreadDirectory) factory.newFSDirectory(b, FSLockFactory.getDefault(), index("b", false));
    BlockCache cache = plugin.blockCache().current().orElseThrow();
    assertTrue(first.isCached());
    assertSame("one cache per node", cache, first.getCache());
    assertSame("one cache per node", cache, second.getCache());
    assertEquals(8L << 20, cache.budgetBytes());
    assertEquals(8192, cache.blockSize());
    assertEquals("pread_cached[n1]", cache.name());
    assertTrue("index.store.pread.prefetch reaches the directory", first.isPrefetch());
    assertFalse("index.store.pread.prefetch reaches the directory", second.isPrefetch());

    // Reads: the second pass over a file hits the cache while the file is open (the last close of
    // a file frees its blocks, as Lucene's files are not opened again once a reader closes them).
    byte[] data = new byte[1 << 20];
    new Random(42).nextBytes(data);
    write(first, "f", data);
    write(first, "g", data);
    write(second, "g", data);
    try (IndexInput in = first.openInput("f", IOContext.DEFAULT)) {
      readAll(in, data);
      BlockCacheStats afterFirstPass = cache.stats();
      assertTrue("first pass misses: " + afterFirstPass, afterFirstPass.misses() > 0);
      readAll(in, data);
      BlockCacheStats afterSecondPass = cache.stats();
      assertTrue("second pass hits: " + afterSecondPass, afterSecondPass.hits() > afterFirstPass.hits());
      assertEquals("second pass misses nothing: " + afterSecondPass, afterFirstPass.misses(), afterSecondPass.misses());
    }

    // A prefetch of blocks not cached starts prefetch threads; a directory with prefetch off does not prefetch.
    long submitted = cache.stats().prefetchSubmitted();
    try (IndexInput in = second.openInput("g", IOContext.DEFAULT)) {
      in.prefetch(0, data.length);
    }
    assertEquals("prefetch off: nothing submitted", submitted, cache.stats().prefetchSubmitted());
    try (IndexInput in = first.openInput("g", IOContext.DEFAULT)) {
      in.prefetch(0, data.length);
      assertTrue("prefetch submitted: " + cache.stats(), cache.stats().prefetchSubmitted() > submitted);
      readAll(in, data);
    }
    List<Thread> threads = prefetchThreads();
    assertFalse("prefetch threads run", threads.isEmpty());
    assertTrue("at most node.store.pread_cached.prefetch_threads: " + threads, threads.size() <= 2);

    // Closing a directory leaves the node's cache to the others.
    first.close();
    assertFalse(cache.isClosed());
    readAll(second, "g", data);
    second.close();
    assertFalse(cache.isClosed());

    // Closing the plugin (the node) closes the cache and stops its threads.
    plugin.close();
    assertTrue(cache.isClosed());
    for (Thread t : threads) {
      assertFalse(t.getName() + " stopped", t.isAlive());
    }
    assertEquals(List.of(), prefetchThreads());
    Path c = tmp.newFolder("c").toPath();
    AlreadyClosedException e =
        assertThrows(AlreadyClosedException.class, () -> factory.newFSDirectory(c, FSLockFactory.getDefault(), index("c", true)));
    assertTrue(e.getMessage(), e.getMessage().contains("the node is closing"));
    plugin.close(); // twice is harmless
  }

  @Test
  public void aNodeWithoutPreadCachedShardsBuildsNoCache() throws Exception {
    PreadStorePlugin plugin = new PreadStorePlugin(Settings.EMPTY);
    IndexSettings settings =
        IndexSettingsModule.newIndexSettings("a", Settings.EMPTY, PreadStoreSettings.all().toArray(new Setting<?>[0]));
    Path a = tmp.newFolder("a").toPath();
    try (Directory directory = plugin.getDirectoryFactories().get("pread").newFSDirectory(a, FSLockFactory.getDefault(), settings)) {
      assertTrue("pread: " + directory, directory instanceof AdaptiveDirectory);
      byte[] data = new byte[100_000];
      new Random(7).nextBytes(data);
      write(directory, "f", data);
      readAll(directory, "f", data);
    }
    Path b = tmp.newFolder("b").toPath();
    try (Directory directory = plugin.getDirectoryFactories().get("pread_plain").newFSDirectory(b, FSLockFactory.getDefault(), settings)) {
      assertTrue("pread_plain: " + directory, directory instanceof PreadDirectory);
    }
    assertTrue(plugin.blockCache().current().isEmpty());
    plugin.close();
    assertTrue(plugin.blockCache().current().isEmpty());
  }

  @Test
  public void withoutASizeTheCacheIsSizedFromTheContainer() throws Exception {
    assumeTrue("native access: " + PreadDirectory.nativeUnavailableReason(), PreadDirectory.nativeUnavailableReason().isEmpty());
    FakeContainer fake = new FakeContainer(tmp.newFolder("fake").toPath()).meminfo(64L << 30);
    Path group = fake.cgroupV2("/pod/opensearch", Long.toString(3L << 30));
    Settings node = Settings.builder().put("node.store.pread_cached.block_size", "8kb").build();
    try (NodeBlockCache nodeCache = new NodeBlockCache(node, fake.memory(), 1L << 30)) {
      CachedPreadDirectoryFactory factory = new CachedPreadDirectoryFactory(nodeCache);
      try (CachedPreadDirectory directory =
          (CachedPreadDirectory) factory.newFSDirectory(tmp.newFolder("a").toPath(), FSLockFactory.getDefault(), index("a", true))) {
        // slack = max(256 MiB, 307.2 MiB); (3072 MiB - 1024 MiB - 322122540 bytes) / 2, in 8 KiB blocks
        long expected = ((3L << 30) - (1L << 30) - 322_122_540L) / 2 / 8192 * 8192;
        assertEquals(expected, directory.getCache().budgetBytes());
        assertEquals(
            "= (limit 3gb [" + group + " (cgroup v2)] - heap 1gb - slack 307.1mb) / 2",
            nodeCache.sizeOrigin().orElseThrow());
      }
    }
    // An explicit size wins over the container.
    Settings set = Settings.builder().put("node.store.pread_cached.size", "8mb").build();
    try (NodeBlockCache nodeCache = new NodeBlockCache(set, fake.memory(), 1L << 30)) {
      assertEquals(8L << 20, nodeCache.get().orElseThrow().budgetBytes());
      assertEquals("set by node.store.pread_cached.size", nodeCache.sizeOrigin().orElseThrow());
    }
  }

  @Test
  public void aContainerTooSmallForACacheFailsTheShardWithTheFigures() throws Exception {
    assumeTrue("native access: " + PreadDirectory.nativeUnavailableReason(), PreadDirectory.nativeUnavailableReason().isEmpty());
    FakeContainer fake = new FakeContainer(tmp.newFolder("fake").toPath()).meminfo(64L << 30);
    Path group = fake.cgroupV1("/small", Long.toString(1L << 30));
    try (NodeBlockCache nodeCache = new NodeBlockCache(Settings.EMPTY, fake.memory(), 750L << 20)) {
      CachedPreadDirectoryFactory factory = new CachedPreadDirectoryFactory(nodeCache);
      Path a = tmp.newFolder("a").toPath();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> factory.newFSDirectory(a, FSLockFactory.getDefault(), index("a", true)));
      assertEquals(
          "store type [pread_cached]: the node's block cache sized from the container would be 9mb = (limit 1gb ["
              + group
              + " (cgroup v1)] - heap 750mb - slack 256mb) / 2, less than the minimum of 1024 blocks of 16kb (16mb); set"
              + " node.store.pread_cached.size, or give the container more memory or the heap less",
          e.getMessage());
      assertTrue("no cache built", nodeCache.current().isEmpty());
      // A memory limit that is not a number: the file is named.
      fake.write(group.resolve("memory.stat"), "hierarchical_memory_limit lots\n");
      java.io.IOException io =
          assertThrows(java.io.IOException.class, () -> factory.newFSDirectory(a, FSLockFactory.getDefault(), index("a", true)));
      assertEquals(group.resolve("memory.stat") + ": not a byte count: \"lots\"", io.getMessage());
    }
  }

  private static void write(Directory directory, String name, byte[] data) throws Exception {
    try (IndexOutput out = directory.createOutput(name, IOContext.DEFAULT)) {
      out.writeBytes(data, data.length);
    }
  }

  private static void readAll(Directory directory, String name, byte[] expected) throws Exception {
    try (IndexInput in = directory.openInput(name, IOContext.DEFAULT)) {
      readAll(in, expected);
    }
  }

  private static void readAll(IndexInput in, byte[] expected) throws Exception {
    byte[] actual = new byte[expected.length];
    in.seek(0);
    in.readBytes(actual, 0, actual.length);
    assertTrue("bytes read back", Arrays.equals(expected, actual));
  }
}
