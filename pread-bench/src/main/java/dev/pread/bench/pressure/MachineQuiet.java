package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Waits until the machine's CPUs are idle (the first line of Linux's /proc/stat), so that cells
 * interleaved across worker JVMs start with no other JVM still compiling: a worker says it is ready
 * when its warm-up queries end, while its JIT compiler threads may still work through their queue,
 * and on two cores they would slow the next worker's first cell.
 */
public final class MachineQuiet {
  private MachineQuiet() {}

  /**
   * Waits until the CPUs were busy for at most {@code maxBusy} of a {@code windowMillis} window, or
   * {@code capMillis} passed, and says which (for the report).
   */
  public static String await(double maxBusy, long windowMillis, long capMillis) throws InterruptedException {
    long start = System.nanoTime();
    long[] before = read();
    if (before == null) {
      return "the machine's CPU use cannot be read (/proc/stat): cells start at once";
    }
    double busy = 1;
    while (true) {
      Thread.sleep(windowMillis);
      long[] now = read();
      if (now == null) {
        return "the machine's CPU use cannot be read (/proc/stat): cells start at once";
      }
      busy = busyShare(before, now);
      double waited = (System.nanoTime() - start) / 1e9;
      if (busy <= maxBusy) {
        return String.format(Locale.ROOT, "cells started once the CPUs were idle (%.0f%% busy over %d ms, after %.1f s)",
            busy * 100, windowMillis, waited);
      }
      if (waited * 1000 >= capMillis) {
        return String.format(Locale.ROOT, "the CPUs were still %.0f%% busy after %.1f s: cells started anyway",
            busy * 100, waited);
      }
      before = now;
    }
  }

  private static long[] read() {
    try {
      return parse(Files.readString(Path.of("/proc/stat")));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The busy and total ticks of /proc/stat's aggregate {@code cpu} line: busy is user, nice, system,
   * irq, softirq and steal (guest time is inside user); total adds idle and iowait.
   */
  static long[] parse(String procStat) {
    String first = procStat.lines().findFirst().orElseThrow(() -> new IllegalArgumentException("empty /proc/stat"));
    String[] f = first.trim().split("\\s+");
    if (!f[0].equals("cpu") || f.length < 9) {
      throw new IllegalArgumentException("not /proc/stat's cpu line: '" + first + "'");
    }
    long user = Long.parseLong(f[1]);
    long nice = Long.parseLong(f[2]);
    long system = Long.parseLong(f[3]);
    long idle = Long.parseLong(f[4]);
    long iowait = Long.parseLong(f[5]);
    long irq = Long.parseLong(f[6]);
    long softirq = Long.parseLong(f[7]);
    long steal = Long.parseLong(f[8]);
    long busy = user + nice + system + irq + softirq + steal;
    return new long[] {busy, busy + idle + iowait};
  }

  /** The share of ticks between two readings that were busy (1 when no tick passed). */
  static double busyShare(long[] before, long[] after) {
    long total = after[1] - before[1];
    return total <= 0 ? 1 : (double) (after[0] - before[0]) / total;
  }
}
