package dev.pread.nativeio;

import dev.pread.nativeio.MappedFiles.MapAdvice;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.Unwrappable;

/** Mappings: the kernel release check, and {@code MADV_POPULATE_READ}'s range, bounds and errors. */
public class TestMappedFiles extends LuceneTestCase {
  private static final long PAGE = MappedFiles.PAGE;

  public void testKernelRelease() {
    assertTrue(MappedFiles.kernelAtLeast("5.18.0", 5, 18));
    assertTrue(MappedFiles.kernelAtLeast("6.1.0-18-amd64", 5, 18));
    assertTrue(MappedFiles.kernelAtLeast("6.18.44-fc-v657", 5, 18));
    assertTrue(MappedFiles.kernelAtLeast("10.0", 5, 18));
    assertFalse(MappedFiles.kernelAtLeast("5.17.9", 5, 18));
    assertFalse(MappedFiles.kernelAtLeast("4.19.0", 5, 18));
    assertFalse(MappedFiles.kernelAtLeast("", 5, 18));
    assertFalse(MappedFiles.kernelAtLeast("Darwin", 5, 18));
    assertFalse(MappedFiles.kernelAtLeast("99999999999.1", 5, 18));
  }

  /**
   * Populating a range of a cold file caches exactly the pages of that range, whatever the
   * mapping's advice: with {@code HUGEPAGE} and {@code RANDOM} an aligned 2 MiB span is one folio.
   */
  public void testPopulateCachesTheRange() throws IOException {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    Path file = Unwrappable.unwrapAll(createTempDir()).resolve("data");
    long spans = 3;
    byte[] bytes = new byte[(int) (spans * MappedFiles.HUGE)];
    random().nextBytes(bytes);
    Files.write(file, bytes);
    boolean huge = random().nextBoolean() && MappedFiles.hugeFaults();
    try (NativeFile f = NativeFile.open(file);
        Arena arena = Arena.ofShared()) {
      makeCold(f);
      MemorySegment m = MappedFiles.map(file, f.size(), arena);
      if (huge) {
        MappedFiles.advise(m, 0, f.size(), MapAdvice.HUGEPAGE);
      }
      assertTrue(MappedFiles.advise(m, 0, f.size(), MapAdvice.RANDOM));
      long start = MappedFiles.HUGE;
      long length = random().nextBoolean() ? MappedFiles.HUGE : PAGE * random().nextInt(1, 512);
      assumeTrue("the kernel refuses MADV_POPULATE_READ (Linux 5.14+)", MappedFiles.populate(m, file, start, length));
      long pages = (length + PAGE - 1) / PAGE;
      assertEquals("huge advice " + huge, pages, f.cachedPages(start, length));
      assertEquals("before the range, huge advice " + huge, 0, f.cachedPages(0, start));
      long after = start + pages * PAGE;
      if (!huge || length == MappedFiles.HUGE) { // a huge folio covers its whole span
        assertEquals("after the range, huge advice " + huge, 0, f.cachedPages(after, f.size() - after));
      }
      assertEquals(bytes[(int) start], m.get(java.lang.foreign.ValueLayout.JAVA_BYTE, start));
    }
  }

  /** A range past the file's end (the file shrank after the mapping) gives an error naming the file. */
  public void testPopulatePastTheEndNamesTheFile() throws IOException {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    Path file = Unwrappable.unwrapAll(createTempDir()).resolve("short");
    Files.write(file, new byte[(int) (4 * PAGE)]);
    try (Arena arena = Arena.ofShared()) {
      MemorySegment m = MappedFiles.map(file, 4 * PAGE, arena);
      try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
        c.truncate(PAGE);
      }
      try {
        boolean known = MappedFiles.populate(m, file, 0, 4 * PAGE);
        assumeTrue("the kernel refuses MADV_POPULATE_READ (Linux 5.14+)", known);
        fail("populated past the end of " + file);
      } catch (IOException e) {
        assertTrue(e.getMessage(), e.getMessage().contains(file.toString()));
        assertTrue(e.getMessage(), e.getMessage().contains("EFAULT"));
      }
    }
  }

  public void testPopulateChecksItsArguments() throws IOException {
    assumeTrue("needs native access", NativeAccess.isAvailable());
    Path file = Unwrappable.unwrapAll(createTempDir()).resolve("data");
    Files.write(file, new byte[(int) (2 * PAGE)]);
    MemorySegment m;
    try (Arena arena = Arena.ofShared()) {
      m = MappedFiles.map(file, 2 * PAGE, arena);
      expectThrows(IndexOutOfBoundsException.class, () -> MappedFiles.populate(m, file, PAGE, 2 * PAGE));
      expectThrows(IndexOutOfBoundsException.class, () -> MappedFiles.populate(m, file, -1, PAGE));
      expectThrows(IndexOutOfBoundsException.class, () -> MappedFiles.populate(m, file, 0, -1));
    }
    expectThrows(IllegalStateException.class, () -> MappedFiles.populate(m, file, 0, PAGE));
  }

  /** Drops the file's pages, or skips the test where that cannot be done or seen. */
  private static void makeCold(NativeFile f) throws IOException {
    assumeTrue("needs cachestat(2), Linux 6.5+, to observe the page cache", f.cachedPages(0, PAGE) >= 0);
    for (int i = 0; i < 10_000 && f.cachedPages(0, f.size()) > 0; i++) {
      f.advise(0, 0, Advice.DONTNEED);
      Thread.yield();
    }
    assumeTrue("this file system keeps pages after POSIX_FADV_DONTNEED (tmpfs?)", f.cachedPages(0, f.size()) == 0);
  }
}
