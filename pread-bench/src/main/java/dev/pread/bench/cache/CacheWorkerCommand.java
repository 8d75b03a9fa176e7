package dev.pread.bench.cache;

import dev.pread.bench.pressure.CacheControl;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.pressure.SteadyState;
import dev.pread.bench.pressure.WorkerFiles;
import dev.pread.bench.raw.RandomReadRun;
import dev.pread.bench.raw.Strategy;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.report.Results;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Hidden: one strategy's Zipf-skewed random reads in a memory cgroup, started by {@link
 * CachePressureBench}. One JVM per strategy and round: a block cache's memory, once freed, may stay
 * with the C allocator and would be charged to the next strategy's group.
 *
 * <p>The worker evicts the file, opens its strategy (dir-cached with the spec's cache, half the
 * limit), reads with the Zipf pattern, untimed, until a limit's worth came from storage (the
 * steady state, {@link SteadyState}), resets the group's peak, then measures each thread count and
 * reports with each cell its cache's counters and its memory at the end of the cell.
 */
@Command(name = "cache-worker", hidden = true)
public final class CacheWorkerCommand implements Callable<Integer> {
  /** What the parent asks for. */
  static final class Spec {
    String regime;
    String label;
    String strategy;
    String file;
    long fileSize;
    int bufferSize;
    long cacheBudget;
    int cacheBlockSize;
    /** True for a cache without frequency admission (absent from older specs: admission on). */
    boolean cacheNoAdmission;
    long limit;
    long warmupBytes;
    double warmupCapSeconds;
    double seconds;
    int[] threads;
    int readSize;
    double exponent;
    long seed;
  }

  @Mixin WorkerFiles files = new WorkerFiles();

  @Override
  public Integer call() throws Exception {
    Spec spec = files.readSpec(Spec.class);
    Path file = Path.of(spec.file);
    ZipfBlocks zipf = new ZipfBlocks(spec.exponent);
    CacheSettings cache = spec.cacheBudget > 0 ? new CacheSettings(spec.cacheBudget, spec.cacheBlockSize, !spec.cacheNoAdmission) : null;
    Results r = new Results();
    CacheControl.evict(file);
    try (Strategy strategy = StrategyRegistry.openStrategy(spec.strategy, file, spec.bufferSize, cache)) {
      double warmed = SteadyState.readFromStorage(spec.warmupBytes, spec.warmupCapSeconds,
          slice -> RandomReadRun.run(strategy, 1, spec.readSize, spec.fileSize, 0, 200,
              spec.seed * 1_000_003L + slice, zipf));
      System.out.printf("cache pressure %s: warmed up in %.1f s%n", spec.label, warmed);
      MemoryCgroup.resetOwnPeak();
      for (int t : spec.threads) {
        Results.Cell cell = new Results.Cell(spec.regime, spec.label, spec.readSize, t, 1);
        ProcStats before = ProcStats.now();
        long hits = MemoryCgroup.ownLimitHits();
        CacheUse.Probe probe = CacheUse.probe(strategy.cache().orElse(null));
        cell.rounds[0] = RandomReadRun.run(strategy, t, spec.readSize, spec.fileSize, 0, (long) (spec.seconds * 1000),
            spec.seed * 7919L + t, zipf);
        cell.cache = probe.done();
        long hitsAfter = MemoryCgroup.ownLimitHits();
        cell.minLimitHits = hits < 0 || hitsAfter < 0 ? -1 : hitsAfter - hits;
        ProcStats d = ProcStats.now().minus(before);
        cell.majorFaults = d.majorFaults();
        cell.storageReadBytes = d.storageReadBytes();
        cell.memory = MemoryCheck.ownNow();
        if (cell.cache != null) {
          cell.cache.check(spec.label);
        }
        r.cells.add(cell);
        System.out.printf("cache pressure %s x%d: %.0f reads/s%n", spec.label, t, cell.rounds[0]);
      }
    }
    files.writeResults(r);
    return 0;
  }
}
