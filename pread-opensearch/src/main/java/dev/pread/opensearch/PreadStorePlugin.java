package dev.pread.opensearch;

import dev.pread.store.PreadDirectory;
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
import org.opensearch.plugins.IndexStorePlugin;
import org.opensearch.plugins.Plugin;

/**
 * OpenSearch plugin adding store type {@code pread}: an index created with {@code
 * index.store.type: pread} reads its shards through {@link PreadDirectory}. Settings: {@link
 * PreadStoreSettings}.
 *
 * <p>Native reads need the node's JVM started with {@code --enable-native-access=ALL-UNNAMED}
 * (plugins are loaded in unnamed modules). Without it the directory reads like {@code niofs}; the
 * node logs which of the two it does when the plugin loads, and {@link PreadDirectory} logs the
 * reason once more when the first such shard opens.
 */
public class PreadStorePlugin extends Plugin implements IndexStorePlugin {
  private static final Logger LOG = LogManager.getLogger(PreadStorePlugin.class);

  public PreadStorePlugin() {
    Optional<String> off = PreadDirectory.nativeUnavailableReason();
    if (off.isEmpty()) {
      LOG.info("store type [pread]: shards read with native pread(2)");
    } else {
      LOG.warn(
          "store type [pread]: native pread is off ({}); shards of pread indices read through FileChannel, like niofs",
          off.get());
    }
  }

  @Override
  public Map<String, DirectoryFactory> getDirectoryFactories() {
    Map<String, DirectoryFactory> factories = new LinkedHashMap<>();
    for (PreadStoreType type : PreadStoreType.values()) {
      factories.put(type.storeTypeName(), type.newFactory());
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
}
