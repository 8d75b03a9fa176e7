package dev.pread.bench.report;

import java.util.Arrays;

/**
 * The statistics of the bench: medians over rounds, ratios between cells, latency percentiles.
 * Cells keep one figure per round; every table and chart reduces them here.
 *
 * <p>Thread-safe: stateless; no method modifies its arguments unless it says so.
 */
public final class Stats {
  private Stats() {}

  /**
   * The median of {@code values}: the middle one, or the mean of the two middle ones for an even
   * count.
   *
   * @throws IllegalArgumentException if {@code values} is empty
   */
  public static double median(double[] values) {
    if (values.length == 0) {
      throw new IllegalArgumentException("median of no values");
    }
    double[] c = values.clone();
    Arrays.sort(c);
    int n = c.length;
    return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  }

  /**
   * Median over rounds of a[round] / b[round]: cells of one round ran back to back under the same
   * machine conditions, so their ratio is steadier than a ratio of medians.
   *
   * @throws IllegalArgumentException if the two have not the same number of rounds, or none
   */
  public static double pairedRatio(double[] a, double[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("paired ratio of " + a.length + " rounds to " + b.length);
    }
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = a[i] / b[i];
    }
    return median(r);
  }

  /** The median of {@code a} over the median of {@code b}: for cells whose rounds are not paired. */
  public static double ratioOfMedians(double[] a, double[] b) {
    return median(a) / median(b);
  }

  /**
   * The nearest-rank percentile {@code p} (0 to 1] of {@code values}, or -1 when empty. Sorts
   * {@code values} in place.
   */
  public static long percentile(long[] values, double p) {
    if (values.length == 0) {
      return -1;
    }
    Arrays.sort(values);
    int rank = (int) Math.ceil(p * values.length);
    return values[Math.max(0, Math.min(values.length, rank) - 1)];
  }

  /**
   * The q-quantile of a latency histogram whose bucket {@code i} counts values in [2^i, 2^(i+1))
   * microseconds: the upper bound of the bucket holding it, or -1 if the buckets hold fewer than
   * {@code total} values.
   */
  public static long bucketPercentile(long[] buckets, long total, double q) {
    long target = (long) Math.ceil(total * q);
    long seen = 0;
    for (int i = 0; i < buckets.length; i++) {
      seen += buckets[i];
      if (seen >= target) {
        return 1L << (i + 1);
      }
    }
    return -1;
  }
}
