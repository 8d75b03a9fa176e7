package dev.pread.bench.lucene;

import dev.pread.bench.pressure.GroupSampler;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.pressure.QueryThreadTimes;
import dev.pread.bench.report.DisturbedResult;
import dev.pread.bench.report.Timeline;
import dev.pread.cache.BlockCacheStats;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;

/**
 * Queries under the memory limit while something else disturbs them: a neighbour streaming a large
 * file through the page cache, or a merge through the same Directory. Runs inside a query worker
 * whose group limit is already set; queries run without pause over three phases:
 *
 * <ol>
 *   <li><b>before</b>, {@code phaseSeconds}: the steady state;
 *   <li><b>during</b>: the {@link Disturbance} runs until it ends by itself (a merge) or for {@code
 *       duringSeconds} (a neighbour, then stopped);
 *   <li><b>after</b>, {@code afterSeconds}: the recovery.
 * </ol>
 *
 * Every query is recorded (completion time and latency) and checked against its reference
 * checksum. Per phase: QPS, p99, bytes read from storage, and the hit ratio of the Directory's block
 * cache where it has one; the recovery time is the time from the end of the disturbance to the
 * first interval from which {@link #RECOVERY_WINDOW} intervals in a row reach {@link
 * #RECOVERED_SHARE} of the QPS before.
 */
final class DisturbedRun {
  static final double INTERVAL_SECONDS = 1.0;
  static final double RECOVERED_SHARE = 0.9;
  static final int RECOVERY_WINDOW = 2;

  /** What disturbs the queries: started once, stopped once (also after a failure). */
  interface Disturbance {
    /** Starts; returns at once. */
    void start() throws Exception;

    /** Whether it ended by itself. */
    boolean finished();

    /** Stops it if it still runs and waits for it; throws what it failed with. */
    void stop() throws Exception;

    /** What it did, for the report (e.g. the bytes it read or the segments it merged). */
    String describe();
  }

  private DisturbedRun() {}

  /** The hit counters of the block cache {@code dir} reads through, or null when it has none. */
  static Supplier<BlockCacheStats> cacheStats(Directory dir) {
    if (dir instanceof CachedPreadDirectory c) {
      return () -> c.getCache().stats();
    }
    if (dir instanceof AdaptiveDirectory a) {
      return a::cacheStats;
    }
    return null;
  }

  /** One timed run; returns its figures. */
  static DisturbedResult run(String regime, String directory, Directory dir, IndexSearcher searcher, QueryMix mix,
      long[] reference, int threads, int first, double phaseSeconds, double duringSeconds, double afterSeconds,
      Disturbance disturbance) throws Exception {
    Timeline.Recorder[] recorders = new Timeline.Recorder[threads];
    for (int i = 0; i < threads; i++) {
      recorders[i] = new Timeline.Recorder();
    }
    Supplier<BlockCacheStats> stats = cacheStats(dir);
    BlockCacheStats[] cache = new BlockCacheStats[4];
    ProcStats[] io = new ProcStats[4];
    long[] marks = new long[4]; // start, disturbance started, disturbance ended, end
    // The query threads' scheduler counters and the process's CPU time at the start, at the
    // disturbance's start and end, and just before the queries stop (the threads still alive).
    QueryThreadTimes[] sched = new QueryThreadTimes[4];
    ProcStats[] cpu = new ProcStats[4];
    long[] schedAt = new long[4];
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> controlFailure = new AtomicReference<>();
    GroupSampler sampler = GroupSampler.start(100);
    marks[0] = System.nanoTime();
    io[0] = ProcStats.now();
    sample(sched, cpu, schedAt, 0, io[0], marks[0]);
    cache[0] = stats == null ? null : stats.get();
    Thread control = new Thread(() -> {
      try {
        sleepUntil(marks[0] + (long) (phaseSeconds * 1e9));
        io[1] = ProcStats.now();
        cache[1] = stats == null ? null : stats.get();
        marks[1] = System.nanoTime();
        sample(sched, cpu, schedAt, 1, io[1], marks[1]);
        runFor(disturbance, marks[1], duringSeconds);
        marks[2] = System.nanoTime();
        io[2] = ProcStats.now();
        cache[2] = stats == null ? null : stats.get();
        sample(sched, cpu, schedAt, 2, io[2], marks[2]);
        sleepUntil(marks[2] + (long) (afterSeconds * 1e9));
        sample(sched, cpu, schedAt, 3, ProcStats.now(), System.nanoTime());
      } catch (Throwable e) {
        controlFailure.set(e);
      } finally {
        stop.set(true);
      }
    }, regime + "-control");
    control.start();
    QueryRun.Result res;
    try {
      res = QueryRun.run(searcher, mix, reference, threads, first, () -> !stop.get(), directory, recorders);
    } catch (Throwable e) {
      stop.set(true);
      control.interrupt();
      control.join();
      sampler.close();
      throw new IllegalStateException(regime + " " + directory + " x" + threads + " failed", e);
    }
    control.join();
    marks[3] = System.nanoTime();
    io[3] = ProcStats.now();
    cache[3] = stats == null ? null : stats.get();
    sampler.close();
    if (controlFailure.get() != null) {
      Throwable e = controlFailure.get();
      throw new IllegalStateException(regime + " " + directory + " x" + threads + ": " + e.getMessage(), e);
    }
    Timeline tl = Timeline.of(recorders, marks[0], marks[3], INTERVAL_SECONDS);
    DisturbedResult c = new DisturbedResult();
    c.regime = regime;
    c.directory = directory;
    c.threads = threads;
    c.queries = res.queries();
    c.disturbance = disturbance.describe();
    c.start = (marks[1] - marks[0]) / 1e9;
    c.end = (marks[2] - marks[0]) / 1e9;
    c.length = (marks[3] - marks[0]) / 1e9;
    double[][] windows = {{0, c.start}, {c.start, c.end}, {c.end, c.length}};
    for (int p = 0; p < 3; p++) {
      double from = windows[p][0];
      double to = windows[p][1];
      c.qps[p] = to > from ? tl.qps(from, to) : 0;
      c.p99Micros[p] = to > from ? tl.percentileMicros(from, to, 0.99) : -1;
      c.storageReadBytes[p] = io[p + 1].minus(io[p]).storageReadBytes();
      c.majorFaults[p] = io[p + 1].minus(io[p]).majorFaults();
      c.pageCache[p] = sampler.meanFileBytes(marks[p], marks[p + 1]);
      if (cache[p] != null) {
        long hits = cache[p + 1].hits() - cache[p].hits();
        long misses = cache[p + 1].misses() - cache[p].misses();
        c.hitRatio[p] = hits + misses == 0 ? Double.NaN : (double) hits / (hits + misses);
      }
      if (sched[p + 1] != null && schedAt[p + 1] > schedAt[p]) {
        double millis = (schedAt[p + 1] - schedAt[p]) / 1e6; // of wall time in the phase
        long run = sched[p + 1].runNanosSince(sched[p]);
        long wait = sched[p + 1].waitNanosSince(sched[p]);
        long process = cpuMillis(cpu[p + 1].minus(cpu[p]));
        if (run >= 0 && wait >= 0) {
          c.queryOnCoreMillis[p] = run / 1e6 / threads / millis * 1000;
          c.queryWaitingMillis[p] = wait / 1e6 / threads / millis * 1000;
          if (process >= 0) {
            c.otherCpuMillis[p] = Math.max(0, process - run / 1e6) / millis * 1000;
          }
        }
      }
    }
    c.recoverySeconds = recoverySeconds(tl, c.end, c.qps[0]);
    c.stallSeconds = tl.longestStallSeconds();
    int n = tl.intervals();
    c.intervalSeconds = INTERVAL_SECONDS;
    c.intervalQps = new double[n];
    c.intervalP99Micros = new long[n];
    for (int i = 0; i < n; i++) {
      c.intervalQps[i] = tl.qps(i);
      c.intervalP99Micros[i] = tl.p99Micros(i);
    }
    c.memory = MemoryCheck.ownNow();
    System.out.printf(Locale.ROOT, "lucene %s %s x%d: %.1f QPS before, %.1f during (%.1f s), %.1f after; recovery %s%n",
        regime, directory, threads, c.qps[0], c.qps[1], c.end - c.start, c.qps[2],
        c.recoverySeconds < 0 ? "not within the run" : String.format(Locale.ROOT, "%.1f s", c.recoverySeconds));
    return c;
  }

  /**
   * Seconds from {@code end} to the start of the first whole interval after it from which {@link
   * #RECOVERY_WINDOW} intervals in a row reach {@link #RECOVERED_SHARE} of {@code before}; -1 if
   * none does.
   */
  static double recoverySeconds(Timeline tl, double end, double before) {
    double step = tl.intervalSeconds();
    int firstWhole = (int) Math.ceil(end / step - 1e-9);
    int last = tl.intervals() - 1; // the last interval may be short: not counted
    for (int i = firstWhole; i + RECOVERY_WINDOW <= last; i++) {
      boolean ok = true;
      for (int k = 0; k < RECOVERY_WINDOW && ok; k++) {
        ok = tl.qps(i + k) >= RECOVERED_SHARE * before;
      }
      if (ok) {
        return Math.max(0, i * step - end);
      }
    }
    return -1;
  }

  /**
   * Starts {@code disturbance}, lets it run until it ends by itself or {@code seconds} have passed
   * since {@code startNanos}, and stops it (also when waiting fails).
   */
  static void runFor(Disturbance disturbance, long startNanos, double seconds) throws Exception {
    disturbance.start();
    long deadline = startNanos + (long) (seconds * 1e9);
    try {
      while (!disturbance.finished() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
    } finally {
      disturbance.stop();
    }
  }

  private static void sample(QueryThreadTimes[] sched, ProcStats[] cpu, long[] at, int i, ProcStats now, long nanos) {
    sched[i] = QueryThreadTimes.now();
    cpu[i] = now;
    at[i] = nanos;
  }

  /** The process's CPU time (user and system) in ms, or -1 if unknown. */
  private static long cpuMillis(ProcStats s) {
    return s.userMillis() < 0 || s.systemMillis() < 0 ? -1 : s.userMillis() + s.systemMillis();
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      Thread.sleep(Math.max(1, left / 1_000_000));
    }
  }
}
