package dev.pread.codecs;

import dev.pread.cache.BlockCache;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * Guards the codec suites' premise: with the build's {@code tests.directory}, Lucene's {@code
 * newDirectory()} and {@code newFSDirectory()} hand out that directory, reading natively:
 * PreadDirectory in the first run of the suites, CachedPreadDirectory (through its block cache, of
 * the size {@code dev.pread.cache.bytes} names) in the second, AdaptiveDirectory (switching read
 * path all the time) in the third (see pread-core/pom.xml).
 */
public class TestCodecSuitesUsePread extends LuceneTestCase {
  private static final String PREAD = PreadDirectory.class.getName();
  private static final String CACHED = CachedPreadDirectory.class.getName();
  private static final String ADAPTIVE = AdaptiveDirectory.class.getName();

  public void testNewDirectoryIsOurs() throws Exception {
    String name = System.getProperty("tests.directory");
    assertTrue(
        "tests.directory=" + name + " is not one of " + PREAD + ", " + CACHED + ", " + ADAPTIVE,
        PREAD.equals(name) || CACHED.equals(name) || ADAPTIVE.equals(name));
    if (ADAPTIVE.equals(name)) {
      assertEquals("alternate", System.getProperty("dev.pread.adaptive.mode"));
    }
    for (int i = 0; i < 20; i++) {
      try (Directory dir = newDirectory()) {
        assertOurs(dir, name);
      }
      try (Directory dir = newFSDirectory(createTempDir())) {
        assertOurs(dir, name);
      }
    }
  }

  private static void assertOurs(Directory dir, String name) {
    Directory unwrapped = FilterDirectory.unwrap(dir);
    assertEquals(unwrapped.toString(), name, unwrapped.getClass().getName());
    if (unwrapped instanceof PreadDirectory pread) {
      assertTrue(pread.isNativePread());
    } else if (unwrapped instanceof AdaptiveDirectory adaptive) {
      // alternate: each check moves to the next read path
      AdaptiveDirectory.ReadPath before = adaptive.readPath();
      try (org.apache.lucene.store.IndexOutput out = adaptive.createOutput("probe", newIOContext(random()))) {
        out.writeLong(42);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      try (org.apache.lucene.store.IndexInput in = adaptive.openInput("probe", newIOContext(random()))) {
        assertNotEquals("an open switches the read path", before, adaptive.readPath());
        assertEquals(42, in.readLong());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    } else {
      CachedPreadDirectory cached = (CachedPreadDirectory) unwrapped;
      assertTrue(cached.isCached());
      BlockCache cache = cached.getCache();
      String bytes = System.getProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY);
      long expected = bytes == null ? CachedPreadDirectory.DEFAULT_CACHE_BYTES : Long.parseLong(bytes);
      assertEquals(expected, cache.budgetBytes());
    }
  }
}
