package dev.pread.bench.report;

import dev.pread.bench.pressure.MemoryCheck;

/**
 * One run of a disturbed regime ({@link DisturbedRun}): per phase (0 before, 1 during, 2 after)
 * QPS, p99, bytes read from storage, major faults, mean page cache and the block cache's hit ratio
 * (NaN without a cache); part of results.json.
 */
public final class DisturbedResult {
  public String regime;
  public String directory;
  public int threads;
  /** Why the run has no figures, or null. */
  public String failure;
  public long queries;
  /** What disturbed the queries. */
  public String disturbance;
  /** Seconds from the start to the disturbance's start and end, and the run's length. */
  public double start;
  public double end;
  public double length;
  public double[] qps = new double[3];
  public double[] p99Micros = new double[3];
  public long[] storageReadBytes = new long[3];
  public long[] majorFaults = new long[3];
  public long[] pageCache = {-1, -1, -1};
  public double[] hitRatio = {Double.NaN, Double.NaN, Double.NaN};
  /**
   * Per phase, ms of each second a query thread was on a core, and runnable but waiting for one
   * (the mean over the query threads); the rest of its second it was blocked (reads from storage,
   * locks) or asleep. -1: unknown (no per-thread scheduler counters, or results written without them).
   */
  public double[] queryOnCoreMillis = {-1, -1, -1};
  public double[] queryWaitingMillis = {-1, -1, -1};
  /** Per phase, ms of each second the JVM's other threads were on a core (its CPU time less the query threads'); -1: unknown. */
  public double[] otherCpuMillis = {-1, -1, -1};
  /** Seconds from the end of the disturbance until the QPS is back (see DisturbedRun), -1: not within the run. */
  public double recoverySeconds;
  public double stallSeconds;
  public double intervalSeconds;
  public double[] intervalQps;
  public long[] intervalP99Micros;
  public MemoryCheck memory;
  /** Ratio of the during-phase QPS to the best alternative's, set by the parent (NaN: none). */
  public double ratioDuring = Double.NaN;
  /** Ratio of the during-phase p99 to that of the best alternative (by QPS), set by the parent (NaN: none). */
  public double p99RatioDuring = Double.NaN;
  public String bestDuring;
}
