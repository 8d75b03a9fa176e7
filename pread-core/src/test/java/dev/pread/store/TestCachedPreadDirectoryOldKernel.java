package dev.pread.store;

import dev.pread.nativeio.FaultInjection;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.store.BaseDirectoryTestCase;
import org.junit.AfterClass;
import org.junit.BeforeClass;

/**
 * Lucene's directory conformance suite against the O_DIRECT block-cache directory on a simulated
 * kernel whose direct-I/O path checks alignment before end of file (ext4 on Linux 4.18, for one):
 * every unaligned O_DIRECT read fails with EINVAL, as it would there, even one at end of file. The
 * last, partial block of every file must still load.
 */
public class TestCachedPreadDirectoryOldKernel extends BaseDirectoryTestCase {
  private static FaultInjection faults;

  @BeforeClass
  public static void installRule() {
    // Every temporary directory of this class is a sibling of this one.
    Path root = createTempDir("old-kernel").getParent();
    faults = FaultInjection.install(root).failUnalignedDirectReads(4096);
  }

  @AfterClass
  public static void uninstallRule() {
    FaultInjection f = faults;
    faults = null;
    if (f != null) {
      f.close();
      assertEquals(f.summary(), 0, f.injected(FaultInjection.Call.PREAD, FaultInjection.Kind.EINVAL));
      assertTrue("the suite read nothing with O_DIRECT", f.directReads() > 0);
    }
  }

  @Override
  protected Directory getDirectory(Path path) throws IOException {
    return TestCachedPreadDirectory.newRandomDirectory(path);
  }
}
