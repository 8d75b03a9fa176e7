package dev.pread.opensearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockFactory;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.index.IndexSettings;
import org.opensearch.index.shard.ShardPath;
import org.opensearch.index.store.FsDirectoryFactory;
import org.opensearch.plugins.IndexStorePlugin;

/**
 * What the plugin's directory factories share: a shard's directory is its index path, with the
 * lock factory the built-in file system store types use ({@code index.store.fs.fs_lock}). The
 * {@code index.store.pread.*} settings are registered once for all store types, and a type ignores
 * those it does not read: when an index sets one of those itself, the shard's opening logs a
 * warning naming it.
 */
abstract class ShardDirectoryFactory implements IndexStorePlugin.DirectoryFactory {
  private static final Logger LOG = LogManager.getLogger(ShardDirectoryFactory.class);

  private final String storeTypeName;
  private final List<Setting<?>> reads;

  /**
   * @param storeTypeName the value of {@code index.store.type} this factory serves
   * @param reads the {@link PreadStoreSettings} this store type reads
   */
  ShardDirectoryFactory(String storeTypeName, List<Setting<?>> reads) {
    this.storeTypeName = storeTypeName;
    this.reads = reads;
  }

  @Override
  public final Directory newDirectory(IndexSettings indexSettings, ShardPath shardPath) throws IOException {
    Path location = shardPath.resolveIndex();
    LockFactory lockFactory = indexSettings.getValue(FsDirectoryFactory.INDEX_LOCK_FACTOR_SETTING);
    List<String> ignored = ignoredSettings(indexSettings.getIndexMetadata().getSettings());
    if (!ignored.isEmpty()) {
      LOG.warn(
          "{}: index.store.type [{}] ignores {}: {}",
          shardPath.getShardId(),
          storeTypeName,
          ignored,
          "they apply to store types pread_plain (all) and pread_cached (prefetch only)");
    }
    Files.createDirectories(location);
    return newFSDirectory(location, lockFactory, indexSettings);
  }

  /** The {@link PreadStoreSettings} that {@code indexOwnSettings} sets and this store type does not read. */
  final List<String> ignoredSettings(Settings indexOwnSettings) {
    return PreadStoreSettings.all().stream()
        .filter(s -> !reads.contains(s) && s.exists(indexOwnSettings))
        .map(Setting::getKey)
        .collect(Collectors.toList());
  }
}
