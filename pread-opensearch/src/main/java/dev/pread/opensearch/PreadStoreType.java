package dev.pread.opensearch;

import java.util.List;
import java.util.function.Supplier;
import org.opensearch.common.settings.Setting;
import org.opensearch.plugins.IndexStorePlugin;

/**
 * The store types this plugin registers, each with its directory factory and settings. A new one
 * (the cached direct-I/O directory, {@code pread_cached}) is one more constant here.
 */
enum PreadStoreType {
  /** {@link dev.pread.store.PreadDirectory}: positional pread into per-input heap buffers. */
  PREAD("pread", PreadDirectoryFactory::new, PreadStoreSettings.all());

  private final String storeTypeName;
  private final Supplier<IndexStorePlugin.DirectoryFactory> factory;
  private final List<Setting<?>> settings;

  PreadStoreType(
      String storeTypeName,
      Supplier<IndexStorePlugin.DirectoryFactory> factory,
      List<Setting<?>> settings) {
    this.storeTypeName = storeTypeName;
    this.factory = factory;
    this.settings = settings;
  }

  /** The value of {@code index.store.type} that selects this store. */
  String storeTypeName() {
    return storeTypeName;
  }

  IndexStorePlugin.DirectoryFactory newFactory() {
    return factory.get();
  }

  List<Setting<?>> settings() {
    return settings;
  }
}
