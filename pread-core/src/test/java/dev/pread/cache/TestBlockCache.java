package dev.pread.cache;

import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link BlockCache} and {@link CachedFile} read by one thread: exact bytes at every position and
 * block boundary, end of file, bad arguments, close, builder validation, the memory budget, files
 * opened twice, and the statistics a sequence of reads must produce.
 */
public class TestBlockCache extends LuceneTestCase {

  private static int randomBlockSize(Random r) {
    return 1 << TestUtil.nextInt(r, 12, 16);
  }

  /** Sizes around block boundaries: empty, one byte, a block less or more one, several blocks and a bit. */
  private static long randomFileSize(Random r, int blockSize) {
    return switch (r.nextInt(7)) {
      case 0 -> 0;
      case 1 -> 1 + r.nextInt(blockSize - 1);
      case 2 -> blockSize;
      case 3 -> blockSize + (r.nextBoolean() ? 1 : -1);
      case 4 -> (long) blockSize * TestUtil.nextInt(r, 2, 40);
      default -> (long) blockSize * TestUtil.nextInt(r, 1, 40) + TestUtil.nextInt(r, 1, blockSize - 1);
    };
  }

  public void testReadsReturnTheFilesBytes() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    int blockSize = randomBlockSize(r);
    int blocks = r.nextBoolean() ? TestUtil.nextInt(r, 1, 4) : TestUtil.nextInt(r, 16, 256);
    try (BlockCache cache =
        BlockCache.builder((long) blocks * blockSize).blockSize(blockSize).prefetchThreads(2).build()) {
      int files = TestUtil.nextInt(r, 1, 6);
      long[] seeds = new long[files];
      long[] sizes = new long[files];
      CachedFile[] open = new CachedFile[files];
      try {
        for (int f = 0; f < files; f++) {
          seeds[f] = r.nextLong();
          sizes[f] = randomFileSize(r, blockSize);
          Path p = Content.write(dir, "f" + f, seeds[f], sizes[f]);
          open[f] = cache.open(p, r.nextInt(4) != 0);
          assertEquals(sizes[f], open[f].size());
          assertEquals(p, open[f].path());
        }
        byte[] dst = new byte[8 * blockSize + 64];
        for (int i = 0; i < 3000; i++) {
          int f = r.nextInt(files);
          long size = sizes[f];
          long pos;
          int len;
          switch (r.nextInt(5)) {
            case 0 -> { // around a block boundary
              long boundary = (long) blockSize * r.nextInt((int) (size / blockSize) + 1);
              pos = Math.max(0, Math.min(size, boundary - r.nextInt(16)));
              len = (int) Math.min(size - pos, r.nextInt(2 * blockSize + 1));
            }
            case 1 -> { // ending at EOF
              len = (int) Math.min(size, r.nextInt(3 * blockSize + 1));
              pos = size - len;
            }
            default -> {
              pos = size == 0 ? 0 : r.nextLong(size + 1);
              len = (int) Math.min(size - pos, r.nextInt(r.nextBoolean() ? 100 : 8 * blockSize + 1));
            }
          }
          int offset = r.nextInt(64);
          byte fill = (byte) r.nextInt();
          Arrays.fill(dst, fill);
          if (r.nextInt(4) == 0) {
            // Ask for more than is left: stops at EOF with at least min.
            int max = Math.min(dst.length - offset, len + r.nextInt(2 * blockSize));
            int got = open[f].readAtLeast(pos, dst, offset, len, max);
            assertEquals(Math.min(max, size - pos), got);
            len = got;
          } else {
            open[f].read(pos, dst, offset, len);
          }
          Content.check("f" + f + " blockSize " + blockSize, seeds[f], pos, dst, offset, len);
          for (int k = 0; k < offset; k++) {
            assertEquals("byte written before the destination range", fill, dst[k]);
          }
          for (int k = offset + len; k < dst.length; k++) {
            assertEquals("byte written after the destination range", fill, dst[k]);
          }
          if (r.nextInt(50) == 0 && size > 0) {
            long p = r.nextLong(size);
            open[f].prefetch(p, r.nextLong(size - p + 1));
          }
        }
      } finally {
        for (CachedFile c : open) {
          if (c != null) {
            c.close();
          }
        }
      }
      Content.awaitPrefetches(cache);
      BlockCacheStats s = cache.stats();
      if (Arrays.stream(sizes).anyMatch(size -> size > 0)) { // all files may be empty for a seed
        assertTrue(s.toString(), s.hits() + s.misses() + s.readAround() > 0);
      }
      assertEquals(s.toString(), 0, s.loadFailures());
    }
  }

  public void testLimitGrowthStopsCommittingBlocks() throws IOException {
    int block = 4096;
    long seed = random().nextLong();
    Path p = Content.write(createTempDir(), "f", seed, 64L * block);
    int limit = 1 + random().nextInt(8);
    try (BlockCache cache = BlockCache.builder(32L * block).blockSize(block).build();
        CachedFile f = cache.open(p)) {
      cache.limitGrowth((long) limit * block + random().nextInt(block)); // rounds down to blocks
      byte[] b = new byte[block];
      for (int i = 0; i < 32; i++) {
        f.read((long) i * block, b, 0, block);
        Content.check("block " + i, seed, (long) i * block, b, 0, block);
      }
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), (long) limit * block, s.residentBytes());
      assertTrue(s.toString(), s.evictions() > 0 || s.readAround() > 0);
      // more memory: it grows again, up to its budget
      cache.limitGrowth(Long.MAX_VALUE);
      for (int i = 32; i < 64; i++) {
        f.read((long) i * block, b, 0, block);
        Content.check("block " + i, seed, (long) i * block, b, 0, block);
      }
      assertEquals(32L * block, cache.stats().residentBytes());
    }
  }

  /**
   * shrink evicts the blocks above the size asked, gives whole chunks back (allocated bytes fall),
   * keeps every read correct, holds no more than asked until a larger size lets it grow again.
   */
  public void testShrinkGivesMemoryBackAndGrowsAgain() throws IOException {
    int block = 16 << 10;
    int chunkBlocks = (int) (BlockCache.CHUNK_BYTES / block);
    int blocks = 2 * chunkBlocks + chunkBlocks / 2; // two chunks and a half
    long seed = random().nextLong();
    long size = (long) (blocks + 64) * block;
    Path p = Content.write(createTempDir(), "f", seed, size);
    try (BlockCache cache = BlockCache.builder((long) blocks * block).blockSize(block).build();
        CachedFile f = cache.open(p)) {
      BlockReader r = f.newReader(false);
      byte[] b = new byte[block];
      for (long pos = 0; pos + block <= size; pos += block) {
        f.read(pos, b, 0, block);
        Content.check("at " + pos, seed, pos, b, 0, block);
      }
      assertEquals((long) blocks * block, cache.stats().allocatedBytes());
      assertEquals((long) blocks * block, cache.stats().residentBytes());

      int keep = 1 + random().nextInt(chunkBlocks + chunkBlocks / 2); // within the first two chunks
      long allocated = cache.shrink((long) keep * block + random().nextInt(block));
      long keptChunks = (keep + chunkBlocks - 1) / chunkBlocks;
      assertEquals("whole chunks above " + keep + " blocks given back", keptChunks * chunkBlocks * block, allocated);
      assertEquals(allocated, cache.stats().allocatedBytes());
      assertEquals((long) keep * block, cache.stats().residentBytes());
      // every byte still reads right, in place and copied, and the cache stays within keep blocks
      for (int i = 0; i < 3 * blocks; i++) {
        long pos = random().nextLong(size - 8);
        assertEquals("at " + pos, Content.byteAt(seed, pos), r.readByte(pos));
        long at = random().nextLong(size - block);
        f.read(at, b, 0, block);
        Content.check("at " + at, seed, at, b, 0, block);
      }
      BlockCacheStats s = cache.stats();
      assertTrue(s.toString(), s.residentBytes() <= (long) keep * block);
      assertEquals(s.toString(), allocated, s.allocatedBytes());
      assertEquals(s.toString(), (long) keep * block, s.residentBytes() + cache.freeBytes());

      // room again: it refills up to its budget
      cache.shrink(Long.MAX_VALUE);
      for (long pos = 0; pos + block <= size; pos += block) {
        f.read(pos, b, 0, block);
        Content.check("at " + pos, seed, pos, b, 0, block);
      }
      assertEquals((long) blocks * block, cache.stats().residentBytes());
      assertEquals((long) blocks * block, cache.stats().allocatedBytes());
    }
  }

  /** Readers on several threads read the right bytes while another thread shrinks and grows the cache. */
  public void testShrinkWhileReading() throws Exception {
    int block = 16 << 10;
    int chunkBlocks = (int) (BlockCache.CHUNK_BYTES / block);
    int blocks = 2 * chunkBlocks + 17;
    long seed = random().nextLong();
    long size = (long) blocks * block * 5 / 4;
    Path p = Content.write(createTempDir(), "f", seed, size);
    long shrinkerSeed = random().nextLong();
    try (BlockCache cache = BlockCache.builder((long) blocks * block).blockSize(block).build();
        CachedFile f = cache.open(p)) {
      int readers = 2;
      java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
      java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(readers);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < readers; t++) {
        long readerSeed = random().nextLong();
        Thread th = new Thread(() -> {
          try {
            Random rnd = new Random(readerSeed);
            BlockReader r = f.newReader(false);
            byte[] b = new byte[3 * block];
            for (int i = 0; i < 20_000; i++) {
              long pos = (long) (Math.abs(rnd.nextGaussian()) * size / 3) % (size - b.length);
              if (rnd.nextBoolean()) {
                assertEquals("at " + pos, Content.byteAt(seed, pos), r.readByte(pos));
              } else {
                int len = 1 + rnd.nextInt(b.length);
                f.read(pos, b, 0, len);
                Content.check("at " + pos, seed, pos, b, 0, len);
              }
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          } finally {
            done.countDown();
          }
        });
        threads.add(th);
        th.start();
      }
      Random rnd = new Random(shrinkerSeed);
      int shrinks = 0;
      while (done.getCount() > 0 || shrinks < 20) {
        cache.shrink(rnd.nextInt(4) == 0 ? Long.MAX_VALUE : (long) (1 + rnd.nextInt(blocks)) * block);
        shrinks++;
        Thread.yield();
      }
      for (Thread th : threads) {
        th.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("reader failed (shrinker seed " + shrinkerSeed + ")", failure.get());
      }
      // quiet now: a shrink takes the cache to what it asks
      int keep = 1 + rnd.nextInt(chunkBlocks);
      assertEquals((long) chunkBlocks * block, cache.shrink((long) keep * block));
      BlockCacheStats s = cache.stats();
      assertTrue(s.toString(), s.residentBytes() <= (long) keep * block);
      assertEquals(s.toString(), 0, s.loadFailures());
    }
  }

  public void testEndOfFile() throws IOException {
    Path dir = createTempDir();
    int blockSize = 4096;
    long seed = random().nextLong();
    long size = 3L * blockSize + 123; // the last block is partial
    Path p = Content.write(dir, "f", seed, size);
    try (BlockCache cache = BlockCache.builder(16L * blockSize).blockSize(blockSize).build();
        CachedFile f = cache.open(p)) {
      byte[] b = new byte[3 * blockSize];
      // The partial last block, read whole, then in pieces.
      f.read(size - 123, b, 0, 123);
      Content.check("last block", seed, size - 123, b, 0, 123);
      f.read(size - 5000, b, 0, 5000);
      Content.check("across into the last block", seed, size - 5000, b, 0, 5000);
      assertEquals(7, f.readAtLeast(size - 7, b, 0, 1, b.length));
      Content.check("readAtLeast at EOF", seed, size - 7, b, 0, 7);
      assertEquals(0, f.readAtLeast(size, b, 0, 0, 10));
      f.read(size, b, 0, 0);

      EOFException e = expectThrows(EOFException.class, () -> f.read(size - 10, b, 0, 11));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("offset " + size));
      e = expectThrows(EOFException.class, () -> f.read(size + 100, b, 0, 1));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      assertTrue(e.getMessage(), e.getMessage().contains("offset " + (size + 100)));
      expectThrows(EOFException.class, () -> f.readAtLeast(size + 1, b, 0, 0, 10));
      expectThrows(EOFException.class, () -> f.readAtLeast(size - 5, b, 0, 6, 100));

      // Reads that failed left nothing behind: the whole file still reads correctly.
      byte[] all = new byte[(int) size];
      f.read(0, all, 0, all.length);
      Content.check("whole file", seed, 0, all, 0, all.length);
    }
  }

  public void testEmptyFile() throws IOException {
    Path p = Content.write(createTempDir(), "empty", 1, 0);
    try (BlockCache cache = BlockCache.builder(1 << 20).build();
        CachedFile f = cache.open(p)) {
      assertEquals(0, f.size());
      byte[] b = new byte[10];
      f.read(0, b, 0, 0);
      assertEquals(0, f.readAtLeast(0, b, 0, 0, 10));
      f.prefetch(0, 0);
      expectThrows(EOFException.class, () -> f.read(0, b, 0, 1));
      assertEquals(0, cache.stats().misses());
    }
  }

  public void testBadArguments() throws IOException {
    Path p = Content.write(createTempDir(), "f", 7, 100_000);
    try (BlockCache cache = BlockCache.builder(1 << 20).build();
        CachedFile f = cache.open(p)) {
      byte[] b = new byte[100];
      IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> f.read(-1, b, 0, 1));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()) && e.getMessage().contains("-1"));
      expectThrows(IllegalArgumentException.class, () -> f.readAtLeast(0, b, 0, 5, 4));
      expectThrows(IllegalArgumentException.class, () -> f.readAtLeast(0, b, 0, -1, 4));
      // Array bounds are the JDK's: IndexOutOfBoundsException, as for every array copy.
      expectThrows(IndexOutOfBoundsException.class, () -> f.read(0, b, 90, 11));
      expectThrows(IndexOutOfBoundsException.class, () -> f.read(0, b, -1, 1));
      expectThrows(IndexOutOfBoundsException.class, () -> f.read(0, b, 0, -1));
      e = expectThrows(IllegalArgumentException.class, () -> f.prefetch(-1, 10));
      assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
      expectThrows(IllegalArgumentException.class, () -> f.prefetch(0, -1));
      expectThrows(IllegalArgumentException.class, () -> f.prefetch(99_999, 2));
      expectThrows(IllegalArgumentException.class, () -> f.prefetch(100_001, 0));
      expectThrows(IllegalArgumentException.class, () -> f.prefetch(Long.MAX_VALUE, Long.MAX_VALUE));
      f.prefetch(100_000, 0);
      f.prefetch(0, 100_000);
      Content.awaitPrefetches(cache);
      // Nothing was read for the refused calls.
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 0, s.misses());
      assertEquals(s.toString(), 0, s.hits());
    }
  }

  public void testOpenMissingFileAndDirectory() throws IOException {
    Path dir = createTempDir();
    Path real = org.apache.lucene.util.Unwrappable.unwrapAll(dir).toAbsolutePath();
    try (BlockCache cache = BlockCache.builder(1 << 20).build()) {
      expectThrows(java.nio.file.NoSuchFileException.class, () -> cache.open(real.resolve("missing")));
      IOException e = expectThrows(IOException.class, () -> cache.open(real));
      assertTrue(e.getMessage(), e.getMessage().contains(real.toString()));
      assertEquals(0, cache.openFiles());
    }
  }

  public void testClosedFileAndClosedCache() throws IOException {
    Path dir = createTempDir();
    Path p = Content.write(dir, "f", 3, 50_000);
    Path q = Content.write(dir, "g", 4, 50_000);
    BlockCache cache = BlockCache.builder(1 << 20).name("closing").build();
    CachedFile a = cache.open(p);
    CachedFile b = cache.open(p); // shares a's blocks
    CachedFile g = cache.open(q);
    byte[] buf = new byte[1000];
    a.read(0, buf, 0, 1000);
    a.close();
    a.close(); // harmless
    assertTrue(a.isClosed());
    AlreadyClosedException e = expectThrows(AlreadyClosedException.class, () -> a.read(0, buf, 0, 10));
    assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
    expectThrows(AlreadyClosedException.class, () -> a.readAtLeast(0, buf, 0, 1, 10));
    expectThrows(AlreadyClosedException.class, () -> a.prefetch(0, 10));
    // The other handle of the same file still reads.
    b.read(10, buf, 0, 100);
    Content.check("b after a closed", 3, 10, buf, 0, 100);
    assertFalse(b.isClosed());

    cache.close();
    cache.close(); // harmless
    assertTrue(cache.isClosed());
    assertTrue(b.isClosed());
    assertTrue(g.isClosed());
    e = expectThrows(AlreadyClosedException.class, () -> b.read(0, buf, 0, 10));
    assertTrue(e.getMessage(), e.getMessage().contains(p.toString()));
    expectThrows(AlreadyClosedException.class, () -> g.read(40_000, buf, 0, 10));
    expectThrows(AlreadyClosedException.class, () -> g.prefetch(0, 10));
    e = expectThrows(AlreadyClosedException.class, () -> cache.open(q));
    assertTrue(e.getMessage(), e.getMessage().contains("closing"));
    // Closing files after their cache is harmless.
    b.close();
    g.close();
  }

  public void testBuilderValidation() {
    assertMessage(() -> BlockCache.builder(0), "cache budget must be positive (got 0 bytes)");
    assertMessage(() -> BlockCache.builder(-5), "cache budget must be positive (got -5 bytes)");
    assertMessage(() -> BlockCache.builder(1 << 20).blockSize(4095), "block size must be a power of two from 4096 to 1048576 (got 4095)");
    assertMessage(() -> BlockCache.builder(1 << 20).blockSize(2048), "(got 2048)");
    assertMessage(() -> BlockCache.builder(1 << 20).blockSize(3 * 4096), "(got 12288)");
    assertMessage(() -> BlockCache.builder(1 << 20).blockSize(2 << 20), "(got 2097152)");
    assertMessage(() -> BlockCache.builder(1 << 20).prefetchThreads(0), "prefetch threads must be 1 to 256 (got 0)");
    assertMessage(() -> BlockCache.builder(1 << 20).prefetchThreads(257), "(got 257)");
    assertMessage(() -> BlockCache.builder(1 << 20).maxPrefetchBlocks(0), "max prefetch blocks must be at least 1 (got 0)");
    assertMessage(() -> BlockCache.builder(8191).blockSize(8192).build(), "cache budget 8191 is smaller than one block of 8192 bytes");
    assertMessage(() -> BlockCache.builder((1L << 27) * 4096 + 4096).blockSize(4096).build(), "holds more than 2^27 blocks");
  }

  private static void assertMessage(Runnable r, String expected) {
    IllegalArgumentException e = expectThrows(IllegalArgumentException.class, r::run);
    assertTrue("message \"" + e.getMessage() + "\" lacks \"" + expected + "\"", e.getMessage().contains(expected));
  }

  public void testBuilderDefaultsAndSizes() throws IOException {
    long budget = 10L * 16384 + 5000; // not a whole number of blocks: the rest is not used
    try (BlockCache cache = BlockCache.builder(budget).name("sizes").build()) {
      assertEquals("sizes", cache.name());
      assertEquals(budget, cache.budgetBytes());
      assertEquals(BlockCache.DEFAULT_BLOCK_SIZE, cache.blockSize());
      assertEquals(10, cache.blockCount());
      assertTrue(cache.fixedOverheadBytes() > 0);
      assertEquals(0, cache.stats().allocatedBytes());
      assertTrue(cache.toString().contains("sizes"));
    }
    try (BlockCache cache = BlockCache.builder(1 << 20).build()) {
      assertTrue(cache.name(), cache.name().startsWith("block-cache-"));
    }
  }

  /** Many files read at random through small and large caches: memory never above the budget. */
  public void testBudgetIsRespected() throws IOException {
    Random r = random();
    Path dir = createTempDir();
    int blockSize = randomBlockSize(r);
    long budget = (long) blockSize * TestUtil.nextInt(r, 1, 40) + r.nextInt(blockSize);
    List<Long> seeds = new ArrayList<>();
    List<Path> paths = new ArrayList<>();
    for (int f = 0; f < 12; f++) {
      seeds.add(r.nextLong());
      paths.add(Content.write(dir, "f" + f, seeds.get(f), (long) blockSize * TestUtil.nextInt(r, 1, 30) + r.nextInt(blockSize)));
    }
    try (BlockCache cache = BlockCache.builder(budget).blockSize(blockSize).prefetchThreads(2).build()) {
      List<CachedFile> open = new ArrayList<>();
      for (Path p : paths) {
        open.add(cache.open(p));
      }
      byte[] b = new byte[3 * blockSize];
      for (int i = 0; i < 2000; i++) {
        int f = r.nextInt(open.size());
        CachedFile c = open.get(f);
        long pos = r.nextLong(c.size());
        int len = (int) Math.min(c.size() - pos, r.nextInt(b.length + 1));
        c.read(pos, b, 0, len);
        Content.check("f" + f, seeds.get(f), pos, b, 0, len);
        if (r.nextInt(10) == 0) {
          c.prefetch(pos, c.size() - pos);
        }
        BlockCacheStats s = cache.stats();
        assertTrue(s + " budget " + budget, s.allocatedBytes() <= budget);
        assertTrue(s + " budget " + budget, s.residentBytes() <= budget);
        assertTrue(s.toString(), s.allocatedBytes() <= (long) cache.blockCount() * blockSize);
      }
      Content.awaitPrefetches(cache);
      BlockCacheStats s = cache.stats();
      assertTrue("reads of 12 files through a cache smaller than them must evict: " + s, s.evictions() > 0);
      for (CachedFile c : open) {
        c.close();
      }
      assertEquals(0, cache.openFiles());
      assertEquals("the blocks of closed files are free", 0, cache.stats().residentBytes());
    }
  }

  public void testSameFileOpenedTwiceSharesBlocks() throws IOException {
    Path dir = createTempDir();
    int blockSize = 4096;
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 10L * blockSize + 100);
    try (BlockCache cache = BlockCache.builder(64L * blockSize).blockSize(blockSize).build()) {
      CachedFile a = cache.open(p);
      byte[] all = new byte[(int) a.size()];
      a.read(0, all, 0, all.length);
      BlockCacheStats s1 = cache.stats();
      assertEquals(s1.toString(), 11, s1.misses());
      assertEquals(11L * blockSize, s1.residentBytes());

      // A second open (through another path to the same file, even) shares the blocks.
      CachedFile b = cache.open(p.getParent().resolve(".").resolve("f"), random().nextBoolean());
      assertEquals(1, cache.openFiles());
      Arrays.fill(all, (byte) 0);
      b.read(0, all, 0, all.length);
      Content.check("second open", seed, 0, all, 0, all.length);
      BlockCacheStats s2 = cache.stats();
      assertEquals(s2.toString(), 11, s2.misses());
      assertEquals(s2.toString(), s1.hits() + 11, s2.hits());

      a.close();
      assertEquals("still open through b", 1, cache.openFiles());
      assertEquals(11L * blockSize, cache.stats().residentBytes());
      b.read(0, all, 0, all.length);
      assertEquals(11, cache.stats().misses());
      b.close();
      assertEquals(0, cache.openFiles());
      assertEquals("the last close frees the file's blocks", 0, cache.stats().residentBytes());

      // Open again: a new file entry, read from storage again.
      try (CachedFile c = cache.open(p)) {
        c.read(0, all, 0, all.length);
        Content.check("reopened", seed, 0, all, 0, all.length);
        assertEquals(22, cache.stats().misses());
      }
    }
  }

  /** One read of N missing adjacent blocks: N misses, no hit, bytes read N blocks, one load. */
  public void testAdjacentMissesAreOneLoad() throws IOException {
    Path dir = createTempDir();
    int blockSize = 1 << TestUtil.nextInt(random(), 12, 14);
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 40L * blockSize);
    try (BlockCache cache = BlockCache.builder(64L * blockSize).blockSize(blockSize).build();
        CachedFile f = cache.open(p)) {
      int n = TestUtil.nextInt(random(), 2, 20);
      byte[] b = new byte[n * blockSize];
      long pos = 3L * blockSize;
      f.read(pos, b, 0, b.length);
      Content.check("run", seed, pos, b, 0, b.length);
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), n, s.misses());
      assertEquals("blocks a read loaded itself are not hits: " + s, 0, s.hits());
      assertEquals(s.toString(), (long) n * blockSize, s.bytesRead());
      // A read starting and ending inside blocks: the blocks it touches, and only those.
      f.read(pos + (long) n * blockSize + 10, b, 0, 2 * blockSize);
      s = cache.stats();
      assertEquals(s.toString(), n + 3, s.misses());
      assertEquals(s.toString(), 0, s.hits());
      // Again, all cached: hits only.
      f.read(pos, b, 0, b.length);
      s = cache.stats();
      assertEquals(s.toString(), n + 3, s.misses());
      assertEquals(s.toString(), n, s.hits());
      assertEquals(s.toString(), (long) (n + 3) * blockSize, s.bytesRead());
      assertEquals(s.toString(), 0, s.evictions());
    }
  }

  /** Hits, misses, evictions, bytes, hit ratio over a scripted sequence. */
  public void testStatisticsOfAScriptedSequence() throws IOException {
    Path dir = createTempDir();
    int blockSize = 4096;
    Path p = Content.write(dir, "f", 11, 20L * blockSize + 1000);
    // scripted evictions: CLOCK alone (admission: TestBlockCachePolicy)
    try (BlockCache cache = BlockCache.builder(4L * blockSize).blockSize(blockSize).frequencyAdmission(false).build();
        CachedFile f = cache.open(p)) {
      BlockCacheStats s = cache.stats();
      assertEquals(0.0, s.hitRatio(), 0);
      assertEquals(new BlockCacheStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), s);
      byte[] b = new byte[blockSize];
      f.read(0, b, 0, 100); // miss
      f.read(200, b, 0, 100); // hit
      f.read(300, b, 0, 100); // hit
      f.read(400, b, 0, 100); // hit
      s = cache.stats();
      assertEquals(1, s.misses());
      assertEquals(3, s.hits());
      assertEquals(0.75, s.hitRatio(), 0);
      assertEquals(blockSize, s.bytesRead());
      assertEquals(blockSize, s.residentBytes());
      assertEquals(0, s.evictions());
      // Fill the cache, then two more blocks: two evictions.
      for (int block = 1; block <= 5; block++) {
        f.read((long) block * blockSize, b, 0, 1);
      }
      s = cache.stats();
      assertEquals(6, s.misses());
      assertEquals(2, s.evictions());
      assertEquals(4L * blockSize, s.residentBytes());
      assertEquals(4L * blockSize, s.allocatedBytes());
      assertEquals(6L * blockSize, s.bytesRead());
      // The last, partial block: bytes read are the file's, not the block's.
      f.read(20L * blockSize, b, 0, 1000);
      s = cache.stats();
      assertEquals(6L * blockSize + 1000, s.bytesRead());
      assertEquals(0, s.readAround());
      assertEquals(0, s.prefetchSubmitted());
      assertEquals(0, s.loadFailures());
    }
  }

  /** A hit takes no lock and allocates nothing: reads of cached blocks allocate no byte. */
  public void testHitsAllocateNothing() throws IOException {
    com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue("per-thread allocation counting is not available",
        bean.isThreadAllocatedMemorySupported() && bean.isThreadAllocatedMemoryEnabled());
    int blockSize = 4096;
    long seed = random().nextLong();
    Path p = Content.write(createTempDir(), "f", seed, 8L * blockSize);
    try (BlockCache cache = BlockCache.builder(16L * blockSize).blockSize(blockSize).build();
        CachedFile f = cache.open(p)) {
      byte[] all = new byte[8 * blockSize];
      f.read(0, all, 0, all.length); // everything cached
      int[] positions = new int[1024];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = random().nextInt(8 * blockSize - 300);
      }
      byte[] b = new byte[300];
      for (int i = 0; i < 50_000; i++) { // warm up (and let the JIT compile the path)
        f.read(positions[i & 1023], b, 0, 1 + (i % 300));
      }
      long before = bean.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 20_000; i++) {
        f.read(positions[i & 1023], b, 0, 1 + (i % 300)); // one or two blocks, all hits
      }
      long allocated = bean.getCurrentThreadAllocatedBytes() - before;
      assertTrue("20,000 hits allocated " + allocated + " bytes", allocated < 1024);
      assertEquals(8, cache.stats().misses());
      Content.check("last hit", seed, positions[19_999 & 1023], b, 0, 1 + (19_999 % 300));
    }
  }
}
