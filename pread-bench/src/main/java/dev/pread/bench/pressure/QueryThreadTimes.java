package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where this JVM's query threads (those named {@code query-N}) spent their time: on a core, and
 * runnable but waiting for one, from Linux's per-thread scheduler counters ({@code
 * /proc/self/task/<tid>/schedstat}: nanoseconds on a CPU, nanoseconds on a run queue). What is
 * left of a thread's wall time was spent off a core and not waiting for one: blocked in a read from
 * storage, on a lock, or asleep. On a machine with few cores these tell a query slowed by the CPU
 * (other threads took the cores: it waits on a run queue) from one slowed by its reads (it
 * blocks).
 *
 * <p>A reading keeps each query thread's counters by thread id; a difference of two readings counts
 * a thread that started between them in full, and one that ended between them not at all, so a
 * caller takes its last reading while the threads still run.
 */
public final class QueryThreadTimes {
  /** The kernel keeps the first 15 bytes of a thread's name; this is the query threads' prefix. */
  static final String NAME_PREFIX = "query-";

  /** {on a CPU, waiting on a run queue} in ns, by thread id; null where /proc could not be read. */
  private final Map<String, long[]> times;

  private QueryThreadTimes(Map<String, long[]> times) {
    this.times = times;
  }

  /** This JVM's query threads' counters now. */
  public static QueryThreadTimes now() {
    return read(Path.of("/proc/self/task"));
  }

  /**
   * The query threads' counters among the tasks of {@code taskDir} (a /proc/PID/task folder); a task
   * that ends while it is read is left out; a folder that cannot be listed, or a query thread whose
   * counters cannot be parsed, gives a reading whose differences are unknown.
   */
  static QueryThreadTimes read(Path taskDir) {
    Map<String, long[]> times = new HashMap<>();
    try (Stream<Path> tasks = Files.list(taskDir)) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String comm;
        String schedstat;
        try {
          comm = Files.readString(task.resolve("comm")).strip();
          if (!comm.startsWith(NAME_PREFIX)) {
            continue;
          }
          schedstat = Files.readString(task.resolve("schedstat")).strip();
        } catch (IOException e) {
          continue; // the thread ended since the folder was listed
        }
        String[] f = schedstat.split(" ");
        times.put(task.getFileName().toString(), new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
      }
    } catch (IOException | RuntimeException e) {
      return new QueryThreadTimes(null);
    }
    return new QueryThreadTimes(times);
  }

  /** Nanoseconds the query threads were on a core since {@code before}, summed; -1 if unknown. */
  public long runNanosSince(QueryThreadTimes before) {
    return since(before, 0);
  }

  /** Nanoseconds the query threads waited for a core since {@code before}, summed; -1 if unknown. */
  public long waitNanosSince(QueryThreadTimes before) {
    return since(before, 1);
  }

  /** How many query threads this reading saw; -1 if unknown. */
  public int threads() {
    return times == null ? -1 : times.size();
  }

  private long since(QueryThreadTimes before, int field) {
    if (times == null || before.times == null) {
      return -1;
    }
    long sum = 0;
    for (Map.Entry<String, long[]> e : times.entrySet()) {
      long[] then = before.times.get(e.getKey());
      sum += Math.max(0, e.getValue()[field] - (then == null ? 0 : then[field]));
    }
    return sum;
  }
}
