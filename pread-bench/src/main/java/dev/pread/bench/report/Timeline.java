package dev.pread.bench.report;

import java.util.Arrays;

/**
 * Queries over time: when each query of a run completed and how long it took, cut into intervals
 * of equal length. Gives per interval the completed queries per second and the 99th percentile
 * latency of the queries that completed in it, the queries per second of any window of the run,
 * and the longest stretch in which no query completed (a stall). Immutable.
 */
public final class Timeline {
  /**
   * Collects one thread's completions. Not thread-safe: each query thread has its own; {@link
   * Timeline#of} merges them once the threads have stopped.
   */
  public static final class Recorder {
    private long[] ends = new long[1024];
    private long[] micros = new long[1024];
    private int size;

    /** Records a query that completed at {@code endNanos} ({@link System#nanoTime}) after {@code latencyMicros}. */
    public void record(long endNanos, long latencyMicros) {
      if (size == ends.length) {
        ends = Arrays.copyOf(ends, size * 2);
        micros = Arrays.copyOf(micros, size * 2);
      }
      ends[size] = endNanos;
      micros[size] = latencyMicros;
      size++;
    }

    int size() {
      return size;
    }
  }

  /** Run time in seconds of each completion, ascending. */
  private final double[] seconds;
  /** Latency of each completion, in the order of {@link #seconds}. */
  private final long[] micros;
  private final double lengthSeconds;
  private final double intervalSeconds;

  private Timeline(double[] seconds, long[] micros, double lengthSeconds, double intervalSeconds) {
    this.seconds = seconds;
    this.micros = micros;
    this.lengthSeconds = lengthSeconds;
    this.intervalSeconds = intervalSeconds;
  }

  /**
   * The timeline of a run from {@code startNanos} to {@code endNanos} made of the completions the
   * recorders hold (completions outside the run are dropped), cut into intervals of {@code
   * intervalSeconds}.
   */
  public static Timeline of(Recorder[] recorders, long startNanos, long endNanos, double intervalSeconds) {
    int n = 0;
    for (Recorder r : recorders) {
      n += r.size;
    }
    long[] ends = new long[n];
    long[] lat = new long[n];
    int k = 0;
    for (Recorder r : recorders) {
      System.arraycopy(r.ends, 0, ends, k, r.size);
      System.arraycopy(r.micros, 0, lat, k, r.size);
      k += r.size;
    }
    return of(ends, lat, startNanos, endNanos, intervalSeconds);
  }

  /** As above, from arrays of completion times (nanoTime) and latencies in any order. */
  public static Timeline of(long[] endNanos, long[] latencyMicros, long startNanos, long runEndNanos, double intervalSeconds) {
    if (endNanos.length != latencyMicros.length) {
      throw new IllegalArgumentException("completion times and latencies differ in number");
    }
    if (runEndNanos < startNanos || !(intervalSeconds > 0)) {
      throw new IllegalArgumentException("bad run: start " + startNanos + ", end " + runEndNanos
          + ", interval " + intervalSeconds + " s");
    }
    Integer[] order = new Integer[endNanos.length];
    int n = 0;
    for (int i = 0; i < endNanos.length; i++) {
      if (endNanos[i] >= startNanos && endNanos[i] <= runEndNanos) {
        order[n++] = i;
      }
    }
    Integer[] kept = Arrays.copyOf(order, n);
    Arrays.sort(kept, (a, b) -> Long.compare(endNanos[a], endNanos[b]));
    double[] s = new double[n];
    long[] m = new long[n];
    for (int i = 0; i < n; i++) {
      s[i] = (endNanos[kept[i]] - startNanos) / 1e9;
      m[i] = latencyMicros[kept[i]];
    }
    return new Timeline(s, m, (runEndNanos - startNanos) / 1e9, intervalSeconds);
  }

  /** Length of the run in seconds. */
  double lengthSeconds() {
    return lengthSeconds;
  }

  public double intervalSeconds() {
    return intervalSeconds;
  }

  /** Number of intervals: the last one may be shorter than the others. */
  public int intervals() {
    return Math.max(1, (int) Math.ceil(lengthSeconds / intervalSeconds - 1e-9));
  }

  /** Queries completed in interval {@code i}. */
  long count(int i) {
    return between(i * intervalSeconds, Math.min(lengthSeconds, (i + 1) * intervalSeconds), i == intervals() - 1);
  }

  /** Queries per second completed in interval {@code i} (the last, shorter one, over its own length). */
  public double qps(int i) {
    double from = i * intervalSeconds;
    double to = Math.min(lengthSeconds, (i + 1) * intervalSeconds);
    return to > from ? count(i) / (to - from) : 0;
  }

  /**
   * The 99th percentile latency (nearest rank) of the queries completed in interval {@code i}, in
   * microseconds, or -1 when none completed in it.
   */
  public long p99Micros(int i) {
    double from = i * intervalSeconds;
    double to = Math.min(lengthSeconds, (i + 1) * intervalSeconds);
    int lo = lowerBound(from);
    int hi = i == intervals() - 1 ? seconds.length : lowerBound(to);
    return Stats.percentile(Arrays.copyOfRange(micros, lo, hi), 0.99);
  }

  /** Queries per second completed in the window [{@code from}, {@code to}) seconds of the run. */
  public double qps(double from, double to) {
    if (!(to > from)) {
      throw new IllegalArgumentException("empty window [" + from + ", " + to + ")");
    }
    return between(from, to, false) / (to - from);
  }

  /**
   * The nearest-rank percentile {@code p} (0 to 1] of the latencies of the queries completed in
   * [{@code from}, {@code to}) seconds, in microseconds, or -1 when none completed there.
   */
  public long percentileMicros(double from, double to, double p) {
    return Stats.percentile(Arrays.copyOfRange(micros, lowerBound(from), lowerBound(to)), p);
  }

  /**
   * The longest stretch of the run, in seconds, in which no query completed: the largest gap
   * between the run's start, the completions in order, and the run's end.
   */
  public double longestStallSeconds() {
    double prev = 0;
    double max = 0;
    for (double s : seconds) {
      max = Math.max(max, s - prev);
      prev = s;
    }
    return Math.max(max, lengthSeconds - prev);
  }

  /** Where the longest stall starts, in seconds of the run. */
  public double longestStallStart() {
    double prev = 0;
    double max = -1;
    double at = 0;
    for (double s : seconds) {
      if (s - prev > max) {
        max = s - prev;
        at = prev;
      }
      prev = s;
    }
    return lengthSeconds - prev > max ? prev : at;
  }

  /** Completions in [from, to), or [from, to] when {@code closed}. */
  private long between(double from, double to, boolean closed) {
    int hi = closed ? upperBound(to) : lowerBound(to);
    return Math.max(0, hi - lowerBound(from));
  }

  /** First index whose time is at least {@code t}. */
  private int lowerBound(double t) {
    int lo = 0;
    int hi = seconds.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (seconds[mid] < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** First index whose time is above {@code t}. */
  private int upperBound(double t) {
    int lo = 0;
    int hi = seconds.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (seconds[mid] <= t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
