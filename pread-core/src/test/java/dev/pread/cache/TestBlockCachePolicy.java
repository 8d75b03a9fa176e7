package dev.pread.cache;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * What the cache keeps: a hot set survives scans of blocks read once, where plain LRU loses it; and
 * files that read around the cache (merges, read-once inputs) neither evict nor insert.
 */
public class TestBlockCachePolicy extends LuceneTestCase {
  private static final int BLOCK = 4096;

  /**
   * The number of hot-block reads that miss, per round, when a hot set is read {@code hotReads}
   * times and then {@code scan} new blocks are read once, through a cache of {@code capacity}
   * blocks evicting the least recently used block. The trace is the one the test sends the cache.
   */
  private static int[] lruHotMisses(int capacity, int hot, int hotReads, int scan, int rounds) {
    Map<Long, Boolean> lru = new LinkedHashMap<>(16, 0.75f, true);
    int[] misses = new int[rounds];
    long next = hot;
    for (int round = 0; round < rounds; round++) {
      for (int pass = 0; pass < hotReads; pass++) {
        for (long b = 0; b < hot; b++) {
          if (lru.get(b) == null) {
            misses[round]++;
            put(lru, b, capacity);
          }
        }
      }
      for (int i = 0; i < scan; i++) {
        put(lru, next++, capacity);
      }
    }
    return misses;
  }

  private static void put(Map<Long, Boolean> lru, long block, int capacity) {
    if (lru.size() == capacity) {
      Long eldest = lru.keySet().iterator().next();
      lru.remove(eldest);
    }
    lru.put(block, Boolean.TRUE);
  }

  /**
   * A cache of 64 blocks; a hot set of 32 blocks, each read twice per round; between rounds a scan
   * reads 64 blocks never seen before (the whole cache). LRU misses every hot read from the second
   * round on; the cache none.
   *
   * <p>The hot set must be hit while cached: CLOCK keeps no history of evicted blocks, so a block
   * read exactly once per round, then evicted, comes back as new as a scan's block is, and a scan of
   * more than the free blocks takes it (as it does under LRU). That case is admission's: {@link
   * #testAdmissionKeepsABlockReadOncePerRound}. This test runs without admission, so that it shows
   * CLOCK's own resistance.
   */
  public void testHotSetSurvivesScans() throws IOException {
    int hot = 32, hotReads = 2, rounds = 30, warmup = 1;
    int[] lru = lruHotMisses(64, hot, hotReads, 64, rounds);
    for (int round = 1; round < rounds; round++) {
      assertEquals("LRU misses the whole hot set in round " + round, hot, lru[round]);
    }
    int[] misses = hotMissesPerRound(false, hotReads, rounds);
    for (int round = warmup; round < rounds; round++) {
      assertEquals("hot reads that missed in round " + round, 0, misses[round]);
    }
  }

  /**
   * A file opened without inserting reads around the cache: a scan of 4 times the cache evicts
   * nothing, inserts nothing, and the hot set stays cached; blocks it finds cached are hits.
   */
  public void testReadAroundLeavesTheHotSet() throws IOException {
    int capacity = TestUtil.nextInt(random(), 8, 64);
    int hot = capacity / 2;
    Path dir = createTempDir();
    long hotSeed = random().nextLong(), bigSeed = random().nextLong();
    Path hotPath = Content.write(dir, "hot", hotSeed, (long) hot * BLOCK);
    long bigSize = 4L * capacity * BLOCK + 777;
    Path bigPath = Content.write(dir, "big", bigSeed, bigSize);
    try (BlockCache cache = BlockCache.builder((long) capacity * BLOCK).blockSize(BLOCK).build();
        CachedFile hotFile = cache.open(hotPath);
        CachedFile merge = cache.open(bigPath, false)) {
      assertFalse(merge.inserts());
      byte[] b = new byte[3 * BLOCK];
      for (int block = 0; block < hot; block++) {
        hotFile.read((long) block * BLOCK, b, 0, BLOCK);
      }
      BlockCacheStats before = cache.stats();
      assertEquals(hot, before.misses());
      // Sequential reads of random lengths over the whole file, as a merge does.
      long blocksTouched = 0;
      for (long pos = 0; pos < bigSize; ) {
        int len = (int) Math.min(bigSize - pos, 1 + random().nextInt(b.length));
        merge.read(pos, b, 0, len);
        Content.check("read around", bigSeed, pos, b, 0, len);
        blocksTouched += (pos + len - 1) / BLOCK - pos / BLOCK + 1;
        pos += len;
      }
      merge.prefetch(0, bigSize); // does nothing for a file that does not insert
      BlockCacheStats after = cache.stats();
      assertEquals(after.toString(), 0, after.evictions());
      assertEquals(after.toString(), before.misses(), after.misses());
      assertEquals(after.toString(), before.residentBytes(), after.residentBytes());
      assertEquals(after.toString(), 0, after.prefetchSubmitted());
      assertTrue(after.toString(), after.readAround() >= (bigSize + BLOCK - 1) / BLOCK);
      assertTrue(after.toString(), after.readAround() <= blocksTouched);
      assertTrue(after.toString(), after.bytesRead() >= before.bytesRead() + bigSize);
      // The hot set is all there.
      for (int block = 0; block < hot; block++) {
        hotFile.read((long) block * BLOCK, b, 0, BLOCK);
        Content.check("hot", hotSeed, (long) block * BLOCK, b, 0, BLOCK);
      }
      assertEquals(cache.stats().toString(), before.misses(), cache.stats().misses());

      // A non-inserting handle on a file that is cached reads the cached blocks: hits.
      try (CachedFile hotAround = cache.open(hotPath, false)) {
        long hits = cache.stats().hits();
        long around = cache.stats().readAround();
        hotAround.read(0, b, 0, 2 * BLOCK);
        Content.check("hot through a non-inserting handle", hotSeed, 0, b, 0, 2 * BLOCK);
        assertEquals(hits + 2, cache.stats().hits());
        assertEquals(around, cache.stats().readAround());
      }
    }
  }

  /** Blocks brought in by a non-inserting read's neighbours stop its read-around run; bytes stay right. */
  public void testReadAroundStopsAtCachedBlocks() throws IOException {
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 20L * BLOCK);
    try (BlockCache cache = BlockCache.builder(64L * BLOCK).blockSize(BLOCK).build();
        CachedFile inserting = cache.open(p);
        CachedFile around = cache.open(p, false)) {
      byte[] b = new byte[20 * BLOCK];
      // Cache blocks 3 and 7.
      inserting.read(3L * BLOCK, b, 0, 1);
      inserting.read(7L * BLOCK, b, 0, 1);
      long hits = cache.stats().hits();
      around.read(0, b, 0, b.length);
      Content.check("around", seed, 0, b, 0, b.length);
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), hits + 2, s.hits());
      assertEquals(s.toString(), 18, s.readAround());
      assertEquals(s.toString(), 2, s.misses());
      assertEquals(s.toString(), 2L * BLOCK, s.residentBytes());
    }
  }

  /**
   * A read around the cache reads the direct-I/O units its bytes lie in, not whole blocks: small
   * random reads of large blocks (a merge reading vectors) read a few KiB each, and the bytes stay right.
   */
  public void testReadAroundReadsOnlyTheUnitsItCopies() throws IOException {
    int block = 64 * 1024;
    Path dir = createTempDir();
    long seed = random().nextLong();
    long size = 20L * block + TestUtil.nextInt(random(), 1, block - 1);
    Path p = Content.write(dir, "f", seed, size);
    int unit;
    try (dev.pread.nativeio.NativeFile f = dev.pread.nativeio.NativeFile.open(p)) {
      unit = Math.max(4096, f.directOffsetAlignment());
    }
    assumeTrue("direct-I/O alignment " + unit + " is not a power of two below the block size",
        Integer.bitCount(unit) == 1 && unit < block);
    try (BlockCache cache = BlockCache.builder(64L * block).blockSize(block).build();
        CachedFile around = cache.open(p, false)) {
      byte[] b = new byte[3 * block];
      long smallReads = 0, smallBytes = 0;
      for (int i = 0; i < 200; i++) {
        int len = random().nextInt(4) == 0 ? TestUtil.nextInt(random(), 1, b.length) : TestUtil.nextInt(random(), 1, 2000);
        long position = TestUtil.nextLong(random(), 0, size - len);
        long before = cache.stats().bytesRead();
        around.read(position, b, 0, len);
        Content.check("read-around at " + position, seed, position, b, 0, len);
        long from = position / unit * unit;
        long to = Math.min(size, (position + len + unit - 1) / unit * unit);
        long read = cache.stats().bytesRead() - before;
        assertEquals("read of " + len + " bytes at " + position, to - from, read);
        if (len <= 2000) {
          smallReads++;
          smallBytes += read;
        }
      }
      assertTrue("small reads read " + smallBytes + " bytes in " + smallReads, smallBytes <= smallReads * 2 * unit);
      assertEquals(0, cache.stats().residentBytes());
    }
  }

  /**
   * Hot-set reads that miss, per round, when a hot set of 32 blocks is read {@code hotReads} times
   * per round and then 64 blocks never seen before are read once, through a cache of 64 blocks.
   */
  private int[] hotMissesPerRound(boolean admission, int hotReads, int rounds) throws IOException {
    int capacity = 64, hot = 32, scan = 64;
    Path dir = createTempDir();
    long hotSeed = random().nextLong(), scanSeed = random().nextLong();
    Path hotPath = Content.write(dir, "hot", hotSeed, (long) hot * BLOCK);
    Path scanPath = Content.write(dir, "scan", scanSeed, (long) scan * rounds * BLOCK);
    int[] misses = new int[rounds];
    try (BlockCache cache =
            BlockCache.builder((long) capacity * BLOCK).blockSize(BLOCK).frequencyAdmission(admission).build();
        CachedFile hotFile = cache.open(hotPath);
        CachedFile scanFile = cache.open(scanPath)) {
      byte[] b = new byte[BLOCK];
      long scanBlock = 0;
      for (int round = 0; round < rounds; round++) {
        long before = cache.stats().misses();
        for (int pass = 0; pass < hotReads; pass++) {
          for (int block = 0; block < hot; block++) {
            int at = random().nextInt(BLOCK - 8);
            hotFile.read((long) block * BLOCK + at, b, 0, 8);
            Content.check("hot", hotSeed, (long) block * BLOCK + at, b, 0, 8);
          }
        }
        misses[round] = (int) (cache.stats().misses() - before);
        for (int i = 0; i < scan; i++, scanBlock++) {
          int len = 1 + random().nextInt(BLOCK);
          scanFile.read(scanBlock * BLOCK, b, 0, len);
          Content.check("scan", scanSeed, scanBlock * BLOCK, b, 0, len);
        }
      }
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 0, s.readAround());
      assertEquals("one thread: the slot to reuse is never busy: " + s, 0, s.rejected());
      assertTrue("scan blocks are inserted (with admission, into the window): " + s,
          s.evictions() >= (long) scan * (rounds - 1));
    }
    return misses;
  }

  /**
   * With admission, the sketch remembers that the hot blocks come back every round, so blocks read
   * once pass through the window and cannot replace them: after the first round hardly any hot
   * read misses (the victim whose slot became the window, and the rare scan block whose four
   * counters all collide with hot ones). CLOCK alone misses most of them every round: a block read
   * once per round is as new to it as a scan's block.
   */
  public void testAdmissionKeepsABlockReadOncePerRound() throws IOException {
    int rounds = 30;
    int[] clock = hotMissesPerRound(false, 1, rounds);
    int[] admitted = hotMissesPerRound(true, 1, rounds);
    int clockLater = 0, admittedLater = 0;
    for (int round = 1; round < rounds; round++) {
      clockLater += clock[round];
      admittedLater += admitted[round];
    }
    assertEquals("the first round fills free blocks", 32, admitted[0]);
    assertTrue("CLOCK alone loses the hot set: " + java.util.Arrays.toString(clock), clockLater >= 16 * (rounds - 1));
    assertTrue("admission keeps it: " + java.util.Arrays.toString(admitted), admittedLater <= rounds / 3);
  }

  /**
   * Blocks read once, through a cache full of blocks read more often, pass through the window: they
   * are inserted (no read-around, right bytes), each replacing the last, and take at most the
   * window's slot from the cached blocks; one read again while in the window is a hit.
   */
  public void testNewBlocksPassThroughTheWindow() throws IOException {
    int capacity = TestUtil.nextInt(random(), 4, 32); // a window of one block
    Path dir = createTempDir();
    long hotSeed = random().nextLong(), newSeed = random().nextLong();
    Path hotPath = Content.write(dir, "hot", hotSeed, (long) capacity * BLOCK);
    long newSize = 8L * capacity * BLOCK + 123;
    Path newPath = Content.write(dir, "new", newSeed, newSize);
    try (BlockCache cache = BlockCache.builder((long) capacity * BLOCK).blockSize(BLOCK).build();
        CachedFile hotFile = cache.open(hotPath);
        CachedFile newFile = cache.open(newPath)) {
      byte[] b = new byte[3 * BLOCK];
      for (int pass = 0; pass < 3; pass++) {
        for (int block = 0; block < capacity; block++) {
          hotFile.read((long) block * BLOCK, b, 0, BLOCK);
        }
      }
      BlockCacheStats full = cache.stats();
      assertEquals(full.toString(), capacity, full.misses());
      // Each block of the new file once: reads of one to three blocks, from a random offset in the
      // first to a random end in the last, so that no block is read twice.
      long newBlocks = (newSize + BLOCK - 1) / BLOCK;
      long lastPos = 0;
      for (long block = 0; block < newBlocks; ) {
        long span = Math.min(newBlocks - block, 1 + random().nextInt(3));
        long firstEnd = Math.min(newSize, (block + 1) * BLOCK);
        long lastStart = (block + span - 1) * BLOCK, lastEnd = Math.min(newSize, lastStart + BLOCK);
        long pos = block * BLOCK + random().nextInt((int) (firstEnd - block * BLOCK));
        long from = Math.max(pos, lastStart);
        long end = from + 1 + random().nextInt((int) (lastEnd - from));
        newFile.read(pos, b, 0, (int) (end - pos));
        Content.check("new", newSeed, pos, b, 0, (int) (end - pos));
        lastPos = end - 1;
        block += span;
      }
      BlockCacheStats after = cache.stats();
      assertEquals(after.toString(), full.misses() + newBlocks, after.misses());
      assertEquals(after.toString(), 0, after.readAround());
      assertEquals(after.toString(), 0, after.rejected());
      assertEquals(after.toString(), newBlocks, after.evictions());
      assertEquals(after.toString(), full.residentBytes(), after.residentBytes());
      // The last new block is in the window.
      newFile.read(lastPos, b, 0, 1);
      Content.check("window", newSeed, lastPos, b, 0, 1);
      assertEquals(cache.stats().toString(), after.hits() + 1, cache.stats().hits());
      assertEquals(cache.stats().toString(), after.misses(), cache.stats().misses());
      // The cached blocks stay, but for the one whose slot became the window (and a block whose
      // estimate collisions inflated: count-min sketches overestimate, never underestimate). Looked
      // at through a handle that does not insert, so that what is missing is not loaded again.
      BlockCacheStats before = cache.stats();
      try (CachedFile look = cache.open(hotPath, false)) {
        for (int block = 0; block < capacity; block++) {
          look.read((long) block * BLOCK, b, 0, BLOCK);
          Content.check("hot", hotSeed, (long) block * BLOCK, b, 0, BLOCK);
        }
      }
      long lost = cache.stats().readAround() - before.readAround();
      assertEquals(cache.stats().toString(), capacity - lost, cache.stats().hits() - before.hits());
      assertTrue("hot blocks lost: " + lost + ", " + cache.stats(), lost >= 1 && lost <= 1 + newBlocks / 20);
    }
  }
}
