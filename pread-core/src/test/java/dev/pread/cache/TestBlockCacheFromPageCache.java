package dev.pread.cache;

import dev.pread.nativeio.Advice;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link BlockCache.Builder#fillFromPageCache}: misses the page cache holds are copied from it
 * (counted in {@link BlockCacheStats#pageCacheBytes()}, not in {@code bytesRead}), misses it does
 * not hold are read from storage, the bytes are the file's either way, and the buffered
 * descriptor closes with the file. Skips, saying why, where the temporary directory refuses
 * {@code O_DIRECT} or the kernel has no {@code cachestat}.
 */
public class TestBlockCacheFromPageCache extends LuceneTestCase {

  /** Pages of {@code p} in the page cache, -1 without cachestat. */
  private static long residentPages(Path p, long size) throws IOException {
    try (NativeFile f = NativeFile.open(p)) {
      return f.cachedPages(0, size);
    }
  }

  /** Reads the first {@code size} bytes of {@code p} through the page cache, without readahead past them. */
  private static void makeResident(Path p, long size) throws IOException {
    try (NativeFile f = NativeFile.open(p)) {
      f.advise(0, 0, Advice.RANDOM);
      byte[] b = new byte[(int) size];
      f.read(0, b, 0, b.length);
    }
  }

  /** Drops the (clean) pages of {@code p}; skips the test if the kernel keeps some. */
  private static void evict(Path p, long size) throws IOException {
    try (NativeFile f = NativeFile.open(p)) {
      f.advise(0, 0, Advice.DONTNEED);
      assumeTrue("the kernel kept pages of " + p + " after POSIX_FADV_DONTNEED", f.cachedPages(0, size) == 0);
    }
  }

  private static void assumeUsable(CachedFile f, Path p, long size) throws IOException {
    assumeTrue("the temporary directory refuses O_DIRECT: misses read the page cache anyway", f.isDirect());
    assumeTrue("no cachestat(2) on this kernel (Linux 6.5+)", residentPages(p, size) >= 0);
  }

  private static void readAll(CachedFile f, long seed, long size, Random r) throws IOException {
    byte[] dst = new byte[(int) size];
    int done = 0;
    while (done < size) {
      int len = (int) Math.min(size - done, 1 + r.nextInt(3 * 4096));
      f.read(done, dst, done, len);
      done += len;
    }
    Content.check("read of " + f.path(), seed, 0, dst, 0, (int) size);
  }

  public void testResidentMissesAreCopiedFromThePageCache() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    int blockSize = 1 << TestUtil.nextInt(r, 12, 15);
    long size = (long) blockSize * TestUtil.nextInt(r, 4, 40) + r.nextInt(blockSize);
    long seed = r.nextLong();
    Path p = Content.writeSynced(dir, "f", seed, size);
    long blocks = (size + blockSize - 1) / blockSize;
    try (BlockCache cache =
        BlockCache.builder(blocks * blockSize).blockSize(blockSize).fillFromPageCache(true).build()) {
      try (CachedFile f = cache.open(p, true)) {
        assumeUsable(f, p, size);
        makeResident(p, size);
        readAll(f, seed, size, r);
        BlockCacheStats s = cache.stats();
        assertEquals(s.toString(), blocks, s.misses());
        assertEquals(s.toString(), 0, s.bytesRead());
        assertEquals(s.toString(), size, s.pageCacheBytes());
        // cached now: the same reads are hits, with nothing read from anywhere
        readAll(f, seed, size, r);
        assertEquals(cache.stats().toString(), size, cache.stats().pageCacheBytes());
        assertEquals(0, cache.stats().bytesRead());
      }
    }
  }

  public void testMissesThePageCacheDoesNotHoldReadStorage() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    int blockSize = 4096 << r.nextInt(3);
    long size = (long) blockSize * TestUtil.nextInt(r, 8, 40);
    long seed = r.nextLong();
    Path p = Content.writeSynced(dir, "f", seed, size);
    try (BlockCache cache = BlockCache.builder(size).blockSize(blockSize).fillFromPageCache(true).build();
        CachedFile f = cache.open(p, true)) {
      assumeUsable(f, p, size);
      // the first half resident, the second not (the kernel may keep more: it reads and drops
      // whole folios); a block with any page missing reads storage
      makeResident(p, size);
      long half = size / 2 / blockSize * blockSize;
      try (NativeFile n = NativeFile.open(p)) {
        n.advise(half, size - half, Advice.DONTNEED);
      }
      long copied = 0;
      long[] residentBefore = new long[(int) (size / blockSize)];
      try (NativeFile n = NativeFile.open(p)) {
        for (int b = 0; b < residentBefore.length; b++) {
          residentBefore[b] = n.cachedPages((long) b * blockSize, blockSize);
          copied += residentBefore[b] == blockSize / 4096 ? blockSize : 0;
        }
      }
      assumeTrue("the kernel kept every page of " + p + " after POSIX_FADV_DONTNEED", copied < size);
      // one block a read, in random order: adjacent missing blocks read together are one miss,
      // copied only if the page cache holds all of them
      java.util.List<Integer> order = new java.util.ArrayList<>();
      for (int b = 0; b < residentBefore.length; b++) {
        order.add(b);
      }
      java.util.Collections.shuffle(order, r);
      byte[] block = new byte[blockSize];
      for (int b : order) {
        f.read((long) b * blockSize, block, 0, blockSize);
        Content.check("block " + b, seed, (long) b * blockSize, block, 0, blockSize);
      }
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), copied, s.pageCacheBytes());
      assertEquals(s.toString(), size - copied, s.bytesRead());
      long residentAfter = 0;
      for (long pages : residentBefore) {
        residentAfter += pages;
      }
      assertEquals("O_DIRECT reads leave the page cache alone", residentAfter, residentPages(p, size));
    }
  }

  /**
   * Reads a file of {@code blocks} blocks that the page cache holds through a new cache, inserting
   * or reading around it, with or without {@code fillFromPageCache}; returns the cache's stats.
   */
  private BlockCacheStats readResident(int blockSize, int blocks, boolean fill, boolean insert) throws IOException {
    Random r = random();
    long size = (long) blockSize * blocks;
    long seed = r.nextLong();
    Path p = Content.writeSynced(createTempDir(), "f", seed, size);
    BlockCache.Builder b = BlockCache.builder(size).blockSize(blockSize);
    try (BlockCache cache = (fill ? b.fillFromPageCache(true) : b).build();
        CachedFile f = cache.open(p, insert)) {
      assumeUsable(f, p, size);
      makeResident(p, size);
      readAll(f, seed, size, r);
      return cache.stats();
    }
  }

  public void testOffByDefault() throws IOException {
    int blocks = TestUtil.nextInt(random(), 2, 30);
    BlockCacheStats s = readResident(4096, blocks, false, true);
    assertEquals(s.toString(), 4096L * blocks, s.bytesRead());
    assertEquals(s.toString(), 0, s.pageCacheBytes());
  }

  public void testReadsAroundTheCacheCopyFromThePageCacheToo() throws IOException {
    int blocks = TestUtil.nextInt(random(), 2, 30);
    BlockCacheStats s = readResident(8192, blocks, true, false);
    assertEquals(s.toString(), 0, s.bytesRead());
    assertTrue(s.toString(), s.pageCacheBytes() >= 8192L * blocks);
    assertEquals("a read around inserts nothing", 0, s.residentBytes());
  }

  /**
   * The buffered descriptor fails to open (the process out of descriptors): misses read storage,
   * with no other open tried until the retry interval has passed; then an open is tried again, and
   * misses the page cache holds are copied from it again.
   */
  public void testAFailedBufferedOpenIsTriedAgainLater() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    int blockSize = 4096 << r.nextInt(3);
    int blocks = TestUtil.nextInt(r, 4, 20);
    long size = (long) blockSize * blocks;
    long seed = r.nextLong();
    Path p = Content.writeSynced(dir, "f", seed, size);
    try (BlockCache cache = BlockCache.builder(size).blockSize(blockSize).fillFromPageCache(true).build();
        CachedFile f = cache.open(p, true)) {
      assumeUsable(f, p, size);
      makeResident(p, size);
      cache.bufferedRetryNanos = Long.MAX_VALUE; // no second try until the test says so
      byte[] block = new byte[blockSize];
      int failedBlocks = TestUtil.nextInt(r, 1, blocks - 2);
      try (FaultInjection faults = FaultInjection.install(dir).failNext(Call.OPEN, Kind.EMFILE, 1000)) {
        for (int b = 0; b < failedBlocks; b++) {
          f.read((long) b * blockSize, block, 0, blockSize);
          Content.check("block " + b, seed, (long) b * blockSize, block, 0, blockSize);
        }
        BlockCacheStats s = cache.stats();
        assertEquals("one open tried, and no other meanwhile", 1, faults.injected(Call.OPEN, Kind.EMFILE));
        assertEquals(s.toString(), (long) failedBlocks * blockSize, s.bytesRead());
        assertEquals(s.toString(), 0, s.pageCacheBytes());
        assertEquals("the O_DIRECT descriptor only", 1, Content.descriptorsUnder(dir));

        cache.bufferedRetryNanos = 0; // the interval has passed; the next open fails again
        f.read((long) failedBlocks * blockSize, block, 0, blockSize);
        assertEquals(2, faults.injected(Call.OPEN, Kind.EMFILE));
        assertEquals(0, cache.stats().pageCacheBytes());
        faults.clearRules();

        for (int b = failedBlocks + 1; b < blocks; b++) { // descriptors free again: the next try opens it
          f.read((long) b * blockSize, block, 0, blockSize);
          Content.check("block " + b, seed, (long) b * blockSize, block, 0, blockSize);
        }
      }
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), (long) (failedBlocks + 1) * blockSize, s.bytesRead());
      assertEquals(s.toString(), (long) (blocks - failedBlocks - 1) * blockSize, s.pageCacheBytes());
      assertEquals("the O_DIRECT and the buffered descriptor", 2, Content.descriptorsUnder(dir));
    }
  }

  public void testTheBufferedDescriptorClosesWithTheFileAndTheCache() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    long size = 4096L * TestUtil.nextInt(r, 2, 30);
    long seed = r.nextLong();
    Path p = Content.writeSynced(dir, "f", seed, size);
    assertEquals(0, Content.descriptorsUnder(dir));
    BlockCache cache = BlockCache.builder(size).blockSize(4096).fillFromPageCache(true).build();
    try {
      CachedFile f = cache.open(p, true);
      assumeUsable(f, p, size);
      makeResident(p, size);
      readAll(f, seed, size, r);
      assertEquals("the O_DIRECT and the buffered descriptor", 2, Content.descriptorsUnder(dir));
      f.close();
      assertEquals(0, Content.descriptorsUnder(dir));
      expectThrows(AlreadyClosedException.class, () -> f.read(0, new byte[1], 0, 1));
      CachedFile g = cache.open(p, true); // its blocks were freed with f: misses again
      evict(p, size);
      long half = size / 2 / 4096 * 4096;
      makeResident(p, half);
      g.prefetch(0, half); // copied on a prefetch thread, which opens the buffered descriptor
      Content.awaitPrefetches(cache);
      assertEquals(cache.stats().toString(), 2, Content.descriptorsUnder(dir));
      readAll(g, seed, size, r);
      assertTrue(cache.stats().toString(), cache.stats().pageCacheBytes() >= size + half);
      f.close(); // a second close does nothing
      cache.close();
      assertEquals("closing the cache closes its files", 0, Content.descriptorsUnder(dir));
      expectThrows(AlreadyClosedException.class, () -> g.read(0, new byte[1], 0, 1));
    } finally {
      cache.close();
    }
  }
}
