package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.pread.store.PreadDirectory;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.opensearch.index.IndexService;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;

/** Reaches the Lucene directory under OpenSearch's wrappers, for tests with the plugin on the classpath. */
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
}
