package dev.pread.bench.lucene;

import dev.pread.bench.report.Timeline;
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
 * the query.
 */
final class QueryRun {
  /** What a cell measured. */
  record Result(long queries, double seconds, double p50Micros, double p99Micros,
      java.util.Map<String, Double> meanMicrosByKind) {
    double qps() {
      return queries / seconds;
    }
  }

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
    List<java.util.Map<String, long[]>> byKind = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Histogram h = new Histogram(3_600_000_000L, 3);
      histograms.add(h);
      java.util.Map<String, long[]> kinds = new java.util.TreeMap<>();
      byKind.add(kinds);
      int id = t;
      Thread w = new Thread(() -> {
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
    for (int t = 0; t < threads; t++) {
      all.add(histograms.get(t));
      total += counts[t];
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
    return new Result(total, seconds, all.getValueAtPercentile(50), all.getValueAtPercentile(99), means);
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
