package dev.pread.bench.report;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.Random;
import org.junit.Test;

/** Medians, ratios and percentiles as the report reduces rounds and latencies. */
public class StatsTest {
  @Test
  public void medianOfAnOddCountIsTheMiddleValue() {
    assertEquals(2.0, Stats.median(new double[] {3, 1, 2}), 0);
    assertEquals(7.0, Stats.median(new double[] {7}), 0);
  }

  @Test
  public void medianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
    assertEquals(2.5, Stats.median(new double[] {4, 1, 2, 3}), 0);
    assertEquals(15.0, Stats.median(new double[] {20, 10}), 0);
  }

  @Test
  public void medianLeavesItsInputAlone() {
    double[] v = {5, 3, 9, 1};
    Stats.median(v);
    assertArrayEquals(new double[] {5, 3, 9, 1}, v, 0);
  }

  @Test
  public void medianOfNothingIsAnError() {
    assertThrows(IllegalArgumentException.class, () -> Stats.median(new double[0]));
  }

  /** The median against a sort of a random sample (seeded), for odd and even counts. */
  @Test
  public void medianMatchesASortedCopy() {
    Random random = new Random(7);
    for (int n = 1; n < 40; n++) {
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        v[i] = random.nextInt(100);
      }
      double[] sorted = v.clone();
      java.util.Arrays.sort(sorted);
      double expected = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      assertEquals("n=" + n, expected, Stats.median(v), 0);
    }
  }

  /**
   * Ratios pair rounds: a round that is slow for both cells (the machine was busy) does not move
   * the ratio, where a ratio of medians would.
   */
  @Test
  public void pairedRatioIsTheMedianOfPerRoundRatios() {
    double[] a = {200, 20, 200};
    double[] b = {100, 10, 150};
    assertEquals(2.0, Stats.pairedRatio(a, b), 1e-9);
    assertEquals(200.0 / 100, Stats.ratioOfMedians(a, b), 1e-9);
    // Even count: the mean of the two middle ratios (1.5 and 2).
    assertEquals(1.75, Stats.pairedRatio(new double[] {10, 30, 15, 20}, new double[] {10, 10, 10, 10}), 1e-9);
  }

  @Test
  public void pairedRatioNeedsTheSameRounds() {
    assertThrows(IllegalArgumentException.class, () -> Stats.pairedRatio(new double[] {1, 2}, new double[] {1}));
    assertThrows(IllegalArgumentException.class, () -> Stats.pairedRatio(new double[0], new double[0]));
  }

  @Test
  public void percentileIsTheNearestRank() {
    long[] v = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
    assertEquals(5, Stats.percentile(v.clone(), 0.5));
    assertEquals(9, Stats.percentile(v.clone(), 0.9));
    assertEquals(10, Stats.percentile(v.clone(), 0.99));
    assertEquals(10, Stats.percentile(v.clone(), 1.0));
    assertEquals(1, Stats.percentile(v.clone(), 0.01));
    assertEquals(42, Stats.percentile(new long[] {42}, 0.5));
    assertEquals(-1, Stats.percentile(new long[0], 0.5));
  }

  /** Bucket i counts values in [2^i, 2^(i+1)) us; a quantile is the upper bound of its bucket. */
  @Test
  public void bucketPercentileIsTheUpperBoundOfItsBucket() {
    long[] buckets = new long[40];
    buckets[3] = 50; // [8, 16) us
    buckets[6] = 49; // [64, 128)
    buckets[10] = 1; // [1024, 2048)
    assertEquals(16, Stats.bucketPercentile(buckets, 100, 0.5));
    assertEquals(128, Stats.bucketPercentile(buckets, 100, 0.99));
    assertEquals(2048, Stats.bucketPercentile(buckets, 100, 1.0));
    assertEquals("fewer values than the total", -1, Stats.bucketPercentile(buckets, 200, 1.0));
  }
}
