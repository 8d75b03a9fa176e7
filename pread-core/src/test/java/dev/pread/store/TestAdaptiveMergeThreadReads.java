package dev.pread.store;

import dev.pread.cache.InMergeThread;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MemorySegmentAccessInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.Unwrappable;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * What a {@code ConcurrentMergeScheduler} merge thread reads while queries read the block cache: a
 * file it opens while the page cache holds it (the segment the merge writes) through its mapping; a
 * file the page cache does not hold around the cache; an input that queries opened (a segment the
 * writer pooled for near-real-time readers) around the cache too, putting nothing into it, in
 * reads that grow along a sequential run (seen through the {@code dev.pread.cache.BlockLoad} JFR
 * event), not block by block. Other
 * threads read as queries do. Skips, saying why, where the kernel cannot say or drop what the page
 * cache holds.
 */
@com.carrotsearch.randomizedtesting.annotations.ThreadLeakFilters(
    defaultFilters = true,
    filters = {org.apache.lucene.tests.util.QuickPatchThreadsFilter.class, dev.pread.cache.JfrThreadsFilter.class})
public class TestAdaptiveMergeThreadReads extends LuceneTestCase {

  private static byte[] write(Path dir, String name, byte[] content, boolean evict) throws IOException {
    // the real path: a test file system may turn fsync off, and dirty pages cannot be dropped
    Path p = Unwrappable.unwrapAll(dir.resolve(name));
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(content));
      ch.force(true);
    }
    if (evict) {
      try (NativeFile f = NativeFile.open(p)) {
        f.advise(0, 0, Advice.DONTNEED);
      }
    }
    return content;
  }

  /** The share of {@code name}'s pages in the page cache, or -1 where cachestat is missing. */
  private static double cachedShare(Path dir, String name, long size) throws IOException {
    try (NativeFile f = NativeFile.open(Unwrappable.unwrapAll(dir.resolve(name)))) {
      long pages = f.cachedPages(0, size);
      return pages < 0 ? -1 : pages / (double) ((size + 4095) / 4096);
    }
  }

  private static void readAll(IndexInput in, byte[] expected) throws IOException {
    byte[] got = new byte[expected.length];
    in.seek(0);
    int at = 0;
    while (at < got.length) {
      int n = Math.min(got.length - at, 1 + random().nextInt(20_000));
      in.readBytes(got, at, n);
      at += n;
    }
    assertArrayEquals(expected, got);
  }

  private static boolean readsMapping(IndexInput in) throws IOException {
    return ((MemorySegmentAccessInput) in).segmentSliceOrNull(0, 1) != null;
  }

  public void testMergeThreadReadsTheMappingOfCachedFilesAndAroundTheCacheOtherwise() throws Exception {
    Path dir = createTempDir("index");
    Random r = new Random(random().nextLong());
    // large enough for sequential refills to grow past a few blocks
    int size = TestUtil.nextInt(random(), 2 * AdaptiveFile.AROUND_CACHE_BUFFER_SIZE, 4 * AdaptiveFile.AROUND_CACHE_BUFFER_SIZE);
    byte[] hot = new byte[size];
    byte[] cold = new byte[size];
    byte[] pooled = new byte[size];
    r.nextBytes(hot);
    r.nextBytes(cold);
    r.nextBytes(pooled);
    write(dir, "hot", hot, false);
    write(dir, "cold", cold, true);
    write(dir, "pooled", pooled, true);
    double hotShare = cachedShare(dir, "hot", size);
    double coldShare = cachedShare(dir, "cold", size);
    assumeTrue("cachestat is not available here", hotShare >= 0);
    assumeTrue("the page cache does not hold the file just written (" + hotShare + ")",
        hotShare >= AdaptiveFile.MERGE_MAPS_CACHED_SHARE);
    assumeTrue("POSIX_FADV_DONTNEED left the file cached (" + coldShare + ")",
        coldShare < AdaptiveFile.MERGE_MAPS_CACHED_SHARE);

    AdaptiveRegime regime = AdaptiveDirectory.regime(AdaptiveRegime.Mode.CACHED, 4 << 20);
    List<RecordedEvent> events;
    try (Recording recording = new Recording()) {
      recording.enable("dev.pread.cache.BlockLoad").withoutThreshold();
      recording.start();
      merge(dir, hot, cold, pooled, regime);
      recording.stop();
      Path file = Unwrappable.unwrapAll(createTempDir()).toAbsolutePath().resolve("events.jfr");
      recording.dump(file);
      events = RecordingFile.readAllEvents(file);
    }
    long largest = 0;
    String pooledPath = Unwrappable.unwrapAll(dir.resolve("pooled")).toString();
    for (RecordedEvent e : events) {
      if (e.getEventType().getName().equals("dev.pread.cache.BlockLoad")
          && e.getString("path").equals(pooledPath)
          && e.getThread() != null
          && e.getThread().getJavaName() != null
          && e.getThread().getJavaName().startsWith("Lucene Merge Thread")) {
        assertEquals("a merge thread's read is a read around the cache: " + e, "read-around", e.getString("kind"));
        largest = Math.max(largest, e.getLong("bytes"));
      }
    }
    assertTrue("the merge thread read the pooled input in pieces that grew: " + largest,
        largest >= AdaptiveFile.AROUND_CACHE_BUFFER_SIZE / 2);
  }

  private static void merge(Path dir, byte[] hot, byte[] cold, byte[] pooled, AdaptiveRegime regime) throws Exception {
    int size = hot.length;
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput query = d.openInput("pooled", IOContext.DEFAULT)) {
      assertEquals(AdaptiveDirectory.ReadPath.BLOCK_CACHE, d.readPath());
      try (IndexInput h = d.openInput("hot", IOContext.DEFAULT)) {
        assertFalse("outside a merge, a cached file reads the block cache", readsMapping(h));
      }
      IOContext context = random().nextBoolean() ? IOContext.DEFAULT : IOContext.READONCE;
      InMergeThread.run(
          () -> {
            try (IndexInput h = d.openInput("hot", context)) {
              assertTrue("a merge maps a file the page cache holds", readsMapping(h));
              readAll(h, hot);
              readAll(h.clone(), hot);
            }
            try (IndexInput c = d.openInput("cold", context)) {
              assertFalse("a merge reads a file the page cache does not hold around the cache", readsMapping(c));
              readAll(c, cold);
            }
            readAll(query.clone(), pooled);
          });
      assertEquals("the merge put nothing into the cache: " + d.cacheStats(), 0, d.cacheStats().residentBytes());
      readAll(query.clone(), pooled);
      assertTrue("a query's reads fill the cache: " + d.cacheStats(), d.cacheStats().residentBytes() > 0);

      // A file the merge thread mapped and a query thread then reads too (the reader a writer opens
      // on a merged segment in the merge thread, for near-real-time search) follows the mode again.
      AtomicReference<IndexInput> kept = new AtomicReference<>();
      try {
        InMergeThread.run(
            () -> {
              kept.set(d.openInput("hot", IOContext.DEFAULT));
              assertTrue("a merge maps a file the page cache holds", readsMapping(kept.get()));
              assertTrue("its own clones too", readsMapping(kept.get().clone()));
            });
        IndexInput clone = random().nextBoolean() ? kept.get().clone() : kept.get().slice("part", 0, size);
        assertFalse("a query's clone reads the block cache", readsMapping(clone));
        assertFalse("and so does the input the merge thread opened", readsMapping(kept.get()));
        long before = d.cacheStats().residentBytes();
        readAll(clone, hot);
        assertTrue("a query's reads of it fill the cache: " + d.cacheStats(), d.cacheStats().residentBytes() > before);
      } finally {
        if (kept.get() != null) {
          kept.get().close();
        }
      }
    }
  }
}
