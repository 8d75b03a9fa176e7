package dev.pread.opensearch;

import dev.pread.store.PreadDirectory;
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
 * Creates the {@link PreadDirectory} of a shard of an index with {@code index.store.type: pread},
 * configured from {@link PreadStoreSettings}. OpenSearch wraps it (store statistics, checksums), so
 * reach it with {@code FilterDirectory.unwrap}.
 */
public class PreadDirectoryFactory implements IndexStorePlugin.DirectoryFactory {

  @Override
  public Directory newDirectory(IndexSettings indexSettings, ShardPath shardPath) throws IOException {
    Path location = shardPath.resolveIndex();
    // The lock factory the built-in file system store types use (index.store.fs.fs_lock).
    LockFactory lockFactory = indexSettings.getValue(FsDirectoryFactory.INDEX_LOCK_FACTOR_SETTING);
    Files.createDirectories(location);
    return newFSDirectory(location, lockFactory, indexSettings);
  }

  @Override
  public Directory newFSDirectory(Path location, LockFactory lockFactory, IndexSettings indexSettings)
      throws IOException {
    int bufferSize = Math.toIntExact(indexSettings.getValue(PreadStoreSettings.BUFFER_SIZE).getBytes());
    PreadDirectory directory = new PreadDirectory(location, lockFactory, bufferSize);
    directory.setReadAdvice(indexSettings.getValue(PreadStoreSettings.READ_ADVICE).function());
    directory.setPrefetch(indexSettings.getValue(PreadStoreSettings.PREFETCH));
    return directory;
  }
}
