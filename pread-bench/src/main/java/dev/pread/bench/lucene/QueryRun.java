package dev.pread.bench.lucene;

import dev.pread.bench.report.Timeline;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.apache.lucene.search.IndexSearcher;

/**
 * One timed cell of the Lucene-level benchmark: {@code threads} threads share one searcher and take
 * the next query of the mix (cycling) until the time is up. Latencies go to an HdrHistogram per
 * thread. Every query's checksum is compared with the reference; a mismatch fails the run, naming
 * the query. Each thread also measures its own CPU time over its queries, so that a cell tells
 * whether its query threads were on a core or waiting (on reads, page faults, or a core).
 */
final class QueryRun {
  /**
   * What a cell measured. {@code threadCpuNanos}: the query threads' CPU time (user and system)
   * over their queries, summed, or -1 where this JVM cannot measure a thread's CPU time; {@code
   * threadNanos}: the same threads' wall time over their queries, summed.
   */
  record Result(long queries, double seconds, double p50Micros, double p99Micros,
      java.util.Map<String, Double> meanMicrosByKind, long threadCpuNanos, long threadNanos) {
    double qps() {
      return queries / seconds;
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private QueryRun() {}

  /**
   * Runs the mix from query {@code first} on for {@code millis}. {@code reference[i]} is the
   * checksum query i must give.
   */
  static Result run(IndexSearcher searcher, QueryMix mix, long[] reference, int threads, int first, long millis,
      String label) throws Exception {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    return run(searcher, mix, reference, threads, first, () -> System.nanoTime() < deadline, label, null);
  }

  /**
   * Runs the mix from query {@code first} on while {@code keepGoing} says so (asked before each
   * query, by every thread). With {@code recorders} (one per thread), thread t also records the
   * completion time and latency of each of its queries in {@code recorders[t]}.
   */
  static Result run(IndexSearcher searcher, QueryMix mix, long[] reference, int threads, int first,
      BooleanSupplier keepGoing, String label, Timeline.Recorder[] recorders) throws Exception {
    if (recorders != null && recorders.length != threads) {
      throw new IllegalArgumentException(recorders.length + " recorders for " + threads + " threads");
    }
    AtomicInteger next = new AtomicInteger(first);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Histogram> histograms = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    long start = System.nanoTime();
    long[] counts = new long[threads];
    long[] cpuNanos = new long[threads];
    long[] wallNanos = new long[threads];
    List<java.util.Map<String, long[]>> byKind = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Histogram h = new Histogram(3_600_000_000L, 3);
      histograms.add(h);
      java.util.Map<String, long[]> kinds = new java.util.TreeMap<>();
      byKind.add(kinds);
      int id = t;
      Thread w = new Thread(() -> {
        long cpu0 = threadCpuNanos();
        long wall0 = System.nanoTime();
        try {
          Timeline.Recorder rec = recorders == null ? null : recorders[id];
          while (keepGoing.getAsBoolean() && failure.get() == null) {
            int q = Math.floorMod(next.getAndIncrement(), mix.size());
            long t0 = System.nanoTime();
            long sum = mix.run(searcher, q);
            long t1 = System.nanoTime();
            long micros = Math.max(1, (t1 - t0) / 1000);
            h.recordValue(micros);
            if (rec != null) {
              rec.record(t1, micros);
            }
            long[] k = kinds.computeIfAbsent(mix.get(q).kind(), x -> new long[2]);
            k[0] += micros;
            k[1]++;
            if (sum != reference[q]) {
              throw new IllegalStateException(label + ": query " + q + " (" + mix.get(q).kind() + ": "
                  + mix.get(q).query() + ") returned different hits than the reference");
            }
            counts[id]++;
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        } finally {
          long cpu1 = threadCpuNanos();
          cpuNanos[id] = cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0;
          wallNanos[id] = System.nanoTime() - wall0;
        }
      }, "query-" + t);
      workers.add(w);
      w.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (failure.get() != null) {
      throw new IllegalStateException(label + " failed", failure.get());
    }
    Histogram all = new Histogram(3_600_000_000L, 3);
    long total = 0;
    long cpu = 0;
    long wall = 0;
    for (int t = 0; t < threads; t++) {
      all.add(histograms.get(t));
      total += counts[t];
      cpu = cpu < 0 || cpuNanos[t] < 0 ? -1 : cpu + cpuNanos[t];
      wall += wallNanos[t];
    }
    java.util.Map<String, long[]> merged = new java.util.TreeMap<>();
    for (java.util.Map<String, long[]> m : byKind) {
      m.forEach((k, v) -> {
        long[] x = merged.computeIfAbsent(k, y -> new long[2]);
        x[0] += v[0];
        x[1] += v[1];
      });
    }
    java.util.Map<String, Double> means = new java.util.TreeMap<>();
    merged.forEach((k, v) -> means.put(k, v[0] / (double) v[1]));
    return new Result(total, seconds, all.getValueAtPercentile(50), all.getValueAtPercentile(99), means, cpu, wall);
  }

  /** The calling thread's CPU time (user and system) in nanoseconds, or -1 if it cannot be measured. */
  private static long threadCpuNanos() {
    try {
      return THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled()
          ? THREADS.getCurrentThreadCpuTime() : -1;
    } catch (UnsupportedOperationException e) {
      return -1;
    }
  }

  /** The checksum of every query of the mix, run once in order on one thread. */
  static long[] reference(IndexSearcher searcher, QueryMix mix) throws Exception {
    long[] sums = new long[mix.size()];
    for (int i = 0; i < sums.length; i++) {
      sums[i] = mix.run(searcher, i);
    }
    return sums;
  }
}
