package dev.pread.cache;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link BlockCache.Builder#readAroundIn}: a thread the predicate names reads every file as one
 * opened without inserting (the right bytes, nothing put into the cache, prefetches ignored), on
 * each read path ({@link CachedFile#read}, a {@link BlockReader}); other threads insert as usual, and
 * blocks they cached are hits for the named thread. By default the named threads are Lucene's merge
 * threads.
 */
public class TestBlockCacheReadAroundThreads extends LuceneTestCase {

  /** The kind of thread the caches below read around the cache in. */
  private static final class AroundThread extends Thread {
    AroundThread(Runnable r) {
      super(r, "around");
    }
  }

  private interface Reads {
    void run() throws Exception;
  }

  /** Runs {@code reads} in an {@link AroundThread} and rethrows what it threw. */
  private static void inAroundThread(Reads reads) throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t =
        new AroundThread(
            () -> {
              try {
                reads.run();
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    t.start();
    t.join();
    if (failure.get() instanceof Exception e) {
      throw e;
    } else if (failure.get() instanceof Error e) {
      throw e;
    }
  }

  public void testNamedThreadsReadAroundOthersInsert() throws Exception {
    int block = 4096 << random().nextInt(3);
    int blocks = TestUtil.nextInt(random(), 4, 24);
    long size = (long) blocks * block - random().nextInt(block);
    long seed = random().nextLong();
    Path p = Content.writeSynced(createTempDir(), "f", seed, size);
    try (BlockCache cache =
            BlockCache.builder(64L * block).blockSize(block).readAroundIn(t -> t instanceof AroundThread).build();
        CachedFile f = cache.open(p, true)) {
      inAroundThread(
          () -> {
            BlockReader reader = f.newReader(random().nextBoolean());
            for (int i = 0; i < 50; i++) {
              long position = TestUtil.nextLong(random(), 0, size - 1);
              int len = (int) Math.min(size - position, TestUtil.nextInt(random(), 1, 3 * block));
              byte[] b = new byte[len];
              if (random().nextBoolean()) {
                f.read(position, b, 0, len);
              } else {
                reader.readBytes(position, b, 0, len);
              }
              Content.check("read around at " + position, seed, position, b, 0, len);
              f.prefetch(position, len);
            }
          });
      BlockCacheStats s = cache.stats();
      assertEquals("nothing was put into the cache: " + s, 0, s.residentBytes());
      assertEquals("no block was loaded for the cache: " + s, 0, s.misses());
      assertEquals("prefetches did nothing: " + s, 0, s.prefetchSubmitted());
      assertTrue("the reads went around the cache: " + s, s.readAround() > 0);

      // Another thread inserts; its blocks are hits for the named thread, which still adds none.
      byte[] first = new byte[block];
      f.read(0, first, 0, block);
      Content.check("inserted", seed, 0, first, 0, block);
      s = cache.stats();
      assertEquals(s.toString(), block, s.residentBytes());
      assertEquals(s.toString(), 1, s.misses());
      inAroundThread(
          () -> {
            byte[] b = new byte[block];
            f.read(0, b, 0, block);
            Content.check("cached block", seed, 0, b, 0, block);
            int n = (int) Math.min(size - block, block);
            byte[] next = new byte[n];
            f.newReader(false).readBytes(block, next, 0, n);
            Content.check("next block", seed, block, next, 0, n);
          });
      BlockCacheStats after = cache.stats();
      assertEquals(after.toString(), s.hits() + 1, after.hits());
      assertEquals("the named thread added no block: " + after, block, after.residentBytes());
      assertEquals(after.toString(), 1, after.misses());
    }
  }

  /**
   * A named thread walking a file a value at a time through a {@link BlockReader} (as a merge
   * decodes a segment) reads each page of it from storage once, in runs that grow, not once per
   * value; the values are the file's, and nothing is put into the cache.
   */
  public void testSequentialValuesReadEachBlockOnce() throws Exception {
    int block = 4096 << random().nextInt(3);
    int blocks = TestUtil.nextInt(random(), 8, 200);
    long size = (long) blocks * block - random().nextInt(block);
    long seed = random().nextLong();
    Path p = Content.writeSynced(createTempDir(), "f", seed, size);
    byte[] expected = new byte[(int) size];
    for (int i = 0; i < expected.length; i++) {
      expected[i] = Content.byteAt(seed, i);
    }
    java.nio.ByteBuffer le = java.nio.ByteBuffer.wrap(expected).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    try (BlockCache cache =
            BlockCache.builder(64L * block).blockSize(block).readAroundIn(t -> t instanceof AroundThread).build();
        CachedFile f = cache.open(p, true)) {
      inAroundThread(
          () -> {
            BlockReader reader = f.newReader(random().nextBoolean());
            long at = 0;
            while (at < size) {
              int kind = random().nextInt(5);
              if (kind == 0 && at + Long.BYTES <= size) {
                assertEquals("long at " + at, le.getLong((int) at), reader.readLong(at));
                at += Long.BYTES;
              } else if (kind == 1 && at + Integer.BYTES <= size) {
                assertEquals("int at " + at, le.getInt((int) at), reader.readInt(at));
                at += Integer.BYTES;
              } else if (kind == 2 && at + 3 * Long.BYTES <= size) {
                long[] longs = new long[3];
                reader.readLongs(at, longs, 0, 3);
                for (int i = 0; i < 3; i++) {
                  assertEquals("long at " + (at + 8 * i), le.getLong((int) at + 8 * i), longs[i]);
                }
                at += 3 * Long.BYTES;
              } else if (kind == 3) {
                int n = (int) Math.min(size - at, TestUtil.nextInt(random(), 1, 100));
                byte[] b = new byte[n];
                reader.readBytes(at, b, 0, n);
                Content.check("bytes at " + at, seed, at, b, 0, n);
                at += n;
              } else {
                assertEquals("byte at " + at, expected[(int) at], reader.readByte(at));
                at++;
              }
            }
          });
      BlockCacheStats s = cache.stats();
      assertEquals("nothing was put into the cache: " + s, 0, s.residentBytes());
      // runs grow from a page and do not overlap; each counts the blocks it touches
      assertTrue("each page read once, not once per value: " + s, s.bytesRead() <= (size + 4095) / 4096 * 4096);
      assertTrue("a read a run, not a read a value: " + s, s.readAround() <= 2L * blocks + 8);
    }
  }

  /** Reads the block at {@code position} through either read path and checks its bytes. */
  private static void readBlock(CachedFile f, long seed, long position, int block) throws IOException {
    byte[] b = new byte[block];
    if (random().nextBoolean()) {
      f.read(position, b, 0, block);
    } else {
      f.newReader(random().nextBoolean()).readBytes(position, b, 0, block);
    }
    Content.check("block at " + position, seed, position, b, 0, block);
  }

  /**
   * By default a real merge thread of Lucene's {@code ConcurrentMergeScheduler} reads around the
   * cache and other threads insert; with {@code t -> false} every thread inserts.
   */
  public void testByDefaultLuceneMergeThreadsReadAround() throws Exception {
    int block = 4096;
    long seed = random().nextLong();
    Path p = Content.writeSynced(createTempDir(), "f", seed, 8L * block);
    try (BlockCache cache = BlockCache.builder(64L * block).blockSize(block).build(); CachedFile f = cache.open(p, true)) {
      InMergeThread.run(() -> readBlock(f, seed, 2L * block, block));
      BlockCacheStats s = cache.stats();
      assertEquals("the merge thread put nothing into the cache: " + s, 0, s.residentBytes());
      assertTrue("the merge thread read around the cache: " + s, s.readAround() > 0);
      inAroundThread(() -> readBlock(f, seed, 3L * block, block));
      assertEquals("another thread inserts: " + cache.stats(), block, cache.stats().residentBytes());
    }
    try (BlockCache cache = BlockCache.builder(64L * block).blockSize(block).readAroundIn(t -> false).build();
        CachedFile f = cache.open(p, true)) {
      InMergeThread.run(() -> readBlock(f, seed, 2L * block, block));
      assertEquals("with t -> false the merge thread inserts: " + cache.stats(), block, cache.stats().residentBytes());
    }
    expectThrows(NullPointerException.class, () -> BlockCache.builder(64L * block).readAroundIn(null));
  }

  /**
   * {@link BlockCache#openForCaller}: a file a named thread opens that way inserts that thread's
   * misses; opened by another thread, it is as {@code open(path, true)}, and the named thread reads
   * it around the cache.
   */
  public void testFilesANamedThreadOpensForItselfInsert() throws Exception {
    int block = 4096;
    long seed = random().nextLong();
    Path p = Content.writeSynced(createTempDir(), "f", seed, 8L * block);
    try (BlockCache cache =
        BlockCache.builder(64L * block).blockSize(block).readAroundIn(t -> t instanceof AroundThread).build()) {
      AtomicReference<CachedFile> own = new AtomicReference<>();
      try {
        inAroundThread(
            () -> {
              own.set(cache.openForCaller(p));
              readBlock(own.get(), seed, 2L * block, block);
              own.get().prefetch(4L * block, block);
            });
        Content.awaitPrefetches(cache);
        BlockCacheStats s = cache.stats();
        assertEquals("the opener's misses and prefetch were inserted: " + s, 0, s.readAround());
        assertEquals(s.toString(), 2L * block, s.residentBytes());
        try (CachedFile other = random().nextBoolean() ? cache.openForCaller(p) : cache.open(p, true)) {
          inAroundThread(() -> readBlock(other, seed, 6L * block, block));
          inAroundThread(() -> readBlock(other, seed, 2L * block, block));
        }
        BlockCacheStats after = cache.stats();
        assertTrue("opened by another thread, the named thread reads around: " + after, after.readAround() > 0);
        assertEquals("and its cached block is a hit: " + after, s.hits() + 1, after.hits());
        assertEquals(after.toString(), 2L * block, after.residentBytes());
      } finally {
        if (own.get() != null) {
          own.get().close();
        }
      }
    }
  }

  /** The predicate runs only on misses and prefetches: a thread reading cached blocks is never asked about. */
  public void testPredicateIsNotAskedOnHits() throws IOException {
    int block = 4096;
    long seed = random().nextLong();
    Path p = Content.writeSynced(createTempDir(), "f", seed, 4L * block);
    java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
    try (BlockCache cache =
            BlockCache.builder(64L * block)
                .blockSize(block)
                .readAroundIn(
                    t -> {
                      asked.incrementAndGet();
                      return false;
                    })
                .build();
        CachedFile f = cache.open(p, true)) {
      byte[] b = new byte[block];
      f.read(0, b, 0, block);
      int afterMiss = asked.get();
      assertTrue("asked on the miss", afterMiss > 0);
      BlockReader reader = f.newReader(false);
      for (int i = 0; i < 10; i++) {
        reader.readBytes(0, b, 0, block);
        Content.check("hit", seed, 0, b, 0, block);
      }
      assertEquals("not asked on hits", afterMiss, asked.get());
    }
  }
}
