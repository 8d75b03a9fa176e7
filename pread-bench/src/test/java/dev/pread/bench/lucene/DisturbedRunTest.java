package dev.pread.bench.lucene;

import static org.junit.Assert.assertEquals;

import dev.pread.bench.report.Timeline;

import org.junit.Test;

/** The recovery time of a disturbed run, from a timeline of completed queries. */
public class DisturbedRunTest {
  private static final long S = 1_000_000_000L;

  /** A timeline of {@code qps[i]} queries evenly spread over second i. */
  private static Timeline timeline(int... qps) {
    Timeline.Recorder r = new Timeline.Recorder();
    long start = 10 * S;
    for (int i = 0; i < qps.length; i++) {
      for (int q = 0; q < qps[i]; q++) {
        r.record(start + i * S + (q * S + S / 2) / qps[i], 1000);
      }
    }
    return Timeline.of(new Timeline.Recorder[] {r}, start, start + qps.length * S, 1.0);
  }

  @Test
  public void recoveryIsTheFirstRunOfGoodIntervalsAfterTheEnd() {
    // 100 QPS before, 10 during seconds 3-5, then 50, 95, 95, 100, 100 (the last second is not counted)
    Timeline t = timeline(100, 100, 100, 10, 10, 10, 50, 95, 95, 100, 100);
    assertEquals(1.0, DisturbedRun.recoverySeconds(t, 6.0, 100), 1e-9);
    // the disturbance ended mid-interval: recovery counts from the end to the next whole interval
    assertEquals(1.5, DisturbedRun.recoverySeconds(t, 5.5, 100), 1e-9);
  }

  @Test
  public void aSingleGoodIntervalIsNotARecovery() {
    Timeline t = timeline(100, 100, 10, 95, 10, 95, 95, 10, 10);
    assertEquals(2.0, DisturbedRun.recoverySeconds(t, 3.0, 100), 1e-9);
  }

  @Test
  public void noRecoveryWithinTheRunIsMinusOne() {
    Timeline t = timeline(100, 100, 10, 10, 50, 60, 70, 80);
    assertEquals(-1, DisturbedRun.recoverySeconds(t, 4.0, 100), 0);
  }

  @Test
  public void noDropIsARecoveryAtOnce() {
    Timeline t = timeline(100, 100, 100, 100, 100, 100);
    assertEquals(0.0, DisturbedRun.recoverySeconds(t, 2.0, 100), 1e-9);
  }
}
