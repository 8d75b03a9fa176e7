package dev.pread.opensearch;

import dev.pread.store.AdaptiveDirectory;
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
 * OpenSearch plugin adding three store types:
 *
 * <ul>
 *   <li>{@code pread}: shards read through {@link AdaptiveDirectory}: memory mappings while the
 *       open index files fit in the memory left for file pages, one JVM-wide block cache once they
 *       do not. No setting of its own: the system properties {@code dev.pread.adaptive.mode} and
 *       {@code dev.pread.adaptive.cache.bytes} override its choice for the whole JVM.
 *   <li>{@code pread_plain}: shards read through {@link PreadDirectory}, positional reads through
 *       the page cache. Settings: {@link PreadStoreSettings}.
 *   <li>{@code pread_cached}: shards read through {@link CachedPreadDirectory}, {@code O_DIRECT}
 *       reads into one off-heap block cache per node shared by every such shard ({@link
 *       NodeBlockCache}), of the size set or, by default, sized from the container ({@link
 *       NodeCacheSizing}). Node settings: {@link PreadCachedSettings}; index setting {@link
 *       PreadStoreSettings#PREFETCH}.
 * </ul>
 *
 * <p>When it loads, the plugin logs what {@code pread} shards will do ({@link
 * AdaptiveDirectory#describeRegime()}: the mode, the rule and the memory figures), and a node
 * whose {@code dev.pread.adaptive.*} system properties are invalid refuses to start.
 *
 * <p>Native reads need the node's JVM started with {@code --enable-native-access=ALL-UNNAMED}
 * (plugins are loaded in unnamed modules). Without it {@code pread_plain} and {@code pread_cached}
 * read like {@code niofs}, {@code pread_cached} has no cache, and {@code pread} reads memory
 * mappings only; the node logs which it does when the plugin loads, and the directories log the
 * reason once more when the first such shard opens.
 *
 * <p>OpenSearch constructs the plugin with the node's settings and closes it when the node closes,
 * after the node's shards: {@link #close()} closes the node's block cache, which stops its prefetch
 * threads and frees its memory. The JVM-wide cache of {@code pread} shards is freed when the last of
 * them closes.
 */
public class PreadStorePlugin extends Plugin implements IndexStorePlugin {
  private static final Logger LOG = LogManager.getLogger(PreadStorePlugin.class);

  private final NodeBlockCache blockCache;

  /**
   * Called by OpenSearch (one public constructor: it takes the node's settings).
   *
   * @throws IllegalArgumentException if a {@code dev.pread.adaptive.*} system property is invalid
   */
  public PreadStorePlugin(Settings nodeSettings) {
    this.blockCache = new NodeBlockCache(nodeSettings);
    Optional<String> off = PreadDirectory.nativeUnavailableReason();
    if (off.isEmpty()) {
      LOG.info(
          "store types [pread, pread_plain, pread_cached]: shards read with native pread(2) and, for pread_cached,"
              + " O_DIRECT");
    } else {
      LOG.warn(
          "store types [pread, pread_plain, pread_cached]: native pread is off ({}); shards of pread_plain and"
              + " pread_cached indices read through FileChannel, like niofs, pread_cached has no block cache, and pread"
              + " reads memory mappings only",
          off.get());
    }
    LOG.info("store type [pread]: AdaptiveDirectory, for the whole JVM: {}", AdaptiveDirectory.describeRegime());
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
