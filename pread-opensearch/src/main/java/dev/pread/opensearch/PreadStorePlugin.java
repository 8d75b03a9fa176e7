package dev.pread.opensearch;

import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.plugins.IndexStorePlugin;
import org.opensearch.plugins.Plugin;

/**
 * OpenSearch plugin adding two store types:
 *
 * <ul>
 *   <li>{@code pread}: shards read through {@link PreadDirectory}, positional reads through the
 *       page cache. Settings: {@link PreadStoreSettings}.
 *   <li>{@code pread_cached}: shards read through {@link CachedPreadDirectory}, {@code O_DIRECT}
 *       reads into one off-heap block cache per node, of a fixed size, shared by every such shard
 *       ({@link NodeBlockCache}). Node settings: {@link PreadCachedSettings}; index setting {@link
 *       PreadStoreSettings#PREFETCH}.
 * </ul>
 *
 * <p>Native reads need the node's JVM started with {@code --enable-native-access=ALL-UNNAMED}
 * (plugins are loaded in unnamed modules). Without it both types read like {@code niofs}, and {@code
 * pread_cached} has no cache; the node logs which of the two it does when the plugin loads, and the
 * directories log the reason once more when the first such shard opens.
 *
 * <p>OpenSearch constructs the plugin with the node's settings and closes it when the node closes,
 * after the node's shards: {@link #close()} closes the block cache, which stops its prefetch threads
 * and frees its memory.
 */
public class PreadStorePlugin extends Plugin implements IndexStorePlugin {
  private static final Logger LOG = LogManager.getLogger(PreadStorePlugin.class);

  private final NodeBlockCache blockCache;

  /** Called by OpenSearch (one public constructor: it takes the node's settings). */
  public PreadStorePlugin(Settings nodeSettings) {
    this.blockCache = new NodeBlockCache(nodeSettings);
    Optional<String> off = PreadDirectory.nativeUnavailableReason();
    if (off.isEmpty()) {
      LOG.info("store types [pread, pread_cached]: shards read with native pread(2) and, for pread_cached, O_DIRECT");
    } else {
      LOG.warn(
          "store types [pread, pread_cached]: native pread is off ({}); shards of pread and pread_cached indices read"
              + " through FileChannel, like niofs, and pread_cached has no block cache",
          off.get());
    }
  }

  @Override
  public Map<String, DirectoryFactory> getDirectoryFactories() {
    Map<String, DirectoryFactory> factories = new LinkedHashMap<>();
    for (PreadStoreType type : PreadStoreType.values()) {
      factories.put(type.storeTypeName(), type.newFactory(blockCache));
    }
    return factories;
  }

  @Override
  public List<Setting<?>> getSettings() {
    // Store types may share settings; OpenSearch refuses a setting registered twice.
    Set<Setting<?>> settings = new LinkedHashSet<>();
    for (PreadStoreType type : PreadStoreType.values()) {
      settings.addAll(type.settings());
    }
    return new ArrayList<>(settings);
  }

  /** The node's block cache of store type {@code pread_cached}. */
  NodeBlockCache blockCache() {
    return blockCache;
  }

  /** Closes the node's block cache, if {@code pread_cached} shards opened one. */
  @Override
  public void close() throws IOException {
    blockCache.close();
  }
}
