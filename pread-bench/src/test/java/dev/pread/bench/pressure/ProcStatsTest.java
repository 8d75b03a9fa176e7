package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Assume;
import org.junit.Test;

/** The process's own counters, read from /proc on this machine. */
public class ProcStatsTest {
  @Test
  public void cpuTimeFollowsTheWorkDone() {
    Assume.assumeTrue("no /proc/self/stat: not Linux", Files.isReadable(Path.of("/proc/self/stat")));
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Assume.assumeTrue("this JVM does not measure thread CPU time", threads.isCurrentThreadCpuTimeSupported());
    ProcStats before = ProcStats.now();
    assertTrue(before.toString(), before.userMillis() >= 0 && before.systemMillis() >= 0);
    // Work until this thread alone has used 300 ms of CPU, as the kernel counts it.
    long start = threads.getCurrentThreadCpuTime();
    long sink = 0;
    while (threads.getCurrentThreadCpuTime() - start < 300_000_000L) {
      for (int i = 0; i < 100_000; i++) {
        sink = sink * 31 + i;
      }
    }
    ProcStats d = ProcStats.now().minus(before);
    // The process counts at least this thread's time (its user and system time both; reading the
    // thread's CPU clock is a system call), in ticks of 10 ms.
    long total = d.userMillis() + d.systemMillis();
    assertTrue(d + " (sink " + sink + ")", total >= 280);
    assertEquals(d.toString(), true, d.userMillis() >= 0 && d.systemMillis() >= 0);
  }

  @Test
  public void aCounterThatCannotBeReadStaysUnknownInADifference() {
    ProcStats known = new ProcStats(1, 2, 30, 40);
    ProcStats unknown = new ProcStats(-1, -1, -1, -1);
    ProcStats d = unknown.minus(known);
    assertEquals(new ProcStats(-1, -1, -1, -1), d);
    assertEquals(new ProcStats(-1, -1, -1, -1), known.minus(unknown));
    assertEquals(new ProcStats(0, 0, 0, 0), known.minus(known));
  }
}
