package dev.pread.store;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;
import org.apache.lucene.tests.util.TestUtil;

/** Lucene's directory conformance suite against the native pread path. */
public class TestPreadDirectory extends BaseDirectoryTestCase {
  @Override
  protected Directory getDirectory(Path path) throws IOException {
    // Mostly the default; sometimes a small or odd buffer size, to stress refill edges.
    int bufferSize =
        random().nextBoolean()
            ? PreadDirectory.DEFAULT_BUFFER_SIZE
            : TestUtil.nextInt(random(), PreadDirectory.MIN_BUFFER_SIZE, 70_000);
    PreadDirectory dir = new PreadDirectory(path, FSLockFactory.getDefault(), bufferSize);
    assertTrue(
        "native pread must be available in the test JVM: "
            + PreadDirectory.nativeUnavailableReason().orElse(""),
        dir.isNativePread());
    return dir;
  }
}
