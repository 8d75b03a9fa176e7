package dev.pread.bench.report;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.Test;

/** The changing regime's per-interval aggregation: QPS and p99 per interval, windows, stalls. */
public class TimelineTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @Test
  public void aStallShowsAsEmptyIntervalsAndTheLongestGap() {
    Timeline.Recorder r = new Timeline.Recorder();
    long start = 1_000_000_000L;
    for (int i = 1; i <= 9; i++) {
      r.record(start + i * 100_000_000L, 1000L * i); // 0.1 .. 0.9 s, latencies 1..9 ms
    }
    r.record(start + 3_500_000_000L, 2_600_000); // a query that took 2.6 s completes at 3.5 s
    Timeline t = Timeline.of(new Timeline.Recorder[] {r}, start, start + 4_000_000_000L, 1.0);
    assertEquals(4, t.intervals());
    assertEquals(9, t.qps(0), 1e-9);
    assertEquals(9000, t.p99Micros(0));
    assertEquals(0, t.qps(1), 0);
    assertEquals(-1, t.p99Micros(1));
    assertEquals(0, t.qps(2), 0);
    assertEquals(1, t.qps(3), 1e-9);
    assertEquals(2_600_000, t.p99Micros(3));
    assertEquals(2.6, t.longestStallSeconds(), 1e-9);
    assertEquals(0.9, t.longestStallStart(), 1e-9);
    assertEquals(10 / 4.0, t.qps(0, 4), 1e-9);
  }

  @Test
  public void aRunWithNoQueryIsOneStall() {
    Timeline t = Timeline.of(new Timeline.Recorder[] {new Timeline.Recorder()}, 0, 2_500_000_000L, 1.0);
    assertEquals(3, t.intervals());
    assertEquals(2.5, t.longestStallSeconds(), 1e-9);
    assertEquals(0, t.longestStallStart(), 0);
    assertEquals(-1, t.p99Micros(2));
  }

  @Test
  public void randomRunsMatchABruteForceCount() {
    Random random = new Random(SEED);
    for (int iter = 0; iter < 200; iter++) {
      String where = "seed " + SEED + ", iteration " + iter;
      long start = random.nextLong(1L << 40);
      long length = 1 + random.nextLong(20_000_000_000L);
      double interval = 0.05 + random.nextDouble() * 2;
      int threads = 1 + random.nextInt(4);
      Timeline.Recorder[] recorders = new Timeline.Recorder[threads];
      List<long[]> all = new ArrayList<>();
      for (int k = 0; k < threads; k++) {
        recorders[k] = new Timeline.Recorder();
        int n = random.nextInt(random.nextBoolean() ? 5 : 3000);
        long at = start - random.nextLong(1_000_000_000L); // some completions before the run: dropped
        for (int i = 0; i < n; i++) {
          at += random.nextLong(2 * length / Math.max(1, n) + 1);
          long micros = 1 + random.nextLong(random.nextInt(10) == 0 ? 5_000_000 : 20_000);
          recorders[k].record(at, micros);
          if (at >= start && at <= start + length) {
            all.add(new long[] {at - start, micros});
          }
        }
      }
      Timeline t = Timeline.of(recorders, start, start + length, interval);
      double lengthSeconds = length / 1e9;
      int intervals = Math.max(1, (int) Math.ceil(lengthSeconds / interval - 1e-9));
      assertEquals(where, intervals, t.intervals());
      long total = 0;
      for (int i = 0; i < intervals; i++) {
        double from = i * interval;
        double to = Math.min(lengthSeconds, (i + 1) * interval);
        boolean last = i == intervals - 1;
        List<Long> lat = new ArrayList<>();
        for (long[] c : all) {
          double s = c[0] / 1e9;
          if (s >= from && (s < to || (last && s <= to))) {
            lat.add(c[1]);
          }
        }
        total += lat.size();
        assertEquals(where + ", interval " + i, lat.size() / (to - from), t.qps(i), 1e-6 * Math.max(1, t.qps(i)));
        assertEquals(where + ", interval " + i, nearestRank(lat, 0.99), t.p99Micros(i));
      }
      assertEquals(where + ": every completion inside the run lands in one interval", all.size(), total);
      double[] times = all.stream().mapToDouble(c -> c[0] / 1e9).sorted().toArray();
      double prev = 0;
      double gap = 0;
      for (double s : times) {
        gap = Math.max(gap, s - prev);
        prev = s;
      }
      gap = Math.max(gap, lengthSeconds - prev);
      assertEquals(where, gap, t.longestStallSeconds(), 1e-9);
      double from = random.nextDouble() * lengthSeconds;
      double to = from + random.nextDouble() * (lengthSeconds - from) + 1e-6;
      long inWindow = all.stream().filter(c -> c[0] / 1e9 >= from && c[0] / 1e9 < to).count();
      assertEquals(where, inWindow / (to - from), t.qps(from, to), 1e-6 * Math.max(1, inWindow / (to - from)));
    }
  }

  /** The p-th percentile by sorting and counting ranks, -1 when empty. */
  private static long nearestRank(List<Long> values, double p) {
    if (values.isEmpty()) {
      return -1;
    }
    long[] v = values.stream().mapToLong(Long::longValue).toArray();
    Arrays.sort(v);
    int rank = 1;
    while (rank < v.length && rank < p * v.length) {
      rank++;
    }
    return v[rank - 1];
  }
}
