package dev.pread.bench;

/**
 * One run of a disturbed regime ({@link DisturbedRun}): per phase (0 before, 1 during, 2 after)
 * QPS, p99, bytes read from storage, major faults, mean page cache and the block cache's hit ratio
 * (NaN without a cache); part of results.json.
 */
final class DisturbedResult {
  String regime;
  String directory;
  int threads;
  /** Why the run has no figures, or null. */
  String failure;
  long queries;
  /** What disturbed the queries. */
  String disturbance;
  /** Seconds from the start to the disturbance's start and end, and the run's length. */
  double start;
  double end;
  double length;
  double[] qps = new double[3];
  double[] p99Micros = new double[3];
  long[] storageReadBytes = new long[3];
  long[] majorFaults = new long[3];
  long[] pageCache = {-1, -1, -1};
  double[] hitRatio = {Double.NaN, Double.NaN, Double.NaN};
  /** Seconds from the end of the disturbance until the QPS is back (see DisturbedRun), -1: not within the run. */
  double recoverySeconds;
  double stallSeconds;
  double intervalSeconds;
  double[] intervalQps;
  long[] intervalP99Micros;
  MemoryCheck memory;
  /** Ratio of the during-phase QPS to the best alternative's, set by the parent (NaN: none). */
  double ratioDuring = Double.NaN;
  String bestDuring;
}
