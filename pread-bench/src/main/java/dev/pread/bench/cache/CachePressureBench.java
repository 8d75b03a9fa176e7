package dev.pread.bench.cache;

import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.WorkerProcess;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.Results;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Zipf-skewed random reads under memory pressure: each candidate (a strategy, and for dir-cached
 * its cache) runs in a child JVM of its own ({@link CacheWorkerCommand}) inside a fresh memory
 * cgroup whose limit is below the file size, once per round, candidates rotated. After each worker
 * the group's peak, limit hits and OOM kills are read; an OOM kill fails the run. Used by {@code
 * ./pread bench} (dir-cached against dir-pread and dir-mmap-random) and by the block-size sweep.
 */
public final class CachePressureBench {
  /** A column of the comparison: a label for the report, a strategy, and dir-cached's cache. */
  public record Candidate(String label, String strategy, CacheSettings cache) {}

  /** What every candidate shares. */
  public static final class Options {
    public String regime = "pressure, Zipf";
    public Path file;
    public long fileSize;
    public long limit;
    public String heap;
    public int bufferSize;
    /** Bytes a worker reads from storage, untimed, before it measures; 0: as many as the file holds. */
    public long warmupBytes;
    public double warmupCapSeconds;
    public double seconds;
    public int rounds;
    public int[] threads;
    public int readSize;
    public double exponent = ZipfBlocks.DEFAULT_EXPONENT;
  }

  private CachePressureBench() {}

  /** Steps {@link #run} reports. */
  public static long steps(Options o, int candidates) {
    return (long) o.rounds * candidates * (1 + o.threads.length);
  }

  public static void run(Results r, Options o, List<Candidate> candidates, Consumer<String> step) throws Exception {
    for (Candidate c : candidates) {
      for (int t : o.threads) {
        r.cells.add(new Results.Cell(o.regime, c.label(), o.readSize, t, o.rounds));
      }
    }
    String where = "";
    for (int round = 0; round < o.rounds; round++) {
      for (int k = 0; k < candidates.size(); k++) {
        Candidate c = candidates.get((k + round) % candidates.size());
        CacheWorkerCommand.Spec spec = new CacheWorkerCommand.Spec();
        spec.regime = o.regime;
        spec.label = c.label();
        spec.strategy = c.strategy();
        spec.file = o.file.toAbsolutePath().toString();
        spec.fileSize = o.fileSize;
        spec.bufferSize = o.bufferSize;
        spec.cacheBudget = c.cache() == null ? 0 : c.cache().budgetBytes();
        spec.cacheBlockSize = c.cache() == null ? 0 : c.cache().blockSize();
        spec.cacheNoAdmission = c.cache() != null && !c.cache().admission();
        spec.limit = o.limit;
        spec.warmupBytes = o.warmupBytes > 0 ? o.warmupBytes : o.fileSize;
        spec.warmupCapSeconds = o.warmupCapSeconds;
        spec.seconds = o.seconds;
        spec.threads = o.threads;
        spec.readSize = o.readSize;
        spec.exponent = o.exponent;
        spec.seed = 101L * round + 7;
        Results w;
        MemoryCheck group;
        try (MemoryCgroup cg = MemoryCgroup.create("pread-bench-z-" + ProcessHandle.current().pid(), o.limit)) {
          where = cg.describe();
          w = WorkerProcess.run("cache-worker", spec, o.heap, cg, line -> line.startsWith("cache pressure "), step);
          group = cg.check();
        }
        for (Results.Cell wc : w.cells) {
          Results.Cell cell = r.cell(o.regime, c.label(), wc.readSize, wc.threads);
          cell.rounds[round] = wc.rounds[0];
          cell.majorFaults = Math.max(0, cell.majorFaults) + Math.max(0, wc.majorFaults);
          cell.storageReadBytes = Math.max(0, cell.storageReadBytes) + Math.max(0, wc.storageReadBytes);
          cell.minLimitHits = round == 0 || cell.minLimitHits < 0 ? wc.minLimitHits : Math.min(cell.minLimitHits, wc.minLimitHits);
          cell.cache = CacheUse.add(cell.cache, wc.cache);
          cell.memory = MemoryCheck.worse(cell.memory, wc.memory.withGroup(group));
          cell.memory.requireNoOom(o.regime + " " + c.label());
        }
      }
    }
    ZipfBlocks zipf = new ZipfBlocks(o.exponent);
    r.regimes.put(o.regime, String.format(Locale.ROOT,
        "one child JVM per strategy and round (heap %s pre-touched, SerialGC), each in a fresh %s, reading the %s"
            + " file at %s (fixed seeds, the same for every strategy); dir-cached's cache is half the limit."
            + " Steady state: the file is evicted, the strategy opens and reads the same pattern, untimed, until"
            + " %s came from storage (cap %.0f s); then the group's peak is reset and %.1f s are"
            + " measured per thread count; %d rounds. The memory table gives each worker's peak charge against the"
            + " limit and its OOM kills (a kill fails the run)",
        o.heap, where, Format.bytes(o.fileSize), zipf.describe(o.readSize, o.fileSize),
        o.warmupBytes > 0 ? Format.bytes(o.warmupBytes) : "the file's size (" + Format.bytes(o.fileSize) + ")",
        o.warmupCapSeconds,
        o.seconds, o.rounds));
  }
}
