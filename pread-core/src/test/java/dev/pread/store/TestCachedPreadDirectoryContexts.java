package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MergeInfo;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link CachedPreadDirectory} and its contexts: inputs for merges and read-once reads read around
 * the cache (no insert, no eviction of what queries use), other inputs insert; prefetch through
 * {@link IndexInput#prefetch} loads into the cache; Lucene's merge threads read even inputs queries
 * opened around the cache, and insert in files they open themselves; the size of a directory's own cache comes from
 * {@value CachedPreadDirectory#CACHE_BYTES_PROPERTY}; a shared cache outlives the directory.
 */
public class TestCachedPreadDirectoryContexts extends LuceneTestCase {
  private static final int BLOCK = 4096;

  private static void awaitPrefetches(CachedPreadDirectory dir) {
    long deadline = System.nanoTime() + 120_000_000_000L; // a bound that turns a hang into a failure
    while (dir.stats().prefetchInFlight() != 0) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("prefetches still in flight: " + dir.stats());
      }
      Thread.yield();
    }
  }

  private static void readAllAndCheck(IndexInput in, long seed) throws IOException {
    byte[] b = new byte[(int) in.length()];
    in.seek(0);
    in.readBytes(b, 0, b.length);
    assertEquals(-1, TestContent.firstMismatch(seed, 0, b, 0, b.length));
  }

  /**
   * An input that reads around the cache keeps the doubling ramp after every jump: there a refill
   * is a copy (or one block read), not a system call per step, so it learns no first refill.
   */
  public void testInputsAroundTheCacheLearnNoFirstRefill() throws IOException {
    long seed = random().nextLong();
    try (BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).build();
        CachedPreadDirectory dir = new CachedPreadDirectory(createTempDir(), FSLockFactory.getDefault(), cache)) {
      TestContent.write(dir, "big", seed, 200L * BLOCK);
      try (PreadIndexInput in = (PreadIndexInput) dir.openInput("big", IOContext.READONCE)) {
        byte[] b = new byte[10_000];
        int first = -1;
        for (int i = 0; i < 40; i++) {
          long start = (i % 2) * 100L * BLOCK + random().nextInt(50 * BLOCK);
          in.seek(start);
          in.readBytes(b, 0, 100);
          first = in.refillSize();
          in.readBytes(b, 100, b.length - 100);
          assertEquals(-1, TestContent.firstMismatch(seed, start, b, 0, b.length));
        }
        assertEquals(BlockCacheSource.MIN_REFILL, first);
      }
    }
  }

  public void testMergeAndReadOnceInputsDoNotFlushTheHotSet() throws IOException {
    Path root = createTempDir();
    long hotSeed = random().nextLong(), bigSeed = random().nextLong();
    try (BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).build();
        CachedPreadDirectory dir = new CachedPreadDirectory(root, FSLockFactory.getDefault(), cache)) {
      assertTrue(dir.isCached());
      assertSame(cache, dir.getCache());
      TestContent.write(dir, "hot", hotSeed, 8L * BLOCK);
      TestContent.write(dir, "big", bigSeed, 100L * BLOCK + 17);
      try (IndexInput hot = dir.openInput("hot", IOContext.DEFAULT)) {
        readAllAndCheck(hot, hotSeed);
        BlockCacheStats before = dir.stats();
        assertEquals(before.toString(), 8, before.misses());
        for (IOContext context :
            new IOContext[] {IOContext.merge(new MergeInfo(10, 1 << 20, false, 1)), IOContext.READONCE}) {
          assertFalse(CachedPreadDirectory.inserts(context));
          try (IndexInput big = dir.openInput("big", context)) {
            readAllAndCheck(big, bigSeed);
            big.prefetch(0, big.length()); // ignored by a non-inserting input
          }
        }
        BlockCacheStats after = dir.stats();
        assertEquals(after.toString(), 0, after.evictions());
        assertEquals(after.toString(), before.misses(), after.misses());
        assertEquals(after.toString(), 0, after.prefetchSubmitted());
        assertTrue(after.toString(), after.readAround() >= 2 * 101);
        assertEquals(after.toString(), 8L * BLOCK, after.residentBytes());
        // The hot set is still cached: reading it again is all hits.
        IndexInput clone = hot.clone();
        readAllAndCheck(clone, hotSeed);
        assertEquals(dir.stats().toString(), before.misses(), dir.stats().misses());
      }
      // A default input of the big file inserts: it fills the cache (freed when "hot" closed); the
      // rest of its blocks, read once, lose to the blocks already there under admission and pass
      // through the window, one eviction each.
      assertTrue(CachedPreadDirectory.inserts(IOContext.DEFAULT));
      BlockCacheStats b0 = dir.stats();
      try (IndexInput big = dir.openInput("big", IOContext.DEFAULT)) {
        readAllAndCheck(big, bigSeed);
        BlockCacheStats s = dir.stats();
        assertEquals(s.toString(), 101, s.misses() - b0.misses());
        assertEquals(s.toString(), 101 - 16, s.evictions() - b0.evictions());
        assertEquals(s.toString(), 0, s.rejected());
        assertEquals(s.toString(), 16L * BLOCK, s.residentBytes());
      }
    }
  }

  /**
   * An input queries opened (as a segment the writer keeps open for near-real-time readers), read
   * by a merge thread of Lucene's scheduler, puts nothing into the directory's own cache; the same
   * input read by a query thread afterwards fills it.
   */
  public void testMergeThreadReadsQueryInputsAroundTheCache() throws Exception {
    long seed = random().nextLong();
    long size = (20L + random().nextInt(20)) * BLOCK + random().nextInt(BLOCK);
    try (CachedPreadDirectory dir = new CachedPreadDirectory(createTempDir())) {
      assumeTrue("native access is off", dir.isCached());
      TestContent.write(dir, "pooled", seed, size);
      try (IndexInput in = dir.openInput("pooled", IOContext.DEFAULT)) {
        dev.pread.cache.InMergeThread.run(() -> readAllAndCheck(in.clone(), seed));
        BlockCacheStats s = dir.stats();
        assertEquals("the merge thread put nothing into the cache: " + s, 0, s.residentBytes());
        assertEquals("the merge thread loaded no block: " + s, 0, s.misses());
        assertTrue("the merge thread read around the cache: " + s, s.readAround() > 0);
        readAllAndCheck(in, seed);
        s = dir.stats();
        long block = dir.getCache().blockSize();
        assertEquals("a query thread's reads fill the cache: " + s, (size + block - 1) / block * block, s.residentBytes());
      }
    }
  }

  /**
   * A file a merge thread opens with a context other than a merge's (the segment it writes, read
   * back; the reader a writer opens on a merged segment for near-real-time search) inserts what
   * that thread misses, and a query thread's clone of it hits those blocks.
   */
  public void testFilesAMergeThreadOpensInsert() throws Exception {
    long seed = random().nextLong();
    long size = (10L + random().nextInt(20)) * BLOCK + random().nextInt(BLOCK);
    try (CachedPreadDirectory dir = new CachedPreadDirectory(createTempDir())) {
      assumeTrue("native access is off", dir.isCached());
      TestContent.write(dir, "merged", seed, size);
      IOContext context =
          random().nextBoolean() ? IOContext.DEFAULT : IOContext.DEFAULT.withHints(DataAccessHint.RANDOM);
      java.util.concurrent.atomic.AtomicReference<IndexInput> opened = new java.util.concurrent.atomic.AtomicReference<>();
      try {
        dev.pread.cache.InMergeThread.run(
            () -> {
              opened.set(dir.openInput("merged", context));
              readAllAndCheck(opened.get(), seed);
            });
        BlockCacheStats s = dir.stats();
        long block = dir.getCache().blockSize();
        assertEquals("the merge thread's misses went into the cache: " + s, 0, s.readAround());
        assertEquals(s.toString(), (size + block - 1) / block * block, s.residentBytes());
        readAllAndCheck(opened.get().clone(), seed);
        BlockCacheStats after = dir.stats();
        assertEquals("a query thread's clone hits them: " + after, s.misses(), after.misses());
        assertTrue(after.toString(), after.hits() > s.hits());
      } finally {
        if (opened.get() != null) {
          opened.get().close();
        }
      }
    }
  }

  public void testPrefetchLoadsIntoTheCache() throws IOException {
    Path root = createTempDir();
    long seed = random().nextLong();
    try (BlockCache cache = BlockCache.builder(64L * BLOCK).blockSize(BLOCK).prefetchThreads(2).build();
        CachedPreadDirectory dir = new CachedPreadDirectory(root, FSLockFactory.getDefault(), cache)) {
      TestContent.write(dir, "f", seed, 40L * BLOCK);
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        IndexInput slice = in.slice("s", 10L * BLOCK, 20L * BLOCK);
        slice.prefetch(0, 20L * BLOCK);
        awaitPrefetches(dir);
        assertEquals(dir.stats().toString(), 20, dir.stats().prefetchSubmitted());
        byte[] b = new byte[20 * BLOCK];
        slice.readBytes(b, 0, b.length);
        assertEquals(-1, TestContent.firstMismatch(seed, 10L * BLOCK, b, 0, b.length));
        BlockCacheStats s = dir.stats();
        assertEquals(s.toString(), 0, s.misses());
        assertEquals(s.toString(), 20, s.hits());
      }
      // Prefetch turned off: inputs opened from then on ignore it.
      dir.setPrefetch(false);
      assertFalse(dir.isPrefetch());
      try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
        in.prefetch(30L * BLOCK, 10L * BLOCK);
        assertEquals(20, dir.stats().prefetchSubmitted());
      }
    }
  }

  public void testOwnCacheSizeAndClose() throws IOException {
    String old = System.getProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY);
    try {
      System.setProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY, String.valueOf(48L * BLOCK));
      BlockCache own;
      try (CachedPreadDirectory dir = new CachedPreadDirectory(createTempDir())) {
        own = dir.getCache();
        assertEquals(48L * BLOCK, own.budgetBytes());
        long seed = random().nextLong();
        TestContent.write(dir, "f", seed, 5L * BLOCK);
        try (IndexInput in = dir.openInput("f", IOContext.DEFAULT)) {
          readAllAndCheck(in, seed);
        }
      }
      assertTrue("a directory closes the cache it made", own.isClosed());

      System.clearProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY);
      try (CachedPreadDirectory dir = new CachedPreadDirectory(createTempDir())) {
        assertEquals(CachedPreadDirectory.DEFAULT_CACHE_BYTES, dir.getCache().budgetBytes());
      }
      for (String bad : new String[] {"0", "-1", "lots"}) {
        System.setProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY, bad);
        IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> new CachedPreadDirectory(createTempDir()));
        assertTrue(e.getMessage(), e.getMessage().contains(CachedPreadDirectory.CACHE_BYTES_PROPERTY) && e.getMessage().contains(bad));
      }
    } finally {
      if (old == null) {
        System.clearProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY);
      } else {
        System.setProperty(CachedPreadDirectory.CACHE_BYTES_PROPERTY, old);
      }
    }
  }

  public void testInputsForRandomAccessTakeNoExtraBlockOnAWalk() throws IOException {
    Path root = createTempDir();
    long seed = random().nextLong();
    IOContext random = IOContext.DEFAULT.withHints(DataAccessHint.RANDOM);
    assertTrue(CachedPreadDirectory.randomAccess(random));
    assertFalse(CachedPreadDirectory.randomAccess(IOContext.DEFAULT));
    try (BlockCache cache = BlockCache.builder(64L * BLOCK).blockSize(BLOCK).build();
        CachedPreadDirectory dir = new CachedPreadDirectory(root, FSLockFactory.getDefault(), cache)) {
      String[] cases = {"default", "random", "random clone", "random slice", "default slice of random"};
      for (String name : cases) {
        TestContent.write(dir, name, seed, 4L * BLOCK);
        boolean opensRandom = name.startsWith("random") || name.endsWith("of random");
        try (IndexInput opened = dir.openInput(name, opensRandom ? random : IOContext.DEFAULT)) {
          IndexInput in =
              switch (name) {
                case "random clone" -> opened.clone();
                case "random slice" -> opened.slice("part", 0, opened.length(), IOContext.DEFAULT.withHints(DataAccessHint.RANDOM));
                case "default slice of random" -> opened.slice("part", 0, opened.length(), IOContext.DEFAULT);
                default -> opened;
              };
          long before = dir.stats().misses();
          in.seek(10);
          assertEquals(TestContent.byteAt(seed, 10), in.readByte());
          in.seek(BLOCK + 10); // a walk into the next block
          assertEquals(TestContent.byteAt(seed, BLOCK + 10), in.readByte());
          boolean walksAhead = name.equals("default") || name.equals("default slice of random");
          assertEquals(name + ": " + dir.stats(), walksAhead ? 3 : 2, dir.stats().misses() - before);
        }
      }
    }
  }

  public void testSharedCacheOutlivesTheDirectory() throws IOException {
    try (BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).build()) {
      long seed = random().nextLong();
      Path a = createTempDir(), b = createTempDir();
      try (CachedPreadDirectory d1 = new CachedPreadDirectory(a, FSLockFactory.getDefault(), cache);
          CachedPreadDirectory d2 = new CachedPreadDirectory(b, FSLockFactory.getDefault(), cache)) {
        TestContent.write(d1, "f", seed, 3L * BLOCK);
        TestContent.write(d2, "f", seed + 1, 3L * BLOCK);
        try (IndexInput i1 = d1.openInput("f", IOContext.DEFAULT);
            IndexInput i2 = d2.openInput("f", IOContext.DEFAULT)) {
          readAllAndCheck(i1, seed);
          readAllAndCheck(i2, seed + 1);
          assertEquals(2, cache.openFiles());
        }
      }
      assertFalse("a shared cache is the caller's to close", cache.isClosed());
      assertEquals(0, cache.openFiles());
      assertEquals(6, cache.stats().misses());
      cache.close();
      AlreadyClosedException e = expectThrows(AlreadyClosedException.class,
          () -> new CachedPreadDirectory(createTempDir(), FSLockFactory.getDefault(), cache));
      assertTrue(e.getMessage(), e.getMessage().contains("closed"));
    }
  }
}
