package dev.pread.cache;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.LuceneTestCase.SuppressSysoutChecks;
import org.apache.lucene.tests.util.TestUtil;

/**
 * Many threads on one cache: readers missing the same blocks at once cause one read; and a stress
 * of readers on a cache of one to four blocks, among opens and closes of the files under them,
 * where every byte read is checked (each byte is a function of its file and offset, so a read of a
 * recycled block, a stale table entry or another file's block shows as a wrong byte).
 */
@SuppressSysoutChecks(bugUrl = "prints its figures")
public class TestBlockCacheConcurrency extends LuceneTestCase {

  /**
   * One thread misses a range and is held inside its read (an injected EINTR, which the read
   * retries, calls a listener that waits for the test to let go); other threads then read the same
   * range, find its blocks loading, and must wait for that one load: one read of the blocks, the
   * rest hits. The test lets the loader go only once every other reader is parked waiting.
   */
  public void testConcurrentMissesCauseOneLoad() throws Exception {
    int block = 4096;
    Path dir = createTempDir();
    long seed = random().nextLong();
    int rounds = 30;
    Path p = Content.write(dir, "f", seed, (long) rounds * 4 * block);
    int threads = TestUtil.nextInt(random(), 2, 6);
    AtomicReference<CountDownLatch> entered = new AtomicReference<>();
    AtomicReference<CountDownLatch> release = new AtomicReference<>();
    try (BlockCache cache = BlockCache.builder((long) rounds * 4 * block).blockSize(block).build();
        CachedFile f = cache.open(p);
        FaultInjection faults = FaultInjection.install(dir)) {
      faults.setListener(fault -> {
        if (Thread.currentThread().getName().equals("miss-loader")) {
          entered.get().countDown();
          try {
            release.get().await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      });
      for (int round = 0; round < rounds; round++) {
        int blocks = TestUtil.nextInt(random(), 1, 3);
        long first = (long) round * 4 * block;
        long pos = first + random().nextInt(block);
        int len = (blocks - 1) * block + 1;
        BlockCacheStats before = cache.stats();
        entered.set(new CountDownLatch(1));
        release.set(new CountDownLatch(1));
        faults.failNext(Call.PREAD, Kind.EINTR, 1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        try {
          for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
              try {
                byte[] b = new byte[len];
                f.read(pos, b, 0, len);
                Content.check("concurrent miss", seed, pos, b, 0, len);
              } catch (Throwable e) {
                failure.compareAndSet(null, e);
              }
            }, t == 0 ? "miss-loader" : "miss-" + t);
            th.start();
            started.add(th);
            if (t == 0) {
              entered.get().await(); // the loader holds the range loading
            }
          }
          for (Thread th : started.subList(1, started.size())) {
            Content.awaitParked(th); // waiting on the loading block (or done, if it did not wait)
          }
        } finally {
          release.get().countDown();
        }
        for (Thread th : started) {
          th.join();
        }
        assertNull(failure.get());
        assertEquals(faults.summary(), round + 1, faults.injected(Call.PREAD, Kind.EINTR));
        BlockCacheStats after = cache.stats();
        int touched = (int) ((pos + len - 1) / block - pos / block + 1);
        assertEquals("round " + round + ": " + after, touched, after.misses() - before.misses());
        assertEquals("round " + round + ": " + after, (long) touched * block, after.bytesRead() - before.bytesRead());
        assertEquals("round " + round + ": " + after, (long) (threads - 1) * touched, after.hits() - before.hits());
      }
    }
  }

  private record Handle(CachedFile file, int id) {}

  /** The stress; see the class comment. */
  public void testTinyCacheUnderChurn() throws Exception {
    Random r = new Random(random().nextLong());
    int block = r.nextBoolean() ? 4096 : 8192;
    int cacheBlocks = TestUtil.nextInt(r, 1, 4);
    int files = TestUtil.nextInt(r, 2, 5);
    int readers = 3;
    int readsPerReader = atLeast(3000);
    Path dir = createTempDir();
    long[] seeds = new long[files];
    long[] sizes = new long[files];
    Path[] paths = new Path[files];
    for (int f = 0; f < files; f++) {
      seeds[f] = r.nextLong();
      // The first file is larger than the cache, so that the readers' misses must evict whatever
      // the closer's swaps leave resident; the others may be as small as a block.
      int minBlocks = f == 0 ? cacheBlocks + 2 : 1;
      sizes[f] = (long) block * TestUtil.nextInt(r, minBlocks, Math.max(minBlocks, 12)) + r.nextInt(block);
      paths[f] = Content.write(dir, "f" + f, seeds[f], sizes[f]);
    }
    AtomicLong reads = new AtomicLong(), bytes = new AtomicLong(), wrong = new AtomicLong();
    AtomicLong closedSeen = new AtomicLong(), swaps = new AtomicLong(), privateOpens = new AtomicLong();
    AtomicReference<String> firstWrong = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    BlockCacheStats stats;
    try (BlockCache cache =
        BlockCache.builder((long) cacheBlocks * block)
            .blockSize(block)
            .prefetchThreads(TestUtil.nextInt(r, 1, 2))
            .maxPrefetchBlocks(TestUtil.nextInt(r, 1, 8))
            .build()) {
      AtomicReferenceArray<Handle> shared = new AtomicReferenceArray<>(3);
      for (int s = 0; s < shared.length(); s++) {
        int f = r.nextInt(files);
        shared.set(s, new Handle(cache.open(paths[f], r.nextInt(4) != 0), f));
      }
      AtomicInteger running = new AtomicInteger(readers);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < readers; t++) {
        long ts = r.nextLong();
        threads.add(new Thread(() -> {
          Random tr = new Random(ts);
          byte[] b = new byte[3 * block + 16];
          try {
            for (int i = 0; i < readsPerReader && failure.get() == null; i++) {
              Handle h;
              CachedFile own = null;
              if (tr.nextInt(20) == 0) {
                int f = tr.nextInt(files);
                own = cache.open(paths[f], tr.nextBoolean());
                h = new Handle(own, f);
                privateOpens.incrementAndGet();
              } else {
                h = shared.get(tr.nextInt(shared.length()));
              }
              try {
                long size = sizes[h.id()];
                long pos = tr.nextLong(size);
                int len = (int) Math.min(size - pos, 1 + tr.nextInt(tr.nextBoolean() ? 64 : 3 * block));
                int off = tr.nextInt(16);
                if (tr.nextInt(8) == 0) {
                  h.file().prefetch(pos, len);
                }
                h.file().read(pos, b, off, len);
                reads.incrementAndGet();
                bytes.addAndGet(len);
                int bad = Content.firstMismatch(seeds[h.id()], pos, b, off, len);
                if (bad >= 0 && wrong.incrementAndGet() == 1) {
                  firstWrong.set(String.format(Locale.ROOT, "file %d offset %d (read of %d at %d)", h.id(), pos + bad, len, pos));
                }
              } catch (AlreadyClosedException e) {
                closedSeen.incrementAndGet();
              } finally {
                if (own != null) {
                  own.close();
                }
              }
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          } finally {
            running.decrementAndGet();
          }
        }, "stress-reader-" + t));
      }
      long cs = r.nextLong();
      threads.add(new Thread(() -> {
        Random cr = new Random(cs);
        try {
          while (running.get() > 0 && failure.get() == null) {
            long until = reads.get() + 20 + cr.nextInt(200);
            while (reads.get() < until && running.get() > 0 && failure.get() == null) {
              Thread.yield();
            }
            int s = cr.nextInt(shared.length());
            int f = cr.nextInt(files);
            Handle old = shared.getAndSet(s, new Handle(cache.open(paths[f], cr.nextInt(4) != 0), f));
            old.file().close();
            swaps.incrementAndGet();
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
      }, "stress-closer"));
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      for (int s = 0; s < shared.length(); s++) {
        shared.get(s).file().close();
      }
      if (failure.get() != null) {
        throw new AssertionError("stress failed", failure.get());
      }
      Content.awaitPrefetches(cache);
      stats = cache.stats();
      assertEquals(0, cache.openFiles());
      assertTrue(stats.toString(), stats.allocatedBytes() <= (long) cacheBlocks * block);
      assertTrue(stats.toString(), stats.residentBytes() <= (long) cacheBlocks * block);
      // Whatever the churn left behind, every file still reads right through the cache.
      for (int f = 0; f < files; f++) {
        try (CachedFile c = cache.open(paths[f])) {
          byte[] all = new byte[(int) sizes[f]];
          c.read(0, all, 0, all.length);
          Content.check("after the stress", seeds[f], 0, all, 0, all.length);
        }
      }
    }
    System.out.printf(Locale.ROOT,
        "tiny cache stress: %d blocks of %d, %d files: %,d reads (%,d bytes), %d wrong, %,d AlreadyClosed, %,d swaps,"
            + " %,d private opens; %s%n",
        cacheBlocks, block, files, reads.get(), bytes.get(), wrong.get(), closedSeen.get(), swaps.get(),
        privateOpens.get(), stats);
    assertEquals("wrong bytes; first: " + firstWrong.get(), 0, wrong.get());
    // Loads fail here only when a close races them (ClosedFileException, which readers get as the
    // AlreadyClosedException counted above; any other exception fails a reader): not checked.
    assertTrue(stats.toString(), stats.evictions() > 0);
    assertTrue(reads.get() > 0);
  }

  /**
   * A file's last handle is closed while a read into the cache's memory is in flight (the close
   * waits for it), and meanwhile the cache is closed. The cache must not free its memory before the
   * read has returned: the kernel would write into freed memory.
   */
  public void testCacheCloseWaitsForReadsOfClosingFiles() throws Exception {
    int block = 4096;
    Path dir = createTempDir();
    Path p = Content.write(dir, "f", 9, 8L * block);
    BlockCache cache = BlockCache.builder(8L * block).blockSize(block).build();
    CachedFile f = cache.open(p);
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Throwable> readFailure = new AtomicReference<>();
    AtomicReference<Throwable> closeFailure = new AtomicReference<>();
    try (FaultInjection faults = FaultInjection.install(dir)) {
      faults.setListener(fault -> {
        if (Thread.currentThread().getName().equals("reader")) {
          entered.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      });
      // An EINTR (retried) holds the reader inside its read, its iovec already pointing into the cache.
      faults.failNext(Call.PREAD, Kind.EINTR, 1);
      Thread reader = new Thread(() -> {
        try {
          f.read(0, new byte[block], 0, block);
        } catch (Throwable t) {
          readFailure.set(t);
        }
      }, "reader");
      reader.start();
      entered.await();
      Thread fileCloser = new Thread(() -> {
        try {
          f.close();
        } catch (Throwable t) {
          closeFailure.set(t);
        }
      }, "file-closer");
      fileCloser.start();
      while (cache.openFiles() != 0) {
        Thread.onSpinWait(); // the file is out of the cache's registry; its close waits for the reader
      }
      Thread cacheCloser = new Thread(() -> {
        try {
          cache.close();
        } catch (Throwable t) {
          closeFailure.set(t);
        }
      }, "cache-closer");
      cacheCloser.start();
      Content.awaitParked(cacheCloser);
      boolean closedUnderTheRead = !cacheCloser.isAlive();
      // Let the reader go; make its read fail rather than write into memory that may be freed.
      faults.failNext(Call.PREAD, Kind.EIO, 1);
      release.countDown();
      reader.join();
      fileCloser.join();
      cacheCloser.join();
      assertFalse("cache.close() returned, freeing the cache's memory, while a read into it was in flight", closedUnderTheRead);
      assertNull(closeFailure.get());
      assertNotNull("the read was made to fail", readFailure.get());
      assertTrue(cache.isClosed());
    } finally {
      release.countDown();
      cache.close();
    }
  }
}
