package dev.pread.nativeio;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

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

  /**
   * A thread an operator put in the real-time class keeps it for a read a query waits on (the
   * real-time class is above every best-effort level), and still yields for an idle read. Runs on
   * a thread of its own, so the test thread never leaves its class; skips where the kernel refuses
   * the real-time class (it needs {@code CAP_SYS_NICE}).
   */
  public void testARealTimeThreadIsNotLowered() throws Exception {
    assumeTrue("ioprio_get is not available here", IoPriority.current() >= 0);
    int realtime = (IoPriority.REALTIME_CLASS << 13) | TestUtil.nextInt(random(), 0, 7);
    int[] seen = new int[5];
    AtomicReference<String> skipped = new AtomicReference<>();
    Thread t =
        new Thread(
            () -> {
              if (!NativeIO.ioprioSet(realtime)) {
                skipped.set("the kernel refused the real-time I/O class (it needs CAP_SYS_NICE)");
                return;
              }
              int previous = IoPriority.enterFirst();
              seen[0] = previous;
              seen[1] = IoPriority.current();
              IoPriority.restore(previous);
              seen[2] = IoPriority.current();
              int idle = IoPriority.enterIdle();
              seen[3] = IoPriority.current();
              IoPriority.restore(idle, System.nanoTime());
              seen[4] = IoPriority.current();
            });
    t.start();
    t.join();
    assumeTrue(String.valueOf(skipped.get()), skipped.get() == null);
    assertEquals("nothing to give back", IoPriority.FIRST, seen[0]);
    assertEquals("a query's read keeps the real-time class", realtime, seen[1]);
    assertEquals(realtime, seen[2]);
    if (seen[3] != realtime) { // not backing off after a slow idle read of another test
      assertEquals("an idle read yields", IoPriority.IDLE, seen[3]);
    }
    assertEquals(realtime, seen[4]);
  }

  /**
   * With {@link IoPriority#REALTIME_PROPERTY}, a query's read goes in the real-time class and the
   * thread gets its own priority back after it; where the kernel refuses the class (no {@code
   * CAP_SYS_NICE}), the read goes at best-effort level 0 instead and later reads do not try again.
   * Runs on a thread of its own.
   */
  public void testTheRealTimePropertyPutsAQueryReadInTheRealTimeClass() throws Exception {
    assumeTrue("ioprio_get is not available here", IoPriority.current() >= 0);
    boolean was = IoPriority.realtime;
    int[] seen = new int[6];
    boolean[] refused = new boolean[1];
    IoPriority.realtime = true;
    try {
      Thread t =
          new Thread(
              () -> {
                seen[0] = IoPriority.current();
                int previous = IoPriority.enterFirst();
                seen[1] = IoPriority.current();
                int nested = IoPriority.enterFirst();
                seen[2] = nested;
                seen[3] = IoPriority.current();
                IoPriority.restore(nested);
                seen[4] = IoPriority.current();
                IoPriority.restore(previous);
                seen[5] = IoPriority.current();
                refused[0] = !IoPriority.realtime;
              });
      t.start();
      t.join();
    } finally {
      IoPriority.realtime = was;
    }
    assumeTrue("the thread started at best-effort level 0, which the property leaves alone", seen[0] != IoPriority.FIRST);
    assumeTrue("the thread started in the real-time class", IoPriority.classOf(seen[0]) != IoPriority.REALTIME_CLASS);
    int expected = refused[0] ? IoPriority.FIRST : IoPriority.REALTIME;
    assertEquals(refused[0] ? "refused: best-effort level 0 instead" : "the real-time class", expected, seen[1]);
    assertEquals("a nested read: nothing to give back", IoPriority.FIRST, seen[2]);
    assertEquals(expected, seen[3]);
    assertEquals("the outer read keeps the class", expected, seen[4]);
    assertEquals("the thread's own priority after the read", seen[0], seen[5]);
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
