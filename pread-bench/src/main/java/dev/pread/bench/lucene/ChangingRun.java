package dev.pread.bench.lucene;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CachedDirectories;
import dev.pread.bench.pressure.GroupSampler;
import dev.pread.bench.pressure.LimitKeeper;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.MemoryHogCommand;
import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.pressure.WorkerProcess;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.Results;
import dev.pread.bench.report.Timeline;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;

/**
 * The changing-memory regime, inside a query worker started in a memory cgroup of its own. The
 * worker evicts the index, sets the group's limit to what it holds besides page cache plus 1.5
 * times the index, so the index fits with room to spare; then per thread count it opens the
 * Directory, reads every index file (warm), runs half a second of queries and starts the timed
 * run, queries running all along:
 *
 * <ol>
 *   <li>phase A, {@code spec.phaseSeconds}: the index fits;
 *   <li>a second process in the same group ({@link MemoryHogCommand}) takes 1.25 times the index of
 *       anonymous memory, leaving a quarter of the index to the page cache; the settling lasts from
 *       its start to {@code spec.settleSeconds} after it holds its memory;
 *   <li>phase B, {@code spec.phaseSeconds}: the index does not fit.
 * </ol>
 *
 * From the moment the second process holds its memory to the end of phase B, a {@link LimitKeeper}
 * keeps the page cache at a quarter of the index, as in the pressure regime: what the worker holds
 * besides page cache grows after the limit was set (the JIT's arenas, buffers), and under a fixed
 * limit each MiB it grows is a MiB of page cache less for that Directory alone. Each thread count
 * starts again from the limit set at the start.
 *
 * The second process is killed at the end. Every completed query is recorded (time and latency)
 * and checked against its reference checksum, so the run yields QPS and p99 per second, per phase,
 * and the longest stretch without a completed query. dir-cached's cache is sized for phase B (a
 * quarter of the index minus the measured slack): a cache sized for phase A could not give its
 * memory back, and the group's OOM killer would end the run.
 */
final class ChangingRun {
  /** Length of the timeline's intervals. */
  static final double INTERVAL_SECONDS = 1.0;

  private ChangingRun() {}

  static void run(Results r, QueryWorkerCommand.Spec spec, Path index, QueryMix mix, CacheSizing.Growth growth)
      throws Exception {
    String name = spec.directory;
    LuceneBench.evict(index);
    long usage = MemoryCgroup.ownUsageBytes();
    long file = MemoryCgroup.ownPageCacheBytes();
    if (usage <= 0 || file < 0) {
      throw new IllegalStateException("cannot read this process's memory cgroup: usage " + usage + ", cache " + file);
    }
    long other = usage - file;
    long limit = other + spec.indexBytes * 3 / 2;
    long phaseBFiles = spec.indexBytes / 4;
    long hogBytes = limit - other - phaseBFiles;
    MemoryCgroup.setOwnLimit(limit);
    CacheSettings cache = spec.cache();
    CacheSizing sizing = null;
    if (name.equals(DIR_CACHED)) {
      sizing = CacheSizing.of(spec, phaseBFiles, file, growth);
      cache = sizing.settings(spec);
      System.out.printf("sizing: dir-cached changing: %s; limit %s (%s besides page cache)%n", sizing.describe(),
          Format.size(limit), Format.size(other));
    }
    int first = spec.firstQuery;
    for (int t : spec.threads) {
      Results.Changing c = new Results.Changing();
      c.directory = name;
      c.threads = t;
      c.limitBytes = limit;
      c.otherBytes = other;
      c.indexBytes = spec.indexBytes;
      c.hogBytes = hogBytes;
      if (sizing != null) {
        c.cacheBytes = sizing.cacheBytes();
        c.slackBytes = sizing.slackBytes();
      }
      MemoryCgroup.setOwnLimit(limit); // where the last thread count's keeper left it, if higher
      try (Directory d = StrategyRegistry.openDirectory(name, index, cache); DirectoryReader reader = DirectoryReader.open(d)) {
        LuceneBench.warmFiles(index);
        IndexSearcher searcher = new IndexSearcher(reader);
        first += (int) QueryRun.run(searcher, mix, spec.reference, t, first, 500, name).queries();
        first = timed(r, c, spec, searcher, mix, t, first, () -> CachedDirectories.allocatedBytes(d));
      }
      r.changing.add(c);
    }
  }

  /** The timed run of one thread count; returns the next query to start from. */
  private static int timed(Results r, Results.Changing c, QueryWorkerCommand.Spec spec, IndexSearcher searcher,
      QueryMix mix, int threads, int first, LongSupplier ownCacheBytes) throws Exception {
    Timeline.Recorder[] recorders = new Timeline.Recorder[threads];
    for (int i = 0; i < threads; i++) {
      recorders[i] = new Timeline.Recorder();
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> controlFailure = new AtomicReference<>();
    AtomicReference<Process> hog = new AtomicReference<>();
    long[] marks = new long[4]; // hog started, hog holds its memory, phase B starts, end
    ProcStats before = ProcStats.now();
    GroupSampler sampler = GroupSampler.start(100);
    long t0 = System.nanoTime();
    Thread control = new Thread(() -> {
      try {
        control(spec, c, t0, marks, hog, ownCacheBytes);
      } catch (Throwable e) {
        controlFailure.set(e);
      } finally {
        stop.set(true);
      }
    }, "changing-control");
    control.start();
    QueryRun.Result res = null;
    Throwable queryFailure = null;
    try {
      res = QueryRun.run(searcher, mix, spec.reference, threads, first, () -> !stop.get(), spec.directory, recorders);
    } catch (Throwable e) {
      queryFailure = e;
      stop.set(true);
      control.interrupt();
      Process p = hog.get();
      if (p != null) {
        p.destroyForcibly();
      }
    }
    control.join();
    sampler.close();
    if (queryFailure != null) {
      throw new IllegalStateException("changing " + spec.directory + " x" + threads + " failed", queryFailure);
    }
    if (controlFailure.get() != null) {
      throw new IllegalStateException(controlFailure.get().getMessage(), controlFailure.get());
    }
    ProcStats d = ProcStats.now().minus(before);
    Timeline tl = Timeline.of(recorders, t0, marks[3], INTERVAL_SECONDS);
    double a = spec.phaseSeconds;
    c.hogStart = (marks[0] - t0) / 1e9;
    c.hogHeld = (marks[1] - t0) / 1e9;
    c.phaseBStart = (marks[2] - t0) / 1e9;
    c.end = (marks[3] - t0) / 1e9;
    c.qpsA = tl.qps(0, a);
    c.p99MicrosA = tl.percentileMicros(0, a, 0.99);
    c.qpsSettling = tl.qps(c.hogStart, c.phaseBStart);
    c.qpsB = tl.qps(c.phaseBStart, c.end);
    c.p99MicrosB = tl.percentileMicros(c.phaseBStart, c.end, 0.99);
    c.stallSeconds = tl.longestStallSeconds();
    c.stallStart = tl.longestStallStart();
    c.pageCacheA = sampler.meanFileBytes(t0, marks[0]);
    c.pageCacheB = sampler.meanFileBytes(marks[2], marks[3]);
    c.intervalSeconds = INTERVAL_SECONDS;
    int n = tl.intervals();
    c.intervalQps = new double[n];
    c.intervalP99Micros = new long[n];
    c.intervalPageCache = new long[n];
    for (int i = 0; i < n; i++) {
      c.intervalQps[i] = tl.qps(i);
      c.intervalP99Micros[i] = tl.p99Micros(i);
      long from = t0 + (long) (i * INTERVAL_SECONDS * 1e9);
      c.intervalPageCache[i] = sampler.meanFileBytes(from, from + (long) (INTERVAL_SECONDS * 1e9));
    }
    // The headline's cell: phase B, the index no longer fitting, after the settling.
    Results.QueryCell q = new Results.QueryCell("changing", spec.directory, threads, 1);
    q.qps[0] = c.qpsB;
    q.p50Micros[0] = tl.percentileMicros(c.phaseBStart, c.end, 0.5);
    q.p99Micros[0] = c.p99MicrosB;
    q.queries = res.queries();
    q.majorFaults = d.majorFaults();
    q.storageReadBytes = d.storageReadBytes();
    q.pageCacheBytes = c.pageCacheB;
    q.memory = MemoryCheck.ownNow();
    r.queryCells.add(q);
    System.out.printf(Locale.ROOT, "lucene changing %s x%d: %.1f QPS fitting, %.1f QPS after (settling %.1f s at %.1f"
        + " QPS), longest stall %.2f s%n", spec.directory, threads, c.qpsA, c.qpsB, c.phaseBStart - c.hogStart,
        c.qpsSettling, c.stallSeconds);
    return first + (int) res.queries();
  }

  /** Starts the hog after phase A, waits for the settling and phase B, then kills it. */
  private static void control(QueryWorkerCommand.Spec spec, Results.Changing c, long t0, long[] marks,
      AtomicReference<Process> hogRef, LongSupplier ownCacheBytes) throws Exception {
    long hogBytes = c.hogBytes;
    sleepUntil(t0 + (long) (spec.phaseSeconds * 1e9));
    marks[0] = System.nanoTime();
    List<String> cmd = WorkerProcess.command(List.of("-Xmx16m", "-Xms16m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"), "memory-hog", "--bytes", Long.toString(hogBytes));
    Process hog = new ProcessBuilder(cmd).redirectErrorStream(true).start(); // inherits this group
    hogRef.set(hog);
    try {
      List<String> log = new ArrayList<>();
      BufferedReader out = new BufferedReader(new InputStreamReader(hog.getInputStream(), StandardCharsets.UTF_8));
      String held = null;
      for (String line; (line = out.readLine()) != null; ) {
        log.add(line);
        if (line.startsWith("held ")) {
          held = line;
          break;
        }
      }
      if (held == null) {
        throw new IllegalStateException("the memory hog exited before holding its memory (exit " + hog.waitFor()
            + (hog.exitValue() == 137 ? ", killed" : "") + "): " + String.join(" / ", log));
      }
      marks[1] = System.nanoTime();
      marks[2] = marks[1] + (long) (spec.settleSeconds * 1e9);
      LimitKeeper keeper = LimitKeeper.start(spec.indexBytes / 4, QueryWorkerCommand.LIMIT_KEEPER_MILLIS, ownCacheBytes);
      try {
        sleepUntil(marks[2] + (long) (spec.phaseSeconds * 1e9));
        marks[3] = System.nanoTime();
      } finally {
        keeper.close();
        c.limitLowestBytes = keeper.lowestBytes();
        c.limitHighestBytes = keeper.highestBytes();
        c.limitWrites = keeper.writes();
      }
      if (!hog.isAlive()) {
        throw new IllegalStateException("the memory hog died before the end of phase B (exit " + hog.exitValue()
            + "; it is the OOM killer's first victim, so the group ran out of memory)");
      }
    } finally {
      hog.getOutputStream().close();
      hog.destroyForcibly();
      hog.waitFor();
    }
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left; (left = deadline - System.nanoTime()) > 0; ) {
      Thread.sleep(Math.max(1, left / 1_000_000));
    }
  }
}
