package dev.pread.bench.pressure;

import java.util.function.LongSupplier;

/**
 * The warm-up of a pressure worker: it runs its workload, untimed, until a given number of bytes
 * came from storage (the process's {@code /proc/self/io}), so that its memory (the cgroup's page
 * cache, or a block cache) holds what the workload itself put there and every further miss
 * reclaims, instead of the first seconds after an eviction, when nothing needs reclaiming yet.
 */
public final class SteadyState {
  private SteadyState() {}

  /** One slice of the workload (a fraction of a second of it); {@code index} counts slices from 0. */
  public interface Slice {
    void run(int index) throws Exception;
  }

  /**
   * Runs slices until {@code bytes} were read from storage or {@code capSeconds} passed (or the
   * counter cannot be read); returns the seconds it took.
   */
  public static double readFromStorage(long bytes, double capSeconds, Slice slice) throws Exception {
    long start = System.nanoTime();
    long cap = start + (long) (capSeconds * 1e9);
    ProcStats before = ProcStats.now();
    int index = 0;
    while (System.nanoTime() < cap) {
      slice.run(index++);
      long read = ProcStats.now().minus(before).storageReadBytes();
      if (read < 0 || read >= bytes) {
        break;
      }
    }
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * How a wait for the JIT went: its seconds, and whether the compiler threads fell quiet within the
   * cap (false also where their time cannot be read, {@code /proc} missing).
   */
  public record Settle(double seconds, boolean quiet) {}

  /**
   * Runs slices until this JVM's JIT compiler threads used at most {@code maxShare} of one core over
   * a window of at least {@code windowMillis}, or {@code capSeconds} passed. A worker that compiled
   * its query paths and then reopened its Directory under a limit may compile again for seconds (a
   * Directory whose read path changed under the limit recompiles the decoding loops that inlined
   * it; the others compile the paths that only misses take): on two cores the compiler threads take
   * a core from the queries, and a cell measured then measures the JIT. Waiting until they are
   * quiet measures every Directory in its steady state alike.
   */
  public static Settle compilerQuiet(double maxShare, long windowMillis, double capSeconds, Slice slice) throws Exception {
    CompilerCpu origin = CompilerCpu.now();
    return compilerQuiet(maxShare, windowMillis, capSeconds, slice, () -> CompilerCpu.now().millisSince(origin), System::nanoTime);
  }

  /**
   * {@link #compilerQuiet(double, long, double, Slice)} with its readings given: {@code compilerMillis}
   * is the compiler threads' milliseconds since some origin (-1: unknown), {@code clock} the time
   * in nanoseconds.
   */
  static Settle compilerQuiet(double maxShare, long windowMillis, double capSeconds, Slice slice,
      LongSupplier compilerMillis, LongSupplier clock) throws Exception {
    if (!(maxShare > 0) || windowMillis <= 0 || !(capSeconds >= 0)) {
      throw new IllegalArgumentException("share " + maxShare + ", window " + windowMillis + " ms, cap " + capSeconds + " s");
    }
    long start = clock.getAsLong();
    long cap = start + (long) (capSeconds * 1e9);
    long windowStart = start;
    long windowCompiled = compilerMillis.getAsLong();
    int index = 0;
    while (windowCompiled >= 0 && clock.getAsLong() - cap < 0) {
      slice.run(index++);
      long now = clock.getAsLong();
      double windowMs = (now - windowStart) / 1e6;
      if (windowMs < windowMillis) {
        continue;
      }
      long compiled = compilerMillis.getAsLong();
      if (compiled < 0) {
        break; // unknown: waiting out the cap would not tell either
      }
      if (compiled - windowCompiled <= maxShare * windowMs) {
        return new Settle((now - start) / 1e9, true);
      }
      windowStart = now;
      windowCompiled = compiled;
    }
    return new Settle((clock.getAsLong() - start) / 1e9, false);
  }
}
