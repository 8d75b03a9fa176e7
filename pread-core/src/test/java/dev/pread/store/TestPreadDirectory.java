package dev.pread.store;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;

/** Lucene's directory conformance suite against the native pread path. */
public class TestPreadDirectory extends BaseDirectoryTestCase {
  @Override
  protected Directory getDirectory(Path path) throws IOException {
    PreadDirectory dir = new PreadDirectory(path);
    assertTrue(
        "native pread must be available in the test JVM: "
            + PreadDirectory.nativeUnavailableReason().orElse(""),
        dir.isNativePread());
    return dir;
  }
}
