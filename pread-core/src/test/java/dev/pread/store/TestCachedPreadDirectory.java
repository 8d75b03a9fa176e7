package dev.pread.store;

import dev.pread.cache.BlockCache;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's directory conformance suite against the O_DIRECT block-cache directory, with the block
 * size and the cache's size randomized by seed: sometimes a cache of a few blocks, so that reads
 * evict each other constantly.
 *
 * <p>{@link #getDirectory} returns the {@link CachedPreadDirectory} itself, not a wrapper: the
 * suite runs its {@link FSDirectory}-only tests ({@code testPendingDeletions}, {@code
 * testFsyncDoesntCreateNewFiles}) only on a directory that is an {@code FSDirectory}.
 */
public class TestCachedPreadDirectory extends BaseDirectoryTestCase {
  @Override
  protected Directory getDirectory(Path path) throws IOException {
    return newRandomDirectory(path);
  }

  /**
   * A CachedPreadDirectory over a cache of its own with block size, size, prefetch threads and
   * in-flight cap drawn from the test's random source; closing it closes the cache.
   */
  static CachedPreadDirectory newRandomDirectory(Path path) throws IOException {
    int blockSize = 1 << TestUtil.nextInt(random(), 12, 16);
    int blocks = random().nextBoolean() ? TestUtil.nextInt(random(), 1, 8) : TestUtil.nextInt(random(), 64, 512);
    BlockCache cache =
        BlockCache.builder((long) blocks * blockSize)
            .blockSize(blockSize)
            .prefetchThreads(TestUtil.nextInt(random(), 1, 4))
            .maxPrefetchBlocks(TestUtil.nextInt(random(), 1, 32))
            .build();
    CachedPreadDirectory dir = new ClosingItsCache(path, cache);
    assertTrue(dir.isCached());
    return dir;
  }

  /** Ensures the suite's FSDirectory-only tests see an FSDirectory, so that they are not skipped. */
  public void testDirectoryIsAnFSDirectory() throws IOException {
    try (Directory dir = getDirectory(createTempDir())) {
      assertTrue(dir.getClass().getName(), dir instanceof FSDirectory);
    }
  }

  /**
   * A directory with a cache of its own size: the constructor that takes a cache leaves it open (a
   * shared cache outlives its directories), so this one closes it with the directory.
   */
  private static final class ClosingItsCache extends CachedPreadDirectory {
    private final BlockCache cache;

    ClosingItsCache(Path path, BlockCache cache) throws IOException {
      super(path, FSLockFactory.getDefault(), cache);
      this.cache = cache;
    }

    @Override
    public synchronized void close() throws IOException {
      try {
        super.close();
      } finally {
        cache.close();
      }
    }
  }
}
