package dev.pread.cache;

import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeIOException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link CachedFile#prefetch}: loads on the pool so that later reads hit, asks once for a block
 * cached or loading, never holds more than its cap in flight and drops the rest without blocking,
 * stops its threads on close, and a reader waiting for a prefetch that fails gets the bytes (or
 * the error) itself.
 *
 * <p>Tests that need a prefetch to stay in flight hold the prefetch thread inside its read: an
 * injected EINTR (which the read retries) calls a listener that waits for the test to let go.
 */
public class TestPrefetch extends LuceneTestCase {
  private static final int BLOCK = 4096;

  /** Holds prefetch threads in their next read until {@link #release()}. */
  private static final class Gate implements AutoCloseable {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final FaultInjection faults;

    Gate(Path dir, Kind kind, int times) {
      faults = FaultInjection.install(dir);
      faults.setListener(
          f -> {
            if (Thread.currentThread().getName().startsWith("pread-cache-prefetch-")) {
              entered.countDown();
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          });
      faults.failNext(Call.PREAD, kind, times);
    }

    void awaitEntered() throws InterruptedException {
      entered.await();
    }

    void release() {
      release.countDown();
    }

    @Override
    public void close() {
      release.countDown();
      faults.close();
    }
  }

  public void testPrefetchedBlocksAreHits() throws IOException {
    Path dir = createTempDir();
    long seed = random().nextLong();
    int blocks = TestUtil.nextInt(random(), 1, 60);
    long size = (long) blocks * BLOCK - random().nextInt(BLOCK);
    Path p = Content.write(dir, "f", seed, size);
    try (BlockCache cache =
            BlockCache.builder(64L * BLOCK).blockSize(BLOCK).prefetchThreads(TestUtil.nextInt(random(), 1, 4)).build();
        CachedFile f = cache.open(p)) {
      f.prefetch(0, size);
      Content.awaitPrefetches(cache);
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), blocks, s.prefetchSubmitted());
      assertEquals(s.toString(), 0, s.prefetchDropped());
      assertEquals(s.toString(), 0, s.misses());
      assertEquals(s.toString(), size, s.bytesRead());
      byte[] all = new byte[(int) size];
      f.read(0, all, 0, all.length);
      Content.check("prefetched", seed, 0, all, 0, all.length);
      s = cache.stats();
      assertEquals(s.toString(), 0, s.misses());
      assertEquals(s.toString(), blocks, s.hits());
      assertEquals(s.toString(), size, s.bytesRead());
    }
  }

  public void testRepeatedPrefetchAsksOnce() throws Exception {
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 20L * BLOCK);
    try (BlockCache cache = BlockCache.builder(64L * BLOCK).blockSize(BLOCK).prefetchThreads(1).build();
        CachedFile f = cache.open(p);
        Gate gate = new Gate(dir, Kind.EINTR, 1)) {
      f.prefetch(0, 8L * BLOCK);
      gate.awaitEntered(); // the load is in flight, held
      assertEquals(8, cache.stats().prefetchSubmitted());
      assertEquals(8, cache.stats().prefetchInFlight());
      f.prefetch(0, 8L * BLOCK); // all loading: asked once
      f.prefetch(4L * BLOCK, 8L * BLOCK); // 4 loading, 4 new
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 12, s.prefetchSubmitted());
      assertEquals(s.toString(), 12, s.prefetchDeduplicated());
      gate.release();
      Content.awaitPrefetches(cache);
      f.prefetch(0, 12L * BLOCK); // all cached now
      s = cache.stats();
      assertEquals(s.toString(), 12, s.prefetchSubmitted());
      assertEquals(s.toString(), 24, s.prefetchDeduplicated());
      assertEquals(s.toString(), 0, s.misses());
      byte[] b = new byte[12 * BLOCK];
      f.read(0, b, 0, b.length);
      Content.check("prefetched", seed, 0, b, 0, b.length);
      assertEquals(0, cache.stats().misses());
    }
  }

  /** Starts a thread that reads {@code b.length} bytes of {@code f} from 0, keeping what it throws. */
  private static Thread startReader(CachedFile f, byte[] b, AtomicReference<Throwable> failure) {
    Thread reader = new Thread(() -> {
      try {
        f.read(0, b, 0, b.length);
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "reader");
    reader.start();
    return reader;
  }

  /** A reader that needs a block being prefetched waits for that load instead of reading again. */
  public void testReaderWaitsForThePrefetch() throws Exception {
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 4L * BLOCK);
    try (BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).prefetchThreads(1).build();
        CachedFile f = cache.open(p);
        Gate gate = new Gate(dir, Kind.EINTR, 1)) {
      f.prefetch(0, 4L * BLOCK);
      gate.awaitEntered();
      byte[] b = new byte[4 * BLOCK];
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread reader = startReader(f, b, failure);
      Content.awaitParked(reader);
      gate.release();
      reader.join();
      assertNull(failure.get());
      Content.check("after waiting", seed, 0, b, 0, b.length);
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 0, s.misses());
      assertEquals(s.toString(), 4, s.hits());
      assertEquals(s.toString(), 4L * BLOCK, s.bytesRead());
    }
  }

  /**
   * With the pool held inside one load, prefetches of other blocks fill the cap and the rest are
   * dropped: in flight never above the cap, and prefetch never waits for the pool.
   */
  public void testInFlightCap() throws Exception {
    Path dir = createTempDir();
    long seed = random().nextLong();
    int cap = TestUtil.nextInt(random(), 1, 8);
    Path p = Content.write(dir, "f", seed, 200L * BLOCK);
    try (BlockCache cache =
            BlockCache.builder(256L * BLOCK).blockSize(BLOCK).prefetchThreads(1).maxPrefetchBlocks(cap).build();
        CachedFile f = cache.open(p);
        Gate gate = new Gate(dir, Kind.EINTR, 1)) {
      f.prefetch(0, BLOCK);
      gate.awaitEntered();
      long asked = 1;
      for (int i = 0; i < 100; i++) {
        int first = 1 + random().nextInt(190);
        int n = 1 + random().nextInt(8);
        f.prefetch((long) first * BLOCK, (long) n * BLOCK);
        asked += n;
        BlockCacheStats s = cache.stats();
        assertTrue(s + " cap " + cap, s.prefetchInFlight() <= cap);
        assertTrue(s + " cap " + cap, s.prefetchSubmitted() <= cap);
      }
      BlockCacheStats s = cache.stats();
      assertTrue(s.toString(), s.prefetchDropped() > 0);
      assertEquals(s.toString(), asked, s.prefetchSubmitted() + s.prefetchDeduplicated() + s.prefetchDropped());
      gate.release();
      Content.awaitPrefetches(cache);
      s = cache.stats();
      assertEquals(s.toString(), 0, s.loadFailures());
      assertEquals(s.toString(), s.prefetchSubmitted() * BLOCK, s.bytesRead());
      // Dropped blocks are simply not cached: every byte still reads right.
      byte[] all = new byte[200 * BLOCK];
      f.read(0, all, 0, all.length);
      Content.check("after the cap", seed, 0, all, 0, all.length);
      s = cache.stats();
      assertEquals(s.toString(), 200, s.misses() + s.prefetchSubmitted());
    }
  }

  /** Closing the cache with prefetches queued behind a held one: close waits, threads end, nothing hangs. */
  public void testCloseStopsThePool() throws Exception {
    Path dir = createTempDir();
    Path p = Content.write(dir, "f", 5, 100L * BLOCK);
    assertEquals("prefetch threads of earlier caches must be gone", List.of(), Content.prefetchThreads());
    BlockCache cache = BlockCache.builder(128L * BLOCK).blockSize(BLOCK).prefetchThreads(1).maxPrefetchBlocks(100).build();
    try (Gate gate = new Gate(dir, Kind.EINTR, 1)) {
      CachedFile f = cache.open(p);
      f.prefetch(0, BLOCK);
      gate.awaitEntered();
      for (int i = 1; i < 100; i++) {
        f.prefetch((long) i * BLOCK, BLOCK); // one task each, queued behind the held one
      }
      assertEquals(100, cache.stats().prefetchSubmitted());
      assertFalse(Content.prefetchThreads().isEmpty());
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread closer = new Thread(() -> {
        try {
          cache.close();
        } catch (Throwable t) {
          failure.set(t);
        }
      }, "closer");
      closer.start();
      while (!cache.isClosed()) {
        Thread.onSpinWait();
      }
      gate.release();
      closer.join();
      assertNull(failure.get());
      assertEquals("prefetch threads alive after close", List.of(), Content.prefetchThreads());
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 0, s.prefetchInFlight());
      assertEquals("the loads queued behind the held one never ran: " + s, 99, s.prefetchDropped());
      assertEquals(s.toString(), BLOCK, s.bytesRead());
      assertTrue(f.isClosed());
    } finally {
      cache.close();
    }
  }

  /** A cache whose pool never started closes at once; prefetch after close is refused. */
  public void testCloseWithoutPrefetch() throws IOException {
    Path p = Content.write(createTempDir(), "f", 5, 10L * BLOCK);
    BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).build();
    CachedFile f = cache.open(p);
    cache.close();
    expectThrows(org.apache.lucene.store.AlreadyClosedException.class, () -> f.prefetch(0, BLOCK));
    assertEquals(0, cache.stats().prefetchSubmitted());
  }

  /**
   * A reader waits on a block a prefetch is loading, and the prefetch fails: the reader reads the
   * block itself and gets the right bytes, or, if its own read fails too, the error.
   */
  public void testReaderWaitingOnAFailedPrefetch() throws Exception {
    for (int failures : new int[] {1, 2}) {
      Path dir = createTempDir();
      long seed = random().nextLong();
      Path p = Content.write(dir, "f", seed, 8L * BLOCK);
      try (BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).prefetchThreads(1).build();
          CachedFile f = cache.open(p);
          Gate gate = new Gate(dir, Kind.EIO, failures)) {
        f.prefetch(2L * BLOCK, 3L * BLOCK);
        gate.awaitEntered();
        byte[] b = new byte[BLOCK];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
          try {
            f.read(3L * BLOCK + 5, b, 0, 100);
          } catch (Throwable t) {
            failure.set(t);
          }
        }, "reader");
        reader.start();
        Content.awaitParked(reader);
        gate.release();
        reader.join();
        // The reader can return (with the bytes, or the error) before the prefetch thread has
        // counted its blocks out: nothing may stay in flight once it has.
        Content.awaitPrefetches(cache);
        BlockCacheStats s = cache.stats();
        if (failures == 1) {
          assertNull(failure.get());
          Content.check("after the prefetch failed", seed, 3L * BLOCK + 5, b, 0, 100);
          assertEquals(s.toString(), 1, s.loadFailures());
          assertEquals(s.toString(), 1, s.misses());
        } else {
          Throwable t = failure.get();
          assertTrue(String.valueOf(t), t instanceof NativeIOException);
          assertTrue(t.getMessage(), t.getMessage().contains(p.toString()) && t.getMessage().contains("EIO"));
          assertEquals(s.toString(), 2, s.loadFailures());
        }
        // Nothing is left loading: the whole file reads.
        byte[] all = new byte[8 * BLOCK];
        f.read(0, all, 0, all.length);
        Content.check("whole file", seed, 0, all, 0, all.length);
      }
    }
  }

  /**
   * The pool cannot start a thread ({@code OutOfMemoryError: unable to create native thread}, as
   * under a container's pids limit): the prefetch is dropped and counted, not thrown to the caller,
   * and gives back its slots and its room under the cap, so a reader of those blocks loads them
   * itself instead of waiting for a load nobody makes. Once threads can start again, prefetch works.
   */
  public void testPrefetchWhoseThreadCannotStart() throws Exception {
    Path dir = createTempDir();
    long seed = random().nextLong();
    Path p = Content.write(dir, "f", seed, 16L * BLOCK);
    AtomicInteger asked = new AtomicInteger();
    ThreadFactory failing = task -> {
      if (asked.getAndIncrement() == 0) {
        throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process limits reached");
      }
      return new Thread(task);
    };
    try (BlockCache cache =
            BlockCache.builder(32L * BLOCK).blockSize(BLOCK).prefetchThreads(1).prefetchThreadFactory(failing).build();
        CachedFile f = cache.open(p)) {
      cache.prefetcher.startRetryNanos = TimeUnit.HOURS.toNanos(1); // no retry until the test says
      f.prefetch(0, 8L * BLOCK);
      BlockCacheStats s = cache.stats();
      assertEquals("the pool asked for a thread, which was refused", 1, asked.get());
      assertEquals(s.toString(), 8, s.prefetchDropped());
      assertEquals(s.toString(), 0, s.prefetchSubmitted());
      assertEquals(s.toString(), 0, s.prefetchInFlight());
      assertEquals(s.toString(), 0, cache.prefetcher.inFlight());

      byte[] b = new byte[8 * BLOCK];
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread reader = startReader(f, b, failure);
      reader.join(Content.BOUND_NANOS / 1_000_000);
      assertFalse("the reader waits for a prefetch that never started", reader.isAlive());
      assertNull(failure.get());
      Content.check("after the dropped prefetch", seed, 0, b, 0, b.length);
      s = cache.stats();
      assertEquals(s.toString(), 8, s.misses());

      // Right after a failed start, prefetches are dropped without asking for a thread again.
      f.prefetch(8L * BLOCK, 2L * BLOCK);
      assertEquals("no second try while the start is blocked", 1, asked.get());
      assertEquals(cache.stats().toString(), 10, cache.stats().prefetchDropped());
      assertEquals(0, cache.prefetcher.inFlight());

      // Threads start again once the block ends: a later prefetch loads its blocks and the reads hit.
      cache.prefetcher.startBlockedUntil = System.nanoTime();
      f.prefetch(8L * BLOCK, 8L * BLOCK);
      Content.awaitPrefetches(cache);
      s = cache.stats();
      assertEquals(s.toString(), 8, s.prefetchSubmitted());
      assertEquals(s.toString(), 0, cache.prefetcher.inFlight());
      f.read(8L * BLOCK, b, 0, b.length);
      Content.check("prefetched", seed, 8L * BLOCK, b, 0, b.length);
      s = cache.stats();
      assertEquals(s.toString(), 8, s.misses());
      assertEquals(s.toString(), 8, s.hits());
    }
  }

  /** Prefetch of a file that does not insert does nothing. */
  public void testNonInsertingFileDoesNotPrefetch() throws IOException {
    Path p = Content.write(createTempDir(), "f", 5, 10L * BLOCK);
    try (BlockCache cache = BlockCache.builder(16L * BLOCK).blockSize(BLOCK).build();
        CachedFile f = cache.open(p, false)) {
      f.prefetch(0, 10L * BLOCK);
      BlockCacheStats s = cache.stats();
      assertEquals(s.toString(), 0, s.prefetchSubmitted() + s.prefetchDeduplicated() + s.prefetchDropped());
      assertEquals(List.of(), Content.prefetchThreads());
    }
  }
}
