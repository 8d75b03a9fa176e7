package dev.pread.store;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Lucene's directory conformance suite against {@link AdaptiveDirectory}, in a mode chosen by
 * seed: always mappings, always the block cache (sometimes of a few blocks, so that reads evict
 * each other constantly), or switching between the two at every open, clone, slice and prefetch,
 * so that open inputs change their read path in the middle of their reads.
 */
public class TestAdaptiveDirectory extends BaseDirectoryTestCase {
  @Override
  protected Directory getDirectory(Path path) throws IOException {
    AdaptiveRegime.Mode[] modes = {AdaptiveRegime.Mode.MAPPED, AdaptiveRegime.Mode.CACHED, AdaptiveRegime.Mode.ALTERNATE};
    AdaptiveRegime.Mode mode = modes[random().nextInt(modes.length)];
    int blocks = random().nextBoolean() ? TestUtil.nextInt(random(), 1, 8) : TestUtil.nextInt(random(), 64, 512);
    return new AdaptiveDirectory(
        path, FSLockFactory.getDefault(), AdaptiveDirectory.regime(mode, (long) blocks * AdaptiveRegime.CACHE_BLOCK_SIZE));
  }
}
