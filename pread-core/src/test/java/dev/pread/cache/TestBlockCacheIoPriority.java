package dev.pread.cache;

import com.carrotsearch.randomizedtesting.annotations.ThreadLeakFilters;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.IoPriority;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.QuickPatchThreadsFilter;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;

/**
 * The I/O priority of reads from storage: reads around the cache (an input that does not insert)
 * of more than {@link FileBlocks#MAX_SMALL_READ_AROUND} bytes in the idle class when {@link
 * BlockCache.Builder#idleReadsAround} says so, smaller ones at the thread's own, a query's misses at the
 * highest best-effort level, loads that fill the cache ahead of queries at the thread's own; the
 * reading thread gets its priority back after each. Seen through the {@code dev.pread.cache.BlockLoad}
 * JFR event's {@code idle} and {@code first} fields. Skips, saying why, where the kernel gives no I/O
 * priority.
 */
@ThreadLeakFilters(defaultFilters = true, filters = {QuickPatchThreadsFilter.class, JfrThreadsFilter.class})
public class TestBlockCacheIoPriority extends LuceneTestCase {

  /** Writes a file and drops its pages, so that reads go to storage. */
  private static Path uncached(Path dir, String name, long seed, long size) throws IOException {
    Path p = Content.writeSynced(dir, name, seed, size);
    try (NativeFile f = NativeFile.open(p)) {
      f.advise(0, 0, Advice.DONTNEED);
    }
    return p;
  }

  public void testReadsAroundAreIdleMissesFirstLoadsTheThreadsOwn() throws Exception {
    int before = IoPriority.current();
    assumeTrue("ioprio_get is not available here", before >= 0);
    int previous = IoPriority.enterIdle();
    IoPriority.restore(previous, System.nanoTime());
    assumeTrue("the kernel refused the idle I/O class", previous != IoPriority.UNCHANGED);
    previous = IoPriority.enterFirst();
    IoPriority.restore(previous);
    assumeTrue("the kernel refused the best-effort class", previous != IoPriority.UNCHANGED);

    int block = 4096 << random().nextInt(3);
    boolean option = random().nextBoolean();
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path around = uncached(dir, "around", seed, 8L * block);
    Path inserted = uncached(dir, "inserted", seed + 1, 8L * block);
    Path loaded = uncached(dir, "loaded", seed + 2, 8L * block);
    List<RecordedEvent> events;
    try (Recording recording = new Recording()) {
      recording.enable("dev.pread.cache.BlockLoad").withoutThreshold();
      recording.start();
      try (BlockCache cache = BlockCache.builder(16L * block).blockSize(block).idleReadsAround(option).build();
          CachedFile a = cache.open(around, false);
          CachedFile i = cache.open(inserted, true);
          CachedFile l = cache.open(loaded, true)) {
        assumeTrue("the temporary directory refuses O_DIRECT", a.isDirect());
        byte[] b = new byte[block];
        int n = TestUtil.nextInt(random(), 1, 8);
        for (int k = 0; k < n; k++) {
          a.read((long) k * block, b, 0, block);
          Content.check("read around", seed, (long) k * block, b, 0, block);
          assertEquals("the reading thread has its priority back", before, IoPriority.current());
          i.read((long) k * block, b, 0, block);
          Content.check("miss", seed + 1, (long) k * block, b, 0, block);
          assertEquals("the reading thread has its priority back", before, IoPriority.current());
        }
        assertEquals(4L * block, l.load(0, 4L * block));
        assertEquals("the loading thread has its priority back", before, IoPriority.current());
        l.read(0, b, 0, block);
        Content.check("loaded", seed + 2, 0, b, 0, block);
        // a long read around: one read of the whole run, larger than a small one
        byte[] all = new byte[8 * block];
        a.read(0, all, 0, all.length);
        Content.check("long read around", seed, 0, all, 0, all.length);
        assertEquals("the reading thread has its priority back", before, IoPriority.current());
      }
      recording.stop();
      Path file = Unwrappable.unwrapAll(createTempDir()).toAbsolutePath().resolve("events.jfr");
      recording.dump(file);
      events = RecordingFile.readAllEvents(file);
    }
    // a read slower than IoPriority's bound (a loaded machine) holds idle reads off for a while
    boolean heldOff = IoPriority.backingOff();
    int smallReads = 0, largeReads = 0, misses = 0, loads = 0;
    for (RecordedEvent e : events) {
      if (!e.getEventType().getName().equals("dev.pread.cache.BlockLoad")) {
        continue;
      }
      if (e.getString("path").equals(around.toString())) {
        if (e.getLong("bytes") > FileBlocks.MAX_SMALL_READ_AROUND) {
          largeReads++;
          if (option && !heldOff) {
            assertTrue(e.toString(), e.getBoolean("idle"));
          } else if (!option) {
            assertFalse(e.toString(), e.getBoolean("idle"));
          }
        } else {
          smallReads++;
          assertFalse("a small read around keeps the thread's class: " + e, e.getBoolean("idle"));
        }
        assertFalse("a merge's read is not a query's: " + e, e.getBoolean("first"));
      } else if (e.getString("path").equals(inserted.toString())) {
        misses++;
        assertFalse(e.toString(), e.getBoolean("idle"));
        assertTrue("a query's miss at the first level: " + e, e.getBoolean("first"));
      } else if (e.getString("path").equals(loaded.toString())) {
        loads++;
        assertFalse(e.toString(), e.getBoolean("idle"));
        assertFalse("a load ahead of queries at the thread's own level: " + e, e.getBoolean("first"));
      }
    }
    assertTrue("loads were recorded", loads > 0);
    assertTrue("small reads around the cache were recorded", smallReads > 0);
    assertEquals("the long read around was one read", 1, largeReads);
    assertTrue("misses were recorded", misses > 0);
  }
}
