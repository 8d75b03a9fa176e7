package dev.pread.opensearch;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import dev.pread.store.PreadDirectory;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.routing.ShardRouting;
import org.opensearch.cluster.routing.ShardRoutingState;
import org.opensearch.common.settings.Settings;
import org.opensearch.indices.IndicesService;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchIntegTestCase;

/**
 * Three data nodes with the plugin: an index with {@code index.store.type: pread}, two shards and a
 * replica each, through a shard relocation and the restart of a node holding shards. Every copy's
 * directory must be a PreadDirectory, and every search must return the documents the index must
 * hold, from primaries and replicas alike, before and after each step. {@code
 * index.shard.check_on_startup: true} makes every shard that starts (after creation, relocation or
 * restart) run Lucene's CheckIndex, which reads all its files through PreadDirectory.
 */
@OpenSearchIntegTestCase.ClusterScope(
    scope = OpenSearchIntegTestCase.Scope.TEST,
    numDataNodes = 3,
    numClientNodes = 0,
    supportsDedicatedMasters = false)
public class PreadClusterIT extends OpenSearchIntegTestCase {
  private static final String INDEX = "library";

  @Override
  protected Collection<Class<? extends Plugin>> nodePlugins() {
    return List.of(PreadStorePlugin.class);
  }

  @Override
  protected Settings nodeSettings(int nodeOrdinal) {
    // A node-level default for the index setting (opensearch.yml): the index below does not set it.
    return Settings.builder().put(super.nodeSettings(nodeOrdinal)).put("index.store.pread.buffer_size", "8kb").build();
  }

  public void testReplicasRelocationAndNodeRestart() throws Exception {
    assertAcked(
        client().admin().indices().prepareCreate(INDEX)
            .setSettings(
                Settings.builder()
                    .put("index.store.type", "pread")
                    .put("index.number_of_shards", 2)
                    .put("index.number_of_replicas", 1)
                    .put("index.refresh_interval", "-1")
                    .put("index.shard.check_on_startup", true))
            .setMapping(TestDocs.MAPPING));
    ensureGreen(INDEX);

    TestDocs.index(client(), INDEX, 0, 2000);
    client().admin().indices().prepareRefresh(INDEX).get();
    client().admin().indices().prepareFlush(INDEX).get();
    assertEquals("two shards, two copies each", 4, assertPreadOnEveryCopy());
    assertSearchesEverywhere(IntStream.range(0, 2000));

    // Relocation: keep the index off the node holding shard 0's primary. Its copies move to the
    // other nodes by peer recovery, which reads the files to send through PreadDirectory.
    ClusterState state = clusterState();
    ShardRouting primary = state.routingTable().index(INDEX).shard(0).primaryShard();
    String leaving = state.nodes().get(primary.currentNodeId()).getName();
    assertAcked(
        client().admin().indices().prepareUpdateSettings(INDEX)
            .setSettings(Settings.builder().put("index.routing.allocation.exclude._name", leaving)));
    ensureGreen(INDEX);
    waitForRelocation();
    Set<String> holders = nodesHoldingCopies();
    assertFalse("no copy left on " + leaving + ": " + holders, holders.contains(leaving));
    assertEquals(2, holders.size());
    assertEquals(4, assertPreadOnEveryCopy());
    assertSearchesEverywhere(IntStream.range(0, 2000));

    // More documents after the move, then restart a node that holds copies: its shards recover
    // from the files on its disk (checked on startup) plus what changed while it was away.
    TestDocs.index(client(), INDEX, 2000, 2500);
    client().admin().indices().prepareRefresh(INDEX).get();
    String restarted = holders.iterator().next();
    internalCluster().restartNode(restarted);
    ensureGreen(INDEX);
    waitForRelocation();
    assertTrue("the restarted node holds copies again", nodesHoldingCopies().contains(restarted));
    assertEquals(4, assertPreadOnEveryCopy());
    assertSearchesEverywhere(IntStream.range(0, 2500));
    TestDocs.assertStoredDocuments(client(), INDEX, 0, 1999, 2000, 2499);

    // Deletes and a force-merge on every copy, then delete the index.
    TestDocs.delete(client(), INDEX, 100, 300);
    assertEquals(0, client().admin().indices().prepareForceMerge(INDEX).setMaxNumSegments(1).get().getFailedShards());
    client().admin().indices().prepareRefresh(INDEX).get();
    assertSearchesEverywhere(IntStream.concat(IntStream.range(0, 100), IntStream.range(300, 2500)));
    assertAcked(client().admin().indices().prepareDelete(INDEX));
  }

  /** Asserts every started copy on every node reads through a PreadDirectory; returns their number. */
  private int assertPreadOnEveryCopy() {
    int copies = 0;
    for (String node : internalCluster().getNodeNames()) {
      for (PreadDirectory directory : Directories.onNode(internalCluster().getInstance(IndicesService.class, node), INDEX)) {
        assertEquals("node default index.store.pread.buffer_size", 8192, directory.getBufferSize());
        copies++;
      }
    }
    return copies;
  }

  /** The same expected hits from any copy, from primaries only and from replicas only. */
  private void assertSearchesEverywhere(IntStream live) {
    int[] numbers = live.toArray();
    Map<String, List<String>> any = TestDocs.assertSearches(client(), INDEX, null, IntStream.of(numbers));
    assertEquals(any, TestDocs.assertSearches(client(), INDEX, "_primary", IntStream.of(numbers)));
    assertEquals(any, TestDocs.assertSearches(client(), INDEX, "_replica", IntStream.of(numbers)));
  }

  private static ClusterState clusterState() {
    return client().admin().cluster().prepareState().get().getState();
  }

  private Set<String> nodesHoldingCopies() {
    ClusterState state = clusterState();
    Set<String> names = new TreeSet<>();
    for (ShardRouting copy : state.routingTable().index(INDEX).shardsWithState(ShardRoutingState.STARTED)) {
      names.add(state.nodes().get(copy.currentNodeId()).getName());
    }
    return names;
  }
}
