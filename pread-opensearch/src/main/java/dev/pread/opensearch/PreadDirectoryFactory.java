package dev.pread.opensearch;

import dev.pread.store.PreadDirectory;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.LockFactory;
import org.opensearch.index.IndexSettings;

/**
 * Creates the {@link PreadDirectory} of a shard of an index with {@code index.store.type:
 * pread_plain}, configured from {@link PreadStoreSettings} (all three apply). OpenSearch wraps it
 * (store statistics, checksums), so reach it with {@code FilterDirectory.unwrap}.
 */
public class PreadDirectoryFactory extends ShardDirectoryFactory {

  PreadDirectoryFactory() {
    super("pread_plain", PreadStoreSettings.all());
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
