package dev.pread.opensearch;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.opensearch.common.settings.Setting;
import org.opensearch.plugins.IndexStorePlugin;

/**
 * The store types this plugin registers, each with its directory factory and settings. A factory
 * is made from the node's {@link NodeBlockCache}, which only {@code pread_cached} uses. Settings
 * shared by several types are registered once.
 */
enum PreadStoreType {
  /**
   * {@link dev.pread.store.AdaptiveDirectory}: memory mappings while the open index files fit in the
   * memory left for file pages, a JVM-wide block cache once they do not. No index setting.
   */
  PREAD("pread", cache -> new AdaptiveDirectoryFactory(), List.of()),

  /** {@link dev.pread.store.PreadDirectory}: positional pread into per-input heap buffers. */
  PREAD_PLAIN("pread_plain", cache -> new PreadDirectoryFactory(), PreadStoreSettings.all()),

  /**
   * {@link dev.pread.store.CachedPreadDirectory}: {@code O_DIRECT} reads into the node's one
   * off-heap block cache, sized by the node settings {@link PreadCachedSettings}.
   */
  PREAD_CACHED(
      "pread_cached",
      CachedPreadDirectoryFactory::new,
      concat(List.of(PreadStoreSettings.PREFETCH), PreadCachedSettings.all()));

  private final String storeTypeName;
  private final Function<NodeBlockCache, IndexStorePlugin.DirectoryFactory> factory;
  private final List<Setting<?>> settings;

  PreadStoreType(
      String storeTypeName,
      Function<NodeBlockCache, IndexStorePlugin.DirectoryFactory> factory,
      List<Setting<?>> settings) {
    this.storeTypeName = storeTypeName;
    this.factory = factory;
    this.settings = settings;
  }

  /** The value of {@code index.store.type} that selects this store. */
  String storeTypeName() {
    return storeTypeName;
  }

  IndexStorePlugin.DirectoryFactory newFactory(NodeBlockCache nodeCache) {
    return factory.apply(nodeCache);
  }

  /** The index and node settings this store type reads. */
  List<Setting<?>> settings() {
    return settings;
  }

  private static List<Setting<?>> concat(List<Setting<?>> first, List<Setting<?>> second) {
    List<Setting<?>> all = new ArrayList<>(first);
    all.addAll(second);
    return List.copyOf(all);
  }
}
