package dev.pread.store;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;

/** Lucene's directory conformance suite with the NIOFS-style fallback forced. */
public class TestPreadDirectoryFallback extends BaseDirectoryTestCase {
  @Override
  protected Directory getDirectory(Path path) throws IOException {
    PreadDirectory dir =
        new PreadDirectory(path, FSLockFactory.getDefault(), PreadDirectory.DEFAULT_BUFFER_SIZE, true);
    assertFalse(dir.isNativePread());
    return dir;
  }
}
