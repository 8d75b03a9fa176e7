package dev.pread.nativeio;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link CpuPriority}: a thread lowers its own priority and no other thread's. Each case runs in a
 * thread of its own, which ends with it, since a nice value cannot be raised back without
 * privilege. Skips, saying why, where the kernel or the platform gives no nice value.
 */
public class TestCpuPriority extends LuceneTestCase {

  public void testYieldLowersOnlyTheCallingThread() throws Exception {
    int before = CpuPriority.current();
    assumeTrue("getpriority is not available here", before != Integer.MIN_VALUE);
    assumeTrue("this thread runs at nice " + before + " already", before < CpuPriority.MAX_NICE);
    int nice = before + 1 + random().nextInt(CpuPriority.MAX_NICE - before);
    AtomicInteger inThread = new AtomicInteger(Integer.MIN_VALUE);
    AtomicInteger again = new AtomicInteger(Integer.MIN_VALUE);
    AtomicInteger yielded = new AtomicInteger(-1);
    Thread t =
        new Thread(
            () -> {
              yielded.set(CpuPriority.yieldTo(nice) ? 1 : 0);
              inThread.set(CpuPriority.current());
              // a higher priority than the thread has is not taken: it keeps the lower one
              CpuPriority.yieldTo(Math.max(1, nice - 1));
              again.set(CpuPriority.current());
            });
    t.start();
    t.join();
    assumeTrue("the kernel refused setpriority", yielded.get() == 1);
    assertEquals(nice, inThread.get());
    assertEquals("never raised back", nice, again.get());
    assertEquals("the calling thread only", before, CpuPriority.current());
  }

  public void testOutOfRange() {
    int bad = random().nextBoolean() ? -random().nextInt(21) : CpuPriority.MAX_NICE + 1 + random().nextInt(100);
    IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> CpuPriority.yieldTo(bad));
    assertTrue(e.getMessage(), e.getMessage().contains(Integer.toString(bad)));
  }
}
