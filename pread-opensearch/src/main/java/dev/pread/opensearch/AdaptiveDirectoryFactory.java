package dev.pread.opensearch;

import dev.pread.store.AdaptiveDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockFactory;
import org.opensearch.index.IndexSettings;

/**
 * Creates the {@link AdaptiveDirectory} of a shard of an index with {@code index.store.type:
 * pread}. It takes no index setting: the choice between memory mappings and the block cache is made
 * for the whole JVM, from the memory the kernel reports and the system properties {@code
 * dev.pread.adaptive.mode} and {@code dev.pread.adaptive.cache.bytes} (see {@link
 * AdaptiveDirectory#describeRegime()}, which the plugin logs when it loads). OpenSearch wraps the
 * directory, so reach it with {@code FilterDirectory.unwrap}.
 */
public class AdaptiveDirectoryFactory extends ShardDirectoryFactory {

  AdaptiveDirectoryFactory() {
    super("pread", List.of());
  }

  @Override
  public Directory newFSDirectory(Path location, LockFactory lockFactory, IndexSettings indexSettings)
      throws IOException {
    return new AdaptiveDirectory(location, lockFactory);
  }
}
