package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The query threads' time on a core and waiting for one, from a made-up /proc task folder and from this JVM's own. */
public class QueryThreadTimesTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private static void task(Path dir, int tid, String name, long run, long wait) throws Exception {
    Path t = Files.createDirectories(dir.resolve(Integer.toString(tid)));
    Files.writeString(t.resolve("comm"), name + "\n");
    Files.writeString(t.resolve("schedstat"), run + " " + wait + " 17\n");
  }

  @Test
  public void sumsTheQueryThreadsOnly() throws Exception {
    Path dir = tmp.newFolder("task").toPath();
    task(dir, 100, "java", 5_000, 700);
    task(dir, 101, "query-0", 1_000, 100);
    task(dir, 102, "query-1", 2_000, 200);
    task(dir, 103, "C2 CompilerThre", 9_000, 900);
    QueryThreadTimes before = QueryThreadTimes.read(dir);
    assertEquals(2, before.threads());
    task(dir, 100, "java", 9_000, 900);
    task(dir, 101, "query-0", 1_500, 130); // +500, +30
    task(dir, 102, "query-1", 2_400, 260); // +400, +60
    task(dir, 103, "C2 CompilerThre", 19_000, 1_900);
    task(dir, 104, "query-2", 70, 7); // started since: counted in full
    QueryThreadTimes after = QueryThreadTimes.read(dir);
    assertEquals(500 + 400 + 70, after.runNanosSince(before));
    assertEquals(30 + 60 + 7, after.waitNanosSince(before));
    assertEquals(0, before.runNanosSince(before));
    // A thread that ended since takes its time with it.
    Files.delete(dir.resolve("101").resolve("comm"));
    Files.delete(dir.resolve("101").resolve("schedstat"));
    Files.delete(dir.resolve("101"));
    assertEquals(400 + 70, QueryThreadTimes.read(dir).runNanosSince(before));
  }

  @Test
  public void unreadableCountersAreUnknown() throws Exception {
    QueryThreadTimes missing = QueryThreadTimes.read(tmp.getRoot().toPath().resolve("missing"));
    Path dir = tmp.newFolder("task").toPath();
    task(dir, 101, "query-0", 12, 3);
    QueryThreadTimes known = QueryThreadTimes.read(dir);
    assertEquals(-1, missing.runNanosSince(known));
    assertEquals(-1, known.waitNanosSince(missing));
    assertEquals(-1, missing.threads());
    Path bad = tmp.newFolder("bad").toPath();
    Path t = Files.createDirectories(bad.resolve("7"));
    Files.writeString(t.resolve("comm"), "query-0\n");
    Files.writeString(t.resolve("schedstat"), "not numbers\n");
    assertEquals(-1, QueryThreadTimes.read(bad).runNanosSince(known));
  }

  @Test
  public void aBusyQueryThreadOfThisJvmIsOnACore() throws Exception {
    Path self = Path.of("/proc/self/task");
    Assume.assumeTrue("no /proc/self/task: not Linux", Files.isDirectory(self));
    Path probe = self.resolve(Long.toString(ProcessHandle.current().pid())).resolve("schedstat");
    Assume.assumeTrue("no schedstat in /proc (a kernel without CONFIG_SCHED_INFO)", Files.isReadable(probe));
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    Assume.assumeTrue("no thread CPU time in this JVM", mx.isCurrentThreadCpuTimeSupported());
    CountDownLatch sampled = new CountDownLatch(1);
    long[] used = new long[1];
    Thread q = new Thread(() -> {
      long start = mx.getCurrentThreadCpuTime();
      while (mx.getCurrentThreadCpuTime() - start < 100_000_000L) {
        Thread.onSpinWait(); // 0.1 s of this thread's own CPU time, however long the machine makes it wait
      }
      used[0] = mx.getCurrentThreadCpuTime();
      try {
        sampled.await(); // alive until the reading below, which must still see it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "query-7");
    QueryThreadTimes before = QueryThreadTimes.now();
    q.start();
    while (q.getState() != Thread.State.WAITING) {
      Thread.sleep(5); // until it waits in await(), its work done
    }
    QueryThreadTimes after = QueryThreadTimes.now();
    sampled.countDown();
    q.join();
    // The scheduler's count of its time on a core covers the CPU time it measured itself (the same
    // clock), besides any other query-N thread of this JVM.
    assertTrue("on a core " + after.runNanosSince(before) + " ns, used " + used[0],
        after.runNanosSince(before) >= used[0]);
    assertTrue(after.waitNanosSince(before) >= 0);
  }
}
