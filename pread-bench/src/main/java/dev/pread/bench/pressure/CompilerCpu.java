package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time of this JVM's JIT compiler threads (HotSpot's {@code C1 CompilerThread} and {@code C2
 * CompilerThread}), from Linux's per-thread counters under /proc/self/task. On a machine with few
 * cores the compiler competes with the query threads for them: a cell whose compiler threads were
 * busy measured the JIT as much as the read path, whichever Directory it ran.
 *
 * <p>A reading keeps each compiler thread's time by thread, so that a difference of two readings
 * counts a thread that started between them in full and one that ended between them (HotSpot starts
 * and stops compiler threads with the length of its compile queue) as far as the first reading:
 * its last ticks are lost with it, and the difference never goes below zero.
 */
public final class CompilerCpu {
  /** Ticks of user and system time by compiler thread id; null where /proc could not be read. */
  private final Map<String, Long> ticks;

  private CompilerCpu(Map<String, Long> ticks) {
    this.ticks = ticks;
  }

  /** This JVM's compiler threads' times now. */
  public static CompilerCpu now() {
    return read(Path.of("/proc/self/task"));
  }

  /**
   * The compiler threads' times among the tasks of {@code taskDir} (a /proc/PID/task folder); a
   * task that ends while it is read is left out, a folder that cannot be listed gives a reading
   * whose differences are unknown.
   */
  static CompilerCpu read(Path taskDir) {
    Map<String, Long> ticks = new HashMap<>();
    try (Stream<Path> tasks = Files.list(taskDir)) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        long t = compilerTicks(task.resolve("stat"));
        if (t >= 0) {
          ticks.put(task.getFileName().toString(), t);
        }
      }
    } catch (IOException | RuntimeException e) {
      return new CompilerCpu(null);
    }
    return new CompilerCpu(ticks);
  }

  /**
   * User and system milliseconds the compiler threads used since {@code before}, or -1 if either
   * reading is unknown.
   */
  public long millisSince(CompilerCpu before) {
    if (ticks == null || before.ticks == null) {
      return -1;
    }
    long sum = 0;
    for (Map.Entry<String, Long> e : ticks.entrySet()) {
      sum += Math.max(0, e.getValue() - before.ticks.getOrDefault(e.getKey(), 0L));
    }
    return sum * ProcStats.MILLIS_PER_TICK;
  }

  /** utime + stime of the task whose stat file is {@code stat} if it is a compiler thread, else -1. */
  private static long compilerTicks(Path stat) {
    String s;
    try {
      s = Files.readString(stat);
    } catch (IOException e) {
      return -1; // the thread ended since the folder was listed
    }
    // The kernel keeps the first 15 bytes of a thread's name, in parentheses after its id.
    int open = s.indexOf('(');
    if (open < 0 || !(s.startsWith("C1 CompilerThre", open + 1) || s.startsWith("C2 CompilerThre", open + 1))) {
      return -1;
    }
    String[] f = ProcStats.fieldsAfterName(s);
    return Long.parseLong(f[ProcStats.UTIME]) + Long.parseLong(f[ProcStats.STIME]);
  }
}
