package dev.pread.codecs;

import dev.pread.store.PreadDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * Guards the codec suites' premise: with the build's {@code tests.directory}, Lucene's {@code
 * newDirectory()} and {@code newFSDirectory()} hand out PreadDirectory reading natively.
 */
public class TestCodecSuitesUsePread extends LuceneTestCase {
  public void testNewDirectoryIsPread() throws Exception {
    assertEquals(PreadDirectory.class.getName(), System.getProperty("tests.directory"));
    for (int i = 0; i < 20; i++) {
      try (Directory dir = newDirectory()) {
        assertNative(dir);
      }
      try (Directory dir = newFSDirectory(createTempDir())) {
        assertNative(dir);
      }
    }
  }

  private static void assertNative(Directory dir) {
    Directory unwrapped = FilterDirectory.unwrap(dir);
    assertTrue(unwrapped.toString(), unwrapped instanceof PreadDirectory);
    assertTrue(((PreadDirectory) unwrapped).isNativePread());
  }
}
