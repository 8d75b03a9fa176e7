package dev.pread.bench.raw;

import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.pressure.CacheControl;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.pressure.SteadyState;
import dev.pread.bench.pressure.WorkerFiles;
import dev.pread.bench.report.Results;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Hidden: the pressure regime's child process. The CLI starts it inside a memory cgroup with a
 * small heap; it runs the cells, batches and prefetch distances of a spec and writes them back as
 * JSON.
 *
 * <p>Every strategy is measured in the steady state of a process living under its limit, not in
 * the first seconds after an eviction (when the group still has room and nothing is reclaimed):
 * the file is evicted, the strategy opens afresh and reads (batched, prefetching) until it has
 * read a limit's worth of bytes from storage, so the page cache holds its own pages and every
 * further read reclaims. Each round then measures that strategy's random cells and, for the batch
 * strategies, every batch size, with the cgroup's limit-hit counter read around each.
 */
@Command(name = "worker", hidden = true)
public final class WorkerCommand implements Callable<Integer> {
  /** What the parent asks for. */
  public static final class Spec {
    public String file;
    public long fileSize;
    public int bufferSize;
    public long limit;
    public double warmupCapSeconds;
    public double seconds;
    public int rounds;
    public String[] strategies;
    public int[] readSizes;
    public int[] threads;
    public int[] distances;
    public String[] batchStrategies;
    public int[] batchReadSizes;
    public int[] batches;
    public int batchRounds;
    public double batchSeconds;
    public double distanceSeconds;
    /** dir-cached's block size; its budget is half the limit ({@link CacheSettings#halfOf}). */
    public int cacheBlockSize;
  }

  @Mixin WorkerFiles files = new WorkerFiles();

  @Override
  public Integer call() throws Exception {
    Spec spec = files.readSpec(Spec.class);
    Path file = Path.of(spec.file);
    Results r = new Results();
    for (int rs : spec.readSizes) {
      for (int t : spec.threads) {
        for (String s : spec.strategies) {
          r.cells.add(new Results.Cell("pressure", s, rs, t, spec.rounds));
        }
      }
    }
    List<String> batchStrategies = List.of(spec.batchStrategies);
    r.addBatches("pressure", batchStrategies, spec.batchReadSizes, spec.batches, new boolean[] {true}, spec.batchRounds);
    for (int round = 0; round < spec.rounds; round++) {
      for (int k = 0; k < spec.strategies.length; k++) {
        String s = spec.strategies[(k + round) % spec.strategies.length];
        CacheControl.evict(file);
        try (Strategy strategy = StrategyRegistry.openStrategy(s, file, spec.bufferSize,
            CacheSettings.halfOf(spec.limit, spec.cacheBlockSize))) {
          double warmed = warmUp(strategy, spec, round);
          System.out.printf("pressure %s round %d: warmed up in %.1f s%n", s, round + 1, warmed);
          for (int rs : spec.readSizes) {
            for (int t : spec.threads) {
              Results.Cell cell = r.cell("pressure", s, rs, t);
              ProcStats before = ProcStats.now();
              long hits = MemoryCgroup.ownLimitHits();
              CacheUse.Probe probe = CacheUse.probe(strategy.cache().orElse(null));
              cell.rounds[round] =
                  RandomReadRun.run(strategy, t, rs, spec.fileSize, 0, (long) (spec.seconds * 1000), round * 7919L + rs + t);
              cell.cache = CacheUse.add(cell.cache, probe.done());
              cell.minLimitHits = minHits(cell.minLimitHits, hits, round);
              ProcStats d = ProcStats.now().minus(before);
              cell.majorFaults = Math.max(0, cell.majorFaults) + d.majorFaults();
              cell.storageReadBytes = Math.max(0, cell.storageReadBytes) + d.storageReadBytes();
              System.out.printf("pressure %s %d x%d round %d: %.0f reads/s%n", s, rs, t, round + 1, cell.rounds[round]);
            }
          }
          if (round < spec.batchRounds && batchStrategies.contains(s)) {
            for (int rs : spec.batchReadSizes) {
              for (int j = 0; j < spec.batches.length; j++) {
                int b = spec.batches[(j + round) % spec.batches.length];
                Results.Batch cell = r.batch("pressure", s, rs, b, true);
                long hits = MemoryCgroup.ownLimitHits();
                cell.rounds[round] = BatchPrefetchRun.run(strategy, rs, spec.fileSize, b, true, false,
                    (long) (spec.batchSeconds * 1000), 17L * round + b + rs);
                cell.minLimitHits = minHits(cell.minLimitHits, hits, round);
                System.out.printf("batch cell %s %d B=%d round %d: %.0f reads/s%n", s, rs, b, round + 1, cell.rounds[round]);
              }
            }
          }
        }
      }
    }
    for (int d : spec.distances) {
      CacheControl.evict(file);
      try (Strategy strategy = StrategyRegistry.openStrategy(DIR_PREAD, file, spec.bufferSize)) {
        warmUp(strategy, spec, d);
      }
      PrefetchDistanceRun.Result res = PrefetchDistanceRun.run(file, spec.fileSize, d, spec.distanceSeconds, 42 + d);
      r.prefetchDistance.add(res);
      System.out.printf("prefetch distance %d: %.0f reads/s%n", d, res.readsPerSecond());
    }
    files.writeResults(r);
    return 0;
  }

  /** The new minimum of limit hits, given the counter's value before this round's measurement. */
  private static long minHits(long min, long before, int round) {
    long now = MemoryCgroup.ownLimitHits();
    if (before < 0 || now < 0) {
      return -1;
    }
    long d = now - before;
    return round == 0 || min < 0 ? d : Math.min(min, d);
  }

  /**
   * Reads batches of 16 random 16 KiB blocks, prefetching them, until a limit's worth of bytes
   * came from storage or the cap passed. Returns the seconds it took.
   */
  private static double warmUp(Strategy strategy, Spec spec, long seed) throws Exception {
    return SteadyState.readFromStorage(spec.limit, spec.warmupCapSeconds,
        slice -> BatchPrefetchRun.run(strategy, 16384, spec.fileSize, 16, true, false, 200, 1_000_003L * seed + slice));
  }
}
