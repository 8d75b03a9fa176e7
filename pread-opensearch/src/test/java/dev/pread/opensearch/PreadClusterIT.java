package dev.pread.opensearch;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import dev.pread.cache.BlockCache;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.routing.RecoverySource;
import org.opensearch.cluster.routing.ShardRouting;
import org.opensearch.cluster.routing.ShardRoutingState;
import org.opensearch.common.settings.Settings;
import org.opensearch.indices.IndicesService;
import org.opensearch.indices.recovery.RecoveryState;
import org.opensearch.indices.replication.common.ReplicationLuceneIndex;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginsService;
import org.opensearch.test.OpenSearchIntegTestCase;

/**
 * Three data nodes with the plugin: an index with {@code index.store.type: pread} ({@code
 * AdaptiveDirectory}), one with {@code pread_plain} and one with {@code pread_cached}, two shards
 * and a replica each, through a shard relocation and the restart of
 * a node holding shards. Every copy's directory must be the store type's, each {@code pread_cached}
 * copy reading through its node's one block cache, and every search must return the documents the
 * index must hold, from primaries and replicas alike, before and after each step. {@code
 * index.shard.check_on_startup: true} makes every shard that starts (after creation, relocation or
 * restart) run Lucene's CheckIndex, which reads all its files through the plugin's directory.
 *
 * <p>Relocation: the node that leaves holds copies of the most indices (of all three, as the
 * allocator spreads each index over the nodes), and for each index it held copies of the
 * recovery API must show each of those copies rebuilt on another node by a peer recovery that
 * copied files (read through the source's plugin directory). Restart: the recovery of every copy
 * on the restarted node must have used the files on its disk: a recovery from the existing store,
 * or a peer recovery that either reused files it had or needed none (operations only). The
 * restarted node's old cache must be closed (the plugin closes it with the node) and the new node
 * must build a new one.
 */
@OpenSearchIntegTestCase.ClusterScope(
    scope = OpenSearchIntegTestCase.Scope.TEST,
    numDataNodes = 3,
    numClientNodes = 0,
    supportsDedicatedMasters = false)
public class PreadClusterIT extends OpenSearchIntegTestCase {
  private static final String INDEX = "library";
  private static final String PLAIN = "library-plain";
  private static final String CACHED = "library-cached";
  private static final String[] INDICES = {INDEX, PLAIN, CACHED};

  @Override
  protected Collection<Class<? extends Plugin>> nodePlugins() {
    return List.of(PreadStorePlugin.class);
  }

  @Override
  protected Settings nodeSettings(int nodeOrdinal) {
    return Settings.builder()
        .put(super.nodeSettings(nodeOrdinal))
        // A node-level default for the index setting (opensearch.yml): the pread_plain index does not set it.
        .put("index.store.pread.buffer_size", "8kb")
        // The node's pread_cached cache, small: three nodes share this JVM.
        .put("node.store.pread_cached.size", "32mb")
        .put("node.store.pread_cached.block_size", "8kb")
        .put("node.store.pread_cached.prefetch_threads", 2)
        .build();
  }

  private static Settings.Builder indexSettings(String storeType) {
    return Settings.builder()
        .put("index.store.type", storeType)
        .put("index.number_of_shards", 2)
        .put("index.number_of_replicas", 1)
        .put("index.refresh_interval", "-1")
        .put("index.shard.check_on_startup", true);
  }

  public void testReplicasRelocationAndNodeRestart() throws Exception {
    assertAcked(client().admin().indices().prepareCreate(INDEX).setSettings(indexSettings("pread")).setMapping(TestDocs.MAPPING));
    assertAcked(client().admin().indices().prepareCreate(PLAIN).setSettings(indexSettings("pread_plain")).setMapping(TestDocs.MAPPING));
    assertAcked(client().admin().indices().prepareCreate(CACHED).setSettings(indexSettings("pread_cached")).setMapping(TestDocs.MAPPING));
    ensureGreen(INDICES);

    for (String index : INDICES) {
      TestDocs.index(client(), index, 0, 2000);
    }
    client().admin().indices().prepareRefresh(INDICES).get();
    client().admin().indices().prepareFlush(INDICES).get();
    assertEquals("two shards, two copies each", 4, assertPreadOnEveryCopy());
    assertEquals("two shards, two copies each", 4, assertCachedOnEveryCopy());
    assertSearchesEverywhere(IntStream.range(0, 2000));

    // Relocation: keep every index off the node holding copies of the most indices (each index's
    // four copies cover at least two of the three nodes; the allocator spreads them over all three).
    // The copies move to the other nodes by peer recovery, which reads the files to send through the
    // plugin's directories.
    Map<String, Map<Integer, Set<String>>> beforeMove = new TreeMap<>();
    for (String index : INDICES) {
      beforeMove.put(index, copiesByShard(index));
    }
    Map<String, Integer> indicesOnNode = new TreeMap<>();
    for (String index : INDICES) {
      for (String node : nodesHoldingCopies(index)) {
        indicesOnNode.merge(node, 1, Integer::sum);
      }
    }
    String leaving = indicesOnNode.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    assertTrue("a node holds copies of two indices or more: " + beforeMove, indicesOnNode.get(leaving) >= 2);
    assertAcked(
        client().admin().indices().prepareUpdateSettings(INDICES)
            .setSettings(Settings.builder().put("index.routing.allocation.exclude._name", leaving)));
    ensureGreen(INDICES);
    waitForRelocation();
    Set<String> holders = nodesHoldingCopies(INDEX);
    assertFalse("no copy left on " + leaving + ": " + holders, holders.contains(leaving));
    assertEquals(2, holders.size());
    for (String index : INDICES) {
      assertEquals(index + " moved to the same two nodes", holders, nodesHoldingCopies(index));
    }
    for (String index : INDICES) {
      assertMovedByPeerRecovery(index, leaving, beforeMove.get(index));
    }
    assertEquals(4, assertPreadOnEveryCopy());
    assertEquals(4, assertCachedOnEveryCopy());
    assertSearchesEverywhere(IntStream.range(0, 2000));

    // More documents after the move, then restart a node that holds copies: its shards recover
    // from the files on its disk (checked on startup) plus what changed while it was away. The
    // node closes its plugin, and so its cache; the new node builds another.
    for (String index : INDICES) {
      TestDocs.index(client(), index, 2000, 2500);
    }
    client().admin().indices().prepareRefresh(INDICES).get();
    String restarted = holders.iterator().next();
    BlockCache oldCache = Directories.nodeCache(internalCluster().getInstance(PluginsService.class, restarted));
    internalCluster().restartNode(restarted);
    ensureGreen(INDICES);
    waitForRelocation();
    if (oldCache != null) {
      assertTrue("the restarted node closed its cache: " + oldCache, oldCache.isClosed());
    }
    assertTrue("the restarted node holds copies again", nodesHoldingCopies(INDEX).contains(restarted));
    assertTrue("the restarted node holds plain copies again", nodesHoldingCopies(PLAIN).contains(restarted));
    assertTrue("the restarted node holds cached copies again", nodesHoldingCopies(CACHED).contains(restarted));
    for (String index : INDICES) {
      assertRecoveredFromLocalFiles(index, restarted);
    }
    BlockCache newCache = Directories.nodeCache(internalCluster().getInstance(PluginsService.class, restarted));
    if (newCache != null) {
      assertNotSame(oldCache, newCache);
      assertFalse(newCache.isClosed());
    }
    assertEquals(4, assertPreadOnEveryCopy());
    assertEquals(4, assertCachedOnEveryCopy());
    assertSearchesEverywhere(IntStream.range(0, 2500));
    for (String index : INDICES) {
      TestDocs.assertStoredDocuments(client(), index, 0, 1999, 2000, 2499);
    }

    // Deletes and a force-merge on every copy, then delete the indices.
    for (String index : INDICES) {
      TestDocs.delete(client(), index, 100, 300);
    }
    assertEquals(0, client().admin().indices().prepareForceMerge(INDICES).setMaxNumSegments(1).get().getFailedShards());
    client().admin().indices().prepareRefresh(INDICES).get();
    assertSearchesEverywhere(IntStream.concat(IntStream.range(0, 100), IntStream.range(300, 2500)));
    assertAcked(client().admin().indices().prepareDelete(INDICES));
  }

  /**
   * Asserts every started copy of the pread index reads through an AdaptiveDirectory, and every
   * copy of the pread_plain index through a PreadDirectory with the node's default buffer size;
   * returns the number of copies of each, which must be equal.
   */
  private int assertPreadOnEveryCopy() {
    int adaptive = 0;
    int plain = 0;
    for (String node : internalCluster().getNodeNames()) {
      IndicesService indices = internalCluster().getInstance(IndicesService.class, node);
      adaptive += Directories.adaptiveOnNode(indices, INDEX).size();
      for (PreadDirectory directory : Directories.onNode(indices, PLAIN)) {
        assertEquals("node default index.store.pread.buffer_size", 8192, directory.getBufferSize());
        plain++;
      }
    }
    assertEquals("copies of " + INDEX + " and of " + PLAIN, adaptive, plain);
    return adaptive;
  }

  /**
   * Asserts every started copy of the pread_cached index reads through its node's cache, built from
   * the node settings; returns their number.
   */
  private int assertCachedOnEveryCopy() {
    int copies = 0;
    for (String node : internalCluster().getNodeNames()) {
      PluginsService plugins = internalCluster().getInstance(PluginsService.class, node);
      // Built on a node once it opened a pread_cached shard (and kept if they all moved away).
      BlockCache cache = plugins.filterPlugins(PreadStorePlugin.class).get(0).blockCache().current().orElse(null);
      if (cache != null) {
        assertEquals("node.store.pread_cached.size", 32L << 20, cache.budgetBytes());
        assertEquals("node.store.pread_cached.block_size", 8192, cache.blockSize());
      }
      copies += Directories.cachedOnNode(internalCluster().getInstance(IndicesService.class, node), CACHED, cache).size();
    }
    return copies;
  }

  /** The same expected hits from any copy, from primaries only and from replicas only. */
  private void assertSearchesEverywhere(IntStream live) {
    int[] numbers = live.toArray();
    for (String index : INDICES) {
      Map<String, List<String>> any = TestDocs.assertSearches(client(), index, null, IntStream.of(numbers));
      assertEquals(any, TestDocs.assertSearches(client(), index, "_primary", IntStream.of(numbers)));
      assertEquals(any, TestDocs.assertSearches(client(), index, "_replica", IntStream.of(numbers)));
    }
  }

  /**
   * Asserts that each shard of {@code index} that had a copy on {@code leaving} has, instead, a new
   * copy on another node, built by a finished peer recovery that copied files.
   */
  private void assertMovedByPeerRecovery(String index, String leaving, Map<Integer, Set<String>> before) {
    Map<Integer, Set<String>> after = copiesByShard(index);
    int moved = 0;
    for (Map.Entry<Integer, Set<String>> shard : before.entrySet()) {
      if (!shard.getValue().contains(leaving)) {
        continue;
      }
      Set<String> added = new TreeSet<>(after.getOrDefault(shard.getKey(), Set.of()));
      added.removeAll(shard.getValue());
      String where = index + "[" + shard.getKey() + "] " + shard.getValue() + " -> " + after.get(shard.getKey());
      assertEquals(where + ": one new copy for the one that left " + leaving, 1, added.size());
      RecoveryState recovery = recoveryOf(index, shard.getKey(), added.iterator().next());
      logger.info("moved off {}: {}: {}", leaving, where, describe(recovery));
      assertEquals(where + ": " + describe(recovery), RecoverySource.Type.PEER, recovery.getRecoverySource().getType());
      assertEquals(where + ": " + describe(recovery), RecoveryState.Stage.DONE, recovery.getStage());
      assertTrue(
          where + ": files copied from the peer: " + describe(recovery),
          recovery.getIndex().recoveredFileCount() > 0 && recovery.getIndex().recoveredBytes() > 0);
      moved++;
    }
    if (moved == 0) {
      logger.info("{}: {} held no copy to move: {}", index, leaving, before);
    }
  }

  /**
   * Asserts that every copy of {@code index} on {@code node} was recovered from the files on its
   * disk, not by copying the shard from a peer: from its existing store, or by a peer recovery that
   * reused files it had, or that received no files and fewer operations from the peer than the
   * copy holds documents (it started from its own commit and replayed its own translog).
   */
  private void assertRecoveredFromLocalFiles(String index, String node) {
    int copies = 0;
    for (Map.Entry<Integer, Set<String>> shard : copiesByShard(index).entrySet()) {
      if (!shard.getValue().contains(node)) {
        continue;
      }
      RecoveryState recovery = recoveryOf(index, shard.getKey(), node);
      long docs =
          internalCluster().getInstance(IndicesService.class, node).indexServiceSafe(resolveIndex(index))
              .getShard(shard.getKey()).docStats().getCount();
      String where = index + "[" + shard.getKey() + "] on " + node + ", " + docs + " documents: " + describe(recovery);
      logger.info("after the restart: {}", where);
      assertEquals(where, RecoveryState.Stage.DONE, recovery.getStage());
      RecoverySource.Type type = recovery.getRecoverySource().getType();
      ReplicationLuceneIndex files = recovery.getIndex();
      boolean local =
          type == RecoverySource.Type.EXISTING_STORE
              || (type == RecoverySource.Type.PEER
                  && (files.reusedBytes() > 0
                      || (files.totalFileCount() == 0 && operationsFromPeer(recovery) < docs)));
      assertTrue(where + ": recovered by copying the shard from a peer, not from the files on its disk", local);
      copies++;
    }
    assertEquals(index + ": copies on " + node, 2, copies);
  }

  /** The recovery that built the current copy of {@code index}[{@code shard}] on {@code node}. */
  private static RecoveryState recoveryOf(String index, int shard, String node) {
    List<RecoveryState> states =
        client().admin().indices().prepareRecoveries(index).get().shardRecoveryStates().getOrDefault(index, List.of());
    for (RecoveryState state : states) {
      if (state.getShardId().id() == shard && state.getTargetNode().getName().equals(node)) {
        return state;
      }
    }
    throw new AssertionError("no recovery of " + index + "[" + shard + "] on " + node + " among " + states.size());
  }

  /** Operations a recovery replayed that did not come from the copy's own translog. */
  private static long operationsFromPeer(RecoveryState r) {
    return r.getTranslog().recoveredOperations() - Math.max(0, r.getTranslog().totalLocal());
  }

  private static String describe(RecoveryState r) {
    ReplicationLuceneIndex files = r.getIndex();
    return String.format(
        Locale.ROOT,
        "%s recovery, stage %s, %s -> %s, primary %s; files: %d (%d reused, %d recovered), bytes: %d (%d reused, %d"
            + " recovered); translog: %d operations recovered, %d from the local translog (-1: none read)",
        r.getRecoverySource().getType(), r.getStage(), r.getSourceNode() == null ? "-" : r.getSourceNode().getName(),
        r.getTargetNode().getName(), r.getPrimary(), files.totalFileCount(), files.reusedFileCount(),
        files.recoveredFileCount(), files.totalBytes(), files.reusedBytes(), files.recoveredBytes(),
        r.getTranslog().recoveredOperations(), r.getTranslog().totalLocal());
  }

  /** Shard number to the names of the nodes holding a started copy of it. */
  private static Map<Integer, Set<String>> copiesByShard(String index) {
    ClusterState state = clusterState();
    Map<Integer, Set<String>> copies = new TreeMap<>();
    for (ShardRouting copy : state.routingTable().index(index).shardsWithState(ShardRoutingState.STARTED)) {
      copies.computeIfAbsent(copy.id(), k -> new TreeSet<>()).add(state.nodes().get(copy.currentNodeId()).getName());
    }
    return copies;
  }

  private static ClusterState clusterState() {
    return client().admin().cluster().prepareState().get().getState();
  }

  private Set<String> nodesHoldingCopies(String index) {
    ClusterState state = clusterState();
    Set<String> names = new TreeSet<>();
    for (ShardRouting copy : state.routingTable().index(index).shardsWithState(ShardRoutingState.STARTED)) {
      names.add(state.nodes().get(copy.currentNodeId()).getName());
    }
    return names;
  }
}
