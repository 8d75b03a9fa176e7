package dev.pread.store;

import dev.pread.cache.BlockCache;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's directory conformance suite against the O_DIRECT block-cache directory, with the block
 * size and the cache's size randomized by seed: sometimes a cache of a few blocks, so that reads
 * evict each other constantly.
 */
public class TestCachedPreadDirectory extends BaseDirectoryTestCase {
  @Override
  protected Directory getDirectory(Path path) throws IOException {
    int blockSize = 1 << TestUtil.nextInt(random(), 12, 16);
    int blocks = random().nextBoolean() ? TestUtil.nextInt(random(), 1, 8) : TestUtil.nextInt(random(), 64, 512);
    BlockCache cache =
        BlockCache.builder((long) blocks * blockSize)
            .blockSize(blockSize)
            .prefetchThreads(TestUtil.nextInt(random(), 1, 4))
            .maxPrefetchBlocks(TestUtil.nextInt(random(), 1, 32))
            .build();
    CachedPreadDirectory dir = new CachedPreadDirectory(path, FSLockFactory.getDefault(), cache);
    assertTrue(dir.isCached());
    // The directory does not own a shared cache: close it with the directory.
    return new FilterDirectory(dir) {
      @Override
      public void close() throws IOException {
        try {
          super.close();
        } finally {
          cache.close();
        }
      }
    };
  }
}
