package dev.pread.cache;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link HitBuffer}: one thread's records come out of a drain in order and none is lost below the
 * capacity; a full stripe drops what comes after; and with many threads offering at once, a drain
 * hands out only records that were offered, never a stale or empty one.
 */
public class TestHitBuffer extends LuceneTestCase {

  public void testOneThreadInOrderThenFull() {
    HitBuffer buffer = new HitBuffer();
    for (int round = 0; round < 5; round++) {
      int n = TestUtil.nextInt(random(), 0, HitBuffer.CAPACITY - 1);
      List<Long> offered = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        long record = 1 + random().nextInt(1000);
        offered.add(record);
        buffer.offer(record);
      }
      List<Long> drained = new ArrayList<>();
      buffer.drain(drained::add);
      assertEquals(offered, drained);
      buffer.drain(r -> fail("drained twice: " + r));
    }
    for (int i = 0; i < HitBuffer.CAPACITY + 50; i++) {
      buffer.offer(i + 1);
    }
    List<Long> drained = new ArrayList<>();
    buffer.drain(drained::add);
    assertEquals("a full stripe drops what comes after", HitBuffer.CAPACITY, drained.size());
    for (int i = 0; i < drained.size(); i++) {
      assertEquals(i + 1L, (long) drained.get(i));
    }
  }

  public void testConcurrentOffersAndDrains() throws Exception {
    HitBuffer buffer = new HitBuffer();
    int threads = TestUtil.nextInt(random(), 2, 6);
    int offers = atLeast(20_000);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long base = (long) (t + 1) << 32;
      Thread th = new Thread(() -> {
        for (int i = 0; i < offers; i++) {
          buffer.offer(base | (i & 0xFFFF) | 1);
        }
      }, "offer-" + t);
      started.add(th);
      th.start();
    }
    Set<Long> seenThreads = new HashSet<>();
    Object lock = new Object();
    boolean running = true;
    while (running) {
      running = started.stream().anyMatch(Thread::isAlive);
      synchronized (lock) {
        buffer.drain(r -> {
          long owner = r >>> 32;
          if (r == 0 || owner < 1 || owner > threads || (r & 1) == 0) {
            failure.compareAndSet(null, new AssertionError("a record nobody offered: " + Long.toHexString(r)));
          }
          seenThreads.add(owner);
        });
      }
    }
    for (Thread th : started) {
      th.join();
    }
    assertNull(failure.get());
    assertFalse("no record drained", seenThreads.isEmpty());
  }
}
