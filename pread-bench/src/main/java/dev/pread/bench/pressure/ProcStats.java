package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's major page faults, bytes read from storage and CPU time in user and in system mode
 * (Linux /proc), each -1 where it cannot be read. The CPU time is every thread's: the queries', the
 * JIT compiler's, the collector's, and the kernel's work done on the process's behalf (page faults,
 * reclaim under a memory limit, copies from the page cache).
 */
public record ProcStats(long majorFaults, long storageReadBytes, long userMillis, long systemMillis) {
  /**
   * Clock ticks a second of /proc/self/stat's times: USER_HZ, which Linux fixes at 100 in its
   * interface to user space on every architecture this project runs on.
   */
  private static final int TICKS_PER_SECOND = 100;

  /** Milliseconds of one clock tick of /proc's process and thread times. */
  static final long MILLIS_PER_TICK = 1000 / TICKS_PER_SECOND;

  /** Indexes in {@link #fieldsAfterName}: majflt, utime and stime (fields 12, 14 and 15 overall). */
  static final int MAJFLT = 9, UTIME = 11, STIME = 12;

  public static ProcStats now() {
    long[] stat = readStat();
    return new ProcStats(stat[0], storageReadBytes("self"), stat[1], stat[2]);
  }

  public ProcStats minus(ProcStats before) {
    return new ProcStats(
        difference(majorFaults, before.majorFaults),
        difference(storageReadBytes, before.storageReadBytes),
        difference(userMillis, before.userMillis),
        difference(systemMillis, before.systemMillis));
  }

  /** {@code now - before}, or -1 if either could not be read. */
  private static long difference(long now, long before) {
    return now < 0 || before < 0 ? -1 : now - before;
  }

  /** Major faults, user and system milliseconds, or -1 each. */
  private static long[] readStat() {
    try {
      String[] f = fieldsAfterName(Files.readString(Path.of("/proc/self/stat")));
      return new long[] {
        Long.parseLong(f[MAJFLT]), Long.parseLong(f[UTIME]) * MILLIS_PER_TICK, Long.parseLong(f[STIME]) * MILLIS_PER_TICK
      };
    } catch (IOException | RuntimeException e) {
      return new long[] {-1, -1, -1};
    }
  }

  /**
   * The fields of a /proc stat line (a process's or a thread's) after its parenthesised name, which
   * may itself hold spaces and parentheses: index 0 is the state (field 3 overall).
   */
  static String[] fieldsAfterName(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0 || close + 2 > stat.length()) {
      throw new IllegalArgumentException("not a /proc stat line: " + stat);
    }
    return stat.substring(close + 2).split(" ");
  }

  /**
   * Bytes a process has had read from storage ({@code read_bytes} of {@code /proc/<pid>/io}: its
   * own threads' and those of the children it has reaped), or -1 if it cannot be read (the process
   * has ended, or another user's).
   *
   * @param pid a process id, or {@code self}
   */
  public static long storageReadBytes(String pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", pid, "io"))) {
        if (line.startsWith("read_bytes:")) {
          return Long.parseLong(line.substring(11).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return -1;
  }
}
