package dev.pread.cache;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;
import org.apache.lucene.util.BitUtil;

/**
 * {@link BlockReader}: values of every width at every kind of position, the window's validation
 * when its block is evicted and its slot reused, concurrent readers through a cache far smaller
 * than the file, errors, close, and how hits are counted.
 */
public class TestBlockReader extends LuceneTestCase {

  /** The file's bytes at {@code position}, {@code n} of them. */
  private static byte[] expected(long seed, long position, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = Content.byteAt(seed, position + i);
    }
    return b;
  }

  /** Reads one random value at {@code pos} through {@code reader} and fails unless it is the file's. */
  private static void checkOne(Random r, BlockReader reader, long seed, long size, long pos) throws IOException {
    String at = " at " + pos;
    switch (r.nextInt(8)) {
      case 0 -> assertEquals(at, Content.byteAt(seed, pos), reader.readByte(pos));
      case 1 -> {
        if (pos <= size - 2) {
          assertEquals(at, (short) BitUtil.VH_LE_SHORT.get(expected(seed, pos, 2), 0), reader.readShort(pos));
        }
      }
      case 2 -> {
        if (pos <= size - 4) {
          assertEquals(at, (int) BitUtil.VH_LE_INT.get(expected(seed, pos, 4), 0), reader.readInt(pos));
        }
      }
      case 3 -> {
        if (pos <= size - 8) {
          assertEquals(at, (long) BitUtil.VH_LE_LONG.get(expected(seed, pos, 8), 0), reader.readLong(pos));
        }
      }
      case 4 -> {
        int count = (int) Math.min(r.nextInt(40), (size - pos) / Long.BYTES);
        long[] got = new long[count + 2];
        reader.readLongs(pos, got, 1, count);
        byte[] want = expected(seed, pos, count * Long.BYTES);
        for (int i = 0; i < count; i++) {
          assertEquals(at + " long " + i, (long) BitUtil.VH_LE_LONG.get(want, i * Long.BYTES), got[1 + i]);
        }
      }
      case 5 -> {
        int count = (int) Math.min(r.nextInt(40), (size - pos) / Integer.BYTES);
        int[] got = new int[count];
        reader.readInts(pos, got, 0, count);
        byte[] want = expected(seed, pos, count * Integer.BYTES);
        for (int i = 0; i < count; i++) {
          assertEquals(at + " int " + i, (int) BitUtil.VH_LE_INT.get(want, i * Integer.BYTES), got[i]);
        }
      }
      case 6 -> {
        int count = (int) Math.min(r.nextInt(40), (size - pos) / Float.BYTES);
        float[] got = new float[count];
        reader.readFloats(pos, got, 0, count);
        byte[] want = expected(seed, pos, count * Float.BYTES);
        for (int i = 0; i < count; i++) {
          int bits = (int) BitUtil.VH_LE_INT.get(want, i * Float.BYTES);
          assertEquals(at + " float " + i, bits, Float.floatToRawIntBits(got[i]));
        }
      }
      default -> {
        int len = (int) Math.min(size - pos, r.nextBoolean() ? r.nextInt(64) : r.nextInt(3 * 65536));
        byte[] got = new byte[len + 3];
        reader.readBytes(pos, got, 3, len);
        assertArrayEquals(at, expected(seed, pos, len), java.util.Arrays.copyOfRange(got, 3, len + 3));
      }
    }
  }

  public void testValuesOfEveryWidthAreTheFiles() throws IOException {
    Random r = random();
    int blockSize = 1 << TestUtil.nextInt(r, 12, 15);
    int blocks = TestUtil.nextInt(r, 2, 64);
    long seed = r.nextLong();
    long size = (long) blockSize * TestUtil.nextInt(r, 1, 100) + (r.nextBoolean() ? 0 : TestUtil.nextInt(r, 1, blockSize - 1));
    Path path = Content.write(createTempDir(), "f", seed, size);
    try (BlockCache cache =
            BlockCache.builder((long) blocks * blockSize).blockSize(blockSize).prefetchThreads(1).build();
        CachedFile file = cache.open(path, true)) {
      BlockReader reader = file.newReader(false);
      for (int i = 0; i < 5000; i++) {
        long pos;
        if (r.nextBoolean()) { // a few bytes either side of a block boundary, or the end
          long boundary = r.nextInt(4) == 0 ? size : (long) blockSize * r.nextInt((int) (size / blockSize) + 1);
          pos = Math.max(0, Math.min(size - 1, boundary - 1 - r.nextInt(9)));
        } else {
          pos = r.nextLong(size);
        }
        checkOne(r, reader, seed, size, pos);
      }
    }
  }

  public void testReadInBlockStopsAtTheEndOfTheBlockOrFile() throws IOException {
    Random r = random();
    int blockSize = 1 << TestUtil.nextInt(r, 12, 14);
    long seed = r.nextLong();
    long size = (long) blockSize * TestUtil.nextInt(r, 2, 20) + r.nextInt(blockSize);
    Path path = Content.write(createTempDir(), "f", seed, size);
    try (BlockCache cache = BlockCache.builder(4L * blockSize).blockSize(blockSize).build();
        CachedFile file = cache.open(path, true)) {
      BlockReader reader = file.newReader(false);
      long previousBlock = -2; // the block of the last read: a read in the one after it is a walk
      for (int i = 0; i < 500; i++) {
        long pos = r.nextBoolean() ? r.nextLong(size) : Math.max(0, size - 1 - r.nextInt(9));
        byte[] dst = new byte[1 + r.nextInt(2 * blockSize)];
        int max = 1 + r.nextInt(dst.length);
        long blockEnd = (pos / blockSize + 1) * blockSize;
        int want = (int) Math.min(max, Math.min(blockEnd, size) - pos);
        long missesBefore = cache.stats().misses();
        assertEquals("at " + pos + ", max " + max, want, reader.readInBlock(pos, dst, max));
        assertArrayEquals(expected(seed, pos, want), java.util.Arrays.copyOf(dst, want));
        long loaded = cache.stats().misses() - missesBefore;
        boolean lateOrWalk = (pos % blockSize >= blockSize / 2 || pos / blockSize == previousBlock + 1) && blockEnd < size;
        previousBlock = pos / blockSize;
        assertTrue("one block, and the next one only for a read late in a block or a walk: " + loaded,
            loaded <= (lateOrWalk ? 2 : 1));
      }
      expectThrows(EOFException.class, () -> reader.readInBlock(size, new byte[8], 8));
      expectThrows(IllegalArgumentException.class, () -> reader.readInBlock(0, new byte[8], 0));
      expectThrows(IllegalArgumentException.class, () -> reader.readInBlock(0, new byte[8], 9));
      expectThrows(IllegalArgumentException.class, () -> reader.readInBlock(-1, new byte[8], 8));
    }
  }

  public void testEvictedWindowIsLookedUpAgain() throws IOException {
    int blockSize = 4096;
    long seed = random().nextLong();
    long size = 16L * blockSize;
    Path path = Content.write(createTempDir(), "f", seed, size);
    // Two blocks, CLOCK alone: reading blocks 1 to 15 recycles block 0's slot for other contents.
    try (BlockCache cache =
            BlockCache.builder(2L * blockSize).blockSize(blockSize).frequencyAdmission(false).build();
        CachedFile file = cache.open(path, true)) {
      BlockReader reader = file.newReader(false);
      long pos = 100;
      long want = (long) BitUtil.VH_LE_LONG.get(expected(seed, pos, 8), 0);
      assertEquals(want, reader.readLong(pos)); // the window is now block 0
      byte[] b = new byte[8];
      for (int block = 1; block < 16; block++) {
        file.read((long) block * blockSize, b, 0, 8);
      }
      BlockCacheStats before = cache.stats();
      assertTrue("block 0 was evicted: " + before, before.evictions() > 0 && before.residentBytes() == 2L * blockSize);
      // The slot that held block 0 holds another block now: the window must not answer from it.
      assertEquals(want, reader.readLong(pos));
      assertEquals("block 0 was read again", before.misses() + 1, cache.stats().misses());
    }
  }

  public void testConcurrentReadersThroughConstantEviction() throws Exception {
    Random r = random();
    int blockSize = 4096;
    int threads = TestUtil.nextInt(r, 2, 4);
    long seed = r.nextLong();
    long size = (long) blockSize * TestUtil.nextInt(r, 32, 96) + r.nextInt(blockSize);
    Path path = Content.write(createTempDir(), "f", seed, size);
    int readsPerThread = atLeast(4000);
    try (BlockCache cache =
            BlockCache.builder((long) TestUtil.nextInt(r, 2, 6) * blockSize)
                .blockSize(blockSize)
                .frequencyAdmission(r.nextBoolean())
                .prefetchThreads(2)
                .build();
        CachedFile file = cache.open(path, true)) {
      CyclicBarrier start = new CyclicBarrier(threads);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long threadSeed = r.nextLong();
        Thread worker =
            new Thread(
                () -> {
                  Random tr = new Random(threadSeed);
                  try {
                    BlockReader reader = file.newReader(false);
                    start.await();
                    for (int i = 0; i < readsPerThread && failure.get() == null; i++) {
                      // stay in a block a while, then jump: windows live long enough to go stale
                      long pos = tr.nextInt(3) == 0 ? tr.nextLong(size) : Math.min(size - 1, (i * 37L) % size);
                      checkOne(tr, reader, seed, size, pos);
                      if (tr.nextInt(50) == 0) {
                        file.prefetch(tr.nextLong(size), 1);
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "reader-" + t);
        workers.add(worker);
        worker.start();
      }
      for (Thread worker : workers) {
        worker.join();
      }
      if (failure.get() != null) {
        throw new AssertionError("seed " + seed + ": " + failure.get(), failure.get());
      }
      assertTrue("the cache must have churned: " + cache.stats(), cache.stats().evictions() > 0);
    }
  }

  public void testErrorsNameTheFileAndTheOffset() throws IOException {
    long seed = random().nextLong();
    Path path = Content.write(createTempDir(), "f", seed, 10_000);
    try (BlockCache cache = BlockCache.builder(1 << 16).blockSize(4096).build();
        CachedFile file = cache.open(path, true)) {
      BlockReader reader = file.newReader(false);
      assertEquals(Content.byteAt(seed, 9_999), reader.readByte(9_999));
      EOFException eof = expectThrows(EOFException.class, () -> reader.readLong(9_996));
      assertTrue(eof.getMessage(), eof.getMessage().contains(path.toString()) && eof.getMessage().contains("9996"));
      expectThrows(EOFException.class, () -> reader.readByte(10_000));
      expectThrows(EOFException.class, () -> reader.readBytes(5_000, new byte[6_000], 0, 5_001));
      IllegalArgumentException neg = expectThrows(IllegalArgumentException.class, () -> reader.readInt(-1));
      assertTrue(neg.getMessage(), neg.getMessage().contains(path.toString()));
      expectThrows(IndexOutOfBoundsException.class, () -> reader.readBytes(0, new byte[4], 2, 3));
      expectThrows(IndexOutOfBoundsException.class, () -> reader.readLongs(0, new long[4], -1, 2));
    }
  }

  public void testReadsAfterCloseThrowEvenInsideTheWindow() throws IOException {
    long seed = random().nextLong();
    Path path = Content.write(createTempDir(), "f", seed, 10_000);
    BlockCache cache = BlockCache.builder(1 << 16).blockSize(4096).build();
    try {
      CachedFile other = cache.open(path, true); // keeps the file's blocks cached after the close below
      CachedFile file = cache.open(path, true);
      BlockReader reader = file.newReader(false);
      assertEquals(Content.byteAt(seed, 10), reader.readByte(10));
      file.close();
      expectThrows(AlreadyClosedException.class, () -> reader.readByte(11));
      expectThrows(AlreadyClosedException.class, () -> reader.readBytes(0, new byte[0], 0, 0));
      expectThrows(AlreadyClosedException.class, () -> file.newReader(false));
      BlockReader second = other.newReader(false);
      assertEquals(Content.byteAt(seed, 10), second.readByte(10));
      cache.close();
      expectThrows(AlreadyClosedException.class, () -> second.readByte(10));
      expectThrows(AlreadyClosedException.class, () -> second.readLong(5_000));
    } finally {
      cache.close();
    }
  }

  public void testFilesThatDoNotInsertHaveNoReader() throws IOException {
    Path path = Content.write(createTempDir(), "f", 1, 100);
    try (BlockCache cache = BlockCache.builder(1 << 16).blockSize(4096).build();
        CachedFile file = cache.open(path, false)) {
      expectThrows(IllegalStateException.class, () -> file.newReader(false));
    }
  }

  public void testAHitIsCountedPerBlockVisited() throws IOException {
    long seed = random().nextLong();
    Path path = Content.write(createTempDir(), "f", seed, 3 * 4096);
    try (BlockCache cache = BlockCache.builder(1 << 16).blockSize(4096).build();
        CachedFile file = cache.open(path, true)) {
      BlockReader reader = file.newReader(true); // for random access: no extra block on a walk
      for (int i = 0; i < 100; i++) {
        reader.readByte(i); // loads block 0: one miss, then reads inside the window
      }
      assertEquals(1, cache.stats().misses());
      assertEquals(0, cache.stats().hits());
      reader.readByte(5_000); // block 1: a miss
      reader.readByte(6); // back to block 0: a hit
      reader.readByte(7);
      assertEquals(2, cache.stats().misses());
      assertEquals(1, cache.stats().hits());
    }
  }

  /**
   * A miss at or past the middle of a block loads the next block too, when it is missing; a miss
   * earlier in a block, or in the file's last block, or whose next block is cached, loads that
   * block alone.
   */
  public void testAMissLateInABlockLoadsTheNextBlockToo() throws IOException {
    long seed = random().nextLong();
    Path dir = createTempDir();
    Path four = Content.write(dir, "four", seed, 4 * 4096);
    Path three = Content.write(dir, "three", seed, 3 * 4096);
    try (BlockCache cache = BlockCache.builder(1 << 16).blockSize(4096).build();
        CachedFile f = cache.open(four, true);
        CachedFile g = cache.open(three, true)) {
      BlockReader reader = f.newReader(false);
      assertEquals(Content.byteAt(seed, 2047), reader.readByte(2047)); // just before block 0's middle
      assertEquals(1, cache.stats().misses());
      assertEquals(4096, cache.stats().bytesRead());
      assertEquals(Content.byteAt(seed, 4096 + 2048), reader.readByte(4096 + 2048)); // block 1's middle
      assertEquals("blocks 1 and 2", 3, cache.stats().misses());
      assertEquals(3 * 4096, cache.stats().bytesRead());
      assertEquals(Content.byteAt(seed, 2 * 4096 + 5), reader.readByte(2 * 4096 + 5));
      assertEquals("block 2 was loaded with block 1", 3, cache.stats().misses());
      assertEquals(1, cache.stats().hits());
      byte[] got = new byte[1596];
      reader.readBytes(3 * 4096 + 2500, got, 0, got.length); // late in the file's last block
      assertArrayEquals(expected(seed, 3 * 4096 + 2500, got.length), got);
      assertEquals(4, cache.stats().misses());
      assertEquals(4 * 4096, cache.stats().bytesRead());

      BlockReader other = g.newReader(false);
      assertEquals(Content.byteAt(seed, 4096 + 10), other.readByte(4096 + 10));
      assertEquals(5, cache.stats().misses());
      assertEquals(Content.byteAt(seed, 4000), other.readByte(4000)); // late in block 0, block 1 cached
      assertEquals(6, cache.stats().misses());
      assertEquals(6 * 4096, cache.stats().bytesRead());
      assertEquals(Content.byteAt(seed, 4096 + 20), other.readByte(4096 + 20));
      assertEquals(2, cache.stats().hits());
    }
  }

  public void testAWalkIntoTheNextBlockLoadsTheBlockAfterTooUnlessForRandomAccess() throws IOException {
    long seed = random().nextLong();
    Path dir = createTempDir();
    Path six = Content.write(dir, "six", seed, 6 * 4096);
    Path four = Content.write(dir, "four", seed, 4 * 4096);
    try (BlockCache cache = BlockCache.builder(1 << 16).blockSize(4096).build();
        CachedFile f = cache.open(six, true);
        CachedFile g = cache.open(four, true)) {
      BlockReader reader = f.newReader(false);
      assertEquals(Content.byteAt(seed, 10), reader.readByte(10));
      assertEquals(1, cache.stats().misses());
      assertEquals(Content.byteAt(seed, 4096 + 10), reader.readByte(4096 + 10)); // a walk into block 1
      assertEquals("blocks 1 and 2", 3, cache.stats().misses());
      assertEquals(3 * 4096, cache.stats().bytesRead());
      assertEquals(Content.byteAt(seed, 2 * 4096 + 10), reader.readByte(2 * 4096 + 10)); // a hit
      assertEquals(3, cache.stats().misses());
      assertEquals(1, cache.stats().hits());
      byte[] got = new byte[100];
      reader.readBytes(3 * 4096 - 50, got, 0, got.length); // a read across into block 3
      assertArrayEquals(expected(seed, 3 * 4096 - 50, got.length), got);
      assertEquals("blocks 3 and 4", 5, cache.stats().misses());
      assertEquals(Content.byteAt(seed, 5 * 4096 + 10), reader.readByte(5 * 4096 + 10)); // a jump
      assertEquals(6, cache.stats().misses());
      assertEquals(Content.byteAt(seed, 10), reader.readByte(10)); // back: a hit
      assertEquals(Content.byteAt(seed, 4096 + 10), reader.readByte(4096 + 10)); // a walk onto a hit
      assertEquals(6, cache.stats().misses());
      assertEquals(6 * 4096, cache.stats().bytesRead());

      BlockReader random = g.newReader(true);
      assertEquals(Content.byteAt(seed, 10), random.readByte(10));
      assertEquals(Content.byteAt(seed, 4096 + 10), random.readByte(4096 + 10)); // a walk: one block
      assertEquals(8, cache.stats().misses());
      assertEquals(Content.byteAt(seed, 2 * 4096 + 3000), random.readByte(2 * 4096 + 3000)); // late
      assertEquals("a late miss still loads the next block", 10, cache.stats().misses());
      assertEquals(10 * 4096, cache.stats().bytesRead());
    }
  }
}
