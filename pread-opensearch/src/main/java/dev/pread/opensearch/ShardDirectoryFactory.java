package dev.pread.opensearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockFactory;
import org.opensearch.index.IndexSettings;
import org.opensearch.index.shard.ShardPath;
import org.opensearch.index.store.FsDirectoryFactory;
import org.opensearch.plugins.IndexStorePlugin;

/**
 * What the plugin's directory factories share: a shard's directory is its index path, with the
 * lock factory the built-in file system store types use ({@code index.store.fs.fs_lock}).
 */
abstract class ShardDirectoryFactory implements IndexStorePlugin.DirectoryFactory {

  @Override
  public final Directory newDirectory(IndexSettings indexSettings, ShardPath shardPath) throws IOException {
    Path location = shardPath.resolveIndex();
    LockFactory lockFactory = indexSettings.getValue(FsDirectoryFactory.INDEX_LOCK_FACTOR_SETTING);
    Files.createDirectories(location);
    return newFSDirectory(location, lockFactory, indexSettings);
  }
}
