package dev.pread.nativeio;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link IoPriority}: the idle class is entered and left on the calling thread only. Skips, saying
 * why, where the kernel or the platform gives no I/O priority.
 */
public class TestIoPriority extends LuceneTestCase {

  public void testEnterIdleAndRestore() {
    int before = IoPriority.current();
    assumeTrue("ioprio_get is not available here", before >= 0);
    int previous = IoPriority.enterIdle();
    assumeTrue("the kernel refused the idle I/O class", previous != IoPriority.UNCHANGED);
    try {
      assertEquals(before, previous);
      assertEquals(IoPriority.IDLE, IoPriority.current());
    } finally {
      IoPriority.restore(previous, System.nanoTime());
    }
    assertEquals(before, IoPriority.current());
    IoPriority.restore(IoPriority.UNCHANGED, System.nanoTime()); // nothing to give back
    assertEquals(before, IoPriority.current());
  }

  public void testEnterFirstAndRestore() {
    int before = IoPriority.current();
    assumeTrue("ioprio_get is not available here", before >= 0);
    int previous = IoPriority.enterFirst();
    assumeTrue("the kernel refused the best-effort class", previous != IoPriority.UNCHANGED);
    try {
      assertEquals(before, previous);
      assertEquals(IoPriority.FIRST, IoPriority.current());
      // a nested read at the same level: nothing to change, nothing to give back
      int nested = IoPriority.enterFirst();
      assertEquals(IoPriority.FIRST, nested);
      IoPriority.restore(nested);
      assertEquals("the outer read keeps its level", IoPriority.FIRST, IoPriority.current());
      // an idle read inside: back to the first level after it
      int idle = IoPriority.enterIdle();
      if (idle != IoPriority.UNCHANGED) {
        assertEquals(IoPriority.IDLE, IoPriority.current());
        IoPriority.restore(idle, System.nanoTime());
        assertEquals(IoPriority.FIRST, IoPriority.current());
      }
    } finally {
      IoPriority.restore(previous);
    }
    assertEquals(before, IoPriority.current());
    IoPriority.restore(IoPriority.UNCHANGED); // nothing to give back
    assertEquals(before, IoPriority.current());
  }

  public void testOnlyTheCallingThread() throws Exception {
    int before = IoPriority.current();
    assumeTrue("ioprio_get is not available here", before >= 0);
    AtomicInteger inThread = new AtomicInteger(-2);
    CountDownLatch idle = new CountDownLatch(1);
    CountDownLatch checked = new CountDownLatch(1);
    Thread t =
        new Thread(
            () -> {
              int previous = IoPriority.enterIdle();
              try {
                inThread.set(IoPriority.current());
                idle.countDown();
                checked.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                IoPriority.restore(previous, System.nanoTime());
              }
            });
    t.start();
    idle.await();
    int here = IoPriority.current();
    checked.countDown();
    t.join();
    assumeTrue("the kernel refused the idle I/O class", inThread.get() == IoPriority.IDLE);
    assertEquals("the test thread kept its priority while the other was idle", before, here);
  }

  public void testASlowIdleReadHoldsOffIdleReadsForAWhile() {
    int before = IoPriority.current();
    assumeTrue("ioprio_get is not available here", before >= 0);
    IoPriority.endBackoff();
    try {
      int previous = IoPriority.enterIdle();
      assumeTrue("the kernel refused the idle I/O class", previous != IoPriority.UNCHANGED);
      IoPriority.restore(previous, System.nanoTime()); // a fast read
      assertFalse(IoPriority.backingOff());
      previous = IoPriority.enterIdle();
      assertNotEquals(IoPriority.UNCHANGED, previous);
      // a read that waited longer than the bound in the idle class
      IoPriority.restore(previous, System.nanoTime() - (IoPriority.MAX_IDLE_MILLIS + 50) * 1_000_000L);
      assertEquals(before, IoPriority.current());
      assertTrue(IoPriority.backingOff());
      assertEquals("no idle class while backing off", IoPriority.UNCHANGED, IoPriority.enterIdle());
      assertEquals(before, IoPriority.current());
      // a slow read at the thread's own class (not idle) starts no backoff
      IoPriority.endBackoff();
      IoPriority.restore(IoPriority.UNCHANGED, System.nanoTime() - 10_000_000_000L);
      assertFalse(IoPriority.backingOff());
    } finally {
      IoPriority.endBackoff();
    }
  }
}
