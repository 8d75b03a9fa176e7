package dev.pread.bench.lucene;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.pressure.CacheControl;
import dev.pread.bench.pressure.JvmFlags;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.WorkerProcess;
import dev.pread.bench.raw.DataFile;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.Headline;
import dev.pread.bench.report.Results;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;

/**
 * The Lucene-level comparison: the same seeded query mix ({@link QueryMix}) on the same index
 * ({@link BenchIndex}) through each Directory, warm, cold and under a memory limit, at 1 and 2
 * threads. Every query's hits are checked against the reference checksums taken once on
 * MMapDirectory; any difference fails the run.
 */
public final class LuceneBench {

  /** What the CLI asks for. */
  public static final class Options {
    public Path dataDir;
    public long indexSize;
    public Corpus corpus;
    public int mixSize;
    public double warmSeconds;
    public int warmRounds;
    public double coldSeconds;
    public double pressureSeconds;
    public double pressureWarmupCapSeconds;
    public double jitWarmupSeconds;
    public String pressureHeap;
    public long pressureOverhead;
    public int[] threads;
    public List<String> directories = StrategyRegistry.LUCENE_DEFAULT;
    public int cacheBlockSize = dev.pread.cache.BlockCache.DEFAULT_BLOCK_SIZE;
    /** dir-cached's frequency admission. */
    public boolean cacheAdmission = true;
    /**
     * dir-cached's cache under pressure, as a share of the page-cache budget; 0: the budget minus
     * the slack its worker measures ({@link CacheSizing}).
     */
    public double cachePressureShare;
    /** Seconds of each query run (dir-pread, dir-cached) that measures the slack's growth headroom. */
    double growthSeconds = 1;
    /** Changing: seconds of each measured phase, and of the settling after the memory was taken. */
    public double changingSeconds = 5;
    public double changingSettleSeconds = 10;
    public boolean warm;
    public boolean cold;
    public boolean pressure;
    public boolean changing;
  }

  private LuceneBench() {}

  /** Number of steps {@link #run} reports to its progress callback. */
  public static long steps(Options o) {
    long perRegime = (long) o.directories.size() * o.threads.length;
    return 2 + (o.warm ? perRegime * o.warmRounds : 0) + (o.cold ? perRegime : 0) + (o.pressure ? perRegime : 0)
        + (o.changing ? perRegime : 0);
  }

  public static void run(Results r, Options o, Consumer<String> step) throws Exception {
    step.accept("lucene: index");
    Path index = BenchIndex.ensure(o.dataDir, o.corpus, o.indexSize);
    long indexBytes = BenchIndex.sizeOf(index);
    r.lucene = new Results.Lucene();
    r.lucene.index = index.toString();
    r.lucene.indexBytes = indexBytes;
    r.lucene.corpus = o.corpus.describe();
    QueryMix mix;
    long[] reference;
    step.accept("lucene: query mix and reference checksums");
    try (Directory d = StrategyRegistry.openDirectory(StrategyRegistry.DIR_MMAP, index); DirectoryReader reader = DirectoryReader.open(d)) {
      r.lucene.docs = reader.numDocs();
      r.lucene.segments = reader.leaves().size();
      mix = QueryMix.build(reader, o.mixSize, 42);
      reference = QueryRun.reference(new IndexSearcher(reader), mix);
    }
    r.lucene.mixSize = mix.size();
    long budget = indexBytes / 4;
    Optional<String> noCgroup = o.pressure || o.changing ? MemoryCgroup.unavailableReason() : Optional.empty();
    if (noCgroup.isPresent()) {
      r.skipped.add("lucene pressure and changing regimes: " + noCgroup.get());
    }
    List<String> regimes = new ArrayList<>();
    if (o.warm) {
      regimes.add("warm");
      r.regimes.put("lucene warm", String.format(Locale.ROOT, "every index file is read right before each cell"
          + " (dir-cached: through the Directory into its block cache, which holds the whole index; no other"
          + " Directory, dir-adaptive included, gets more than the page cache);"
          + " 0.5 s of queries as warm-up, then %.1f s measured; %d round(s), Directories rotated", o.warmSeconds,
          o.warmRounds));
    }
    if (o.cold) {
      regimes.add("cold");
      r.regimes.put("lucene cold", String.format(Locale.ROOT, "the page cache is dropped by %s before each cell;"
          + " the Directory and reader open after the drop; the first %.1f s of queries are measured",
          CacheControl.method(), o.coldSeconds));
    }
    if (o.pressure && noCgroup.isEmpty()) {
      regimes.add("pressure");
    }
    if (o.changing && noCgroup.isEmpty()) {
      regimes.add("changing");
    }
    long hits = 0;
    long minCache = Long.MAX_VALUE;
    long maxCache = 0;
    String where = "";
    for (String regime : regimes) {
      int rounds = regime.equals("warm") ? o.warmRounds : 1;
      boolean limited = regime.equals("pressure") || regime.equals("changing");
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < o.directories.size(); k++) {
          String name = o.directories.get((k + round) % o.directories.size());
          QueryWorkerCommand.Spec spec = new QueryWorkerCommand.Spec();
          spec.index = index.toAbsolutePath().toString();
          spec.regime = regime;
          spec.directory = name;
          spec.threads = o.threads;
          spec.seconds = switch (regime) {
            case "warm" -> o.warmSeconds;
            case "cold" -> o.coldSeconds;
            default -> o.pressureSeconds;
          };
          spec.firstQuery = round * 997;
          spec.jitWarmupSeconds = o.jitWarmupSeconds;
          spec.warmupCapSeconds = o.pressureWarmupCapSeconds;
          spec.warmupBytes = budget;
          spec.pageCacheBudget = budget;
          spec.mixSize = mix.size();
          spec.mixFingerprint = mix.fingerprint();
          spec.reference = reference;
          CacheSettings cache = cacheFor(regime, indexBytes, budget, o.cacheBlockSize);
          spec.cacheBudget = cache.budgetBytes();
          spec.cacheBlockSize = cache.blockSize();
          spec.cacheNoAdmission = !o.cacheAdmission;
          spec.cacheShare = o.cachePressureShare;
          spec.growthSeconds = o.growthSeconds;
          spec.indexBytes = indexBytes;
          spec.phaseSeconds = o.changingSeconds;
          spec.settleSeconds = o.changingSettleSeconds;
          Results w;
          MemoryCheck group = null;
          if (limited) {
            // Loose at first, with room for the whole index, so that the compile phase is the same for
            // every Directory (an adaptive one reads its mappings); the worker sets the limit itself once
            // it knows its own footprint.
            long limit = Format.parseBytes(o.pressureHeap) + o.pressureOverhead
                + indexBytes * 3 / 2;
            try (MemoryCgroup cg = MemoryCgroup.create("pread-bench-q-" + ProcessHandle.current().pid(), limit)) {
              where = cg.describe().replaceFirst(", limit .*", "");
              try {
                w = WorkerProcess.run("query-worker", spec, o.pressureHeap, cg, LuceneBench::isProgress, step);
                hits += Math.max(0, cg.limitHits());
                group = cg.check();
                group.requireNoOom("lucene " + regime + " " + name);
              } catch (IllegalStateException e) {
                String why = failureReason(e);
                step.accept("lucene " + regime + " " + name + " FAILED: " + why);
                r.skipped.add("lucene " + regime + ", " + name + ": FAILED, the run went on: " + why);
                for (int t : o.threads) {
                  Results.QueryCell failed = new Results.QueryCell(regime, name, t, rounds);
                  failed.failure = why;
                  r.queryCells.add(failed);
                  if (regime.equals("changing")) {
                    Results.Changing c = new Results.Changing();
                    c.directory = name;
                    c.threads = t;
                    c.indexBytes = indexBytes;
                    c.failure = why;
                    r.changing.add(c);
                  }
                }
                continue;
              } finally {
                cg.killAll(); // a worker killed mid-run leaves its memory hog behind
              }
            }
          } else {
            w = WorkerProcess.run("query-worker", spec, "1g", null, LuceneBench::isProgress, step);
          }
          for (Results.QueryCell c : w.queryCells) {
            Results.QueryCell mine = r.queryCell(regime, name, c.threads);
            if (mine == null) {
              mine = new Results.QueryCell(regime, name, c.threads, rounds);
              r.queryCells.add(mine);
            }
            mine.qps[round] = c.qps[0];
            mine.p50Micros[round] = c.p50Micros[0];
            mine.p99Micros[round] = c.p99Micros[0];
            mine.queries += c.queries;
            mine.majorFaults = Math.max(0, mine.majorFaults) + Math.max(0, c.majorFaults);
            mine.storageReadBytes = Math.max(0, mine.storageReadBytes) + Math.max(0, c.storageReadBytes);
            mine.pageCacheBytes = c.pageCacheBytes;
            mine.cache = CacheUse.add(mine.cache, c.cache);
            if (group != null && c.memory != null) {
              MemoryCheck m = c.memory.withGroup(group);
              m.limitBytes = w.lucene != null && w.lucene.pressureLimit > 0 ? w.lucene.pressureLimit : m.limitBytes;
              mine.memory = MemoryCheck.worse(mine.memory, m);
              mine.memory.requireNoOom("lucene " + regime + " " + name);
            }
            Results.QueryCell target = mine;
            c.meanMicrosByKind.forEach((kind, v) -> target.meanMicrosByKind.merge(kind, v / rounds, Double::sum));
            if (regime.equals("pressure") && c.pageCacheBytes >= 0) {
              minCache = Math.min(minCache, c.pageCacheBytes);
              maxCache = Math.max(maxCache, c.pageCacheBytes);
            }
          }
          r.changing.addAll(w.changing);
          if (w.lucene != null && w.lucene.pressureLimit > 0) {
            r.lucene.pressureLimit = w.lucene.pressureLimit;
            r.lucene.pressureOtherBytes = w.lucene.pressureOtherBytes;
          }
          if (w.lucene != null && w.lucene.cachedSizing != null) {
            r.lucene.cachedPressureBytes = w.lucene.cachedPressureBytes;
            r.lucene.cachedSlackBytes = w.lucene.cachedSlackBytes;
            r.lucene.slackFileBytes = w.lucene.slackFileBytes;
            r.lucene.slackGrowthBytes = w.lucene.slackGrowthBytes;
            r.lucene.cachedSizing = w.lucene.cachedSizing;
          }
        }
      }
    }
    if (regimes.contains("pressure")) {
      r.regimes.put("lucene pressure", String.format(Locale.ROOT, "a child JVM per Directory (heap %s pre-touched,"
          + " SerialGC) in a memory cgroup (%s). After compiling its query paths (%.1f s of queries, with room"
          + " for the whole index in the group), the worker evicts the index, sets the limit to what it holds besides page cache plus a page-cache budget of a"
          + " quarter of the %s index (%s), reopens the Directory and runs queries untimed until the budget's worth"
          + " was read from storage (cap %.0f s). Then it sets the limit again, to the median of what it holds besides"
          + " page cache over a further quarter of that warm-up (sampled every 10 ms; the blocks of a cache of our own"
          + " count inside the budget) plus the budget, so that every Directory gets the budget beside its"
          + " steady-state memory rather than beside what it held after compiling (a Directory that took another read"
          + " path under the limit compiled it in the warm-up), runs another quarter of the warm-up, and measures"
          + " %.1f s per thread count. Held besides page cache: %s in"
          + " the last worker; the groups hit their limits %d times; page cache charged at the end of the cells:"
          + " %s to %s."
          + " dir-adaptive gets no size from the bench: it sizes itself from the cgroup."
          + " dir-cached reads with O_DIRECT into a block cache inside the same limit: %s. %s",
          o.pressureHeap, where, o.jitWarmupSeconds, Format.size(indexBytes), Format.size(budget),
          o.pressureWarmupCapSeconds, o.pressureSeconds, Format.size(r.lucene.pressureOtherBytes), hits,
          minCache == Long.MAX_VALUE ? "?" : Format.size(minCache), minCache == Long.MAX_VALUE ? "?" : Format.size(maxCache),
          r.lucene.cachedSizing == null ? "did not run" : r.lucene.cachedSizing, slackMethod(o)));
    }
    if (regimes.contains("changing")) {
      r.regimes.put("lucene changing", String.format(Locale.ROOT, "changing memory: a child JVM per Directory (heap"
          + " %s pre-touched, SerialGC) in a memory cgroup (%s). After compiling its query paths, the worker evicts"
          + " the index and sets the limit to what it holds besides page cache plus 1.5 times the %s index. Per"
          + " thread count: every index file is read (warm), 0.5 s of queries, then queries run without pause:"
          + " phase A (%.1f s, the index fits); a second process in the same group (memory-hog) takes 1.25 times the"
          + " index of anonymous memory, leaving a quarter of the index to page cache; %.1f s of settling after it"
          + " holds its memory; phase B (%.1f s, the index does not fit); the hog is killed. QPS and p99 per %.0f s"
          + " interval; the stall is the longest stretch with no completed query. dir-adaptive gets no size: it"
          + " sizes itself from the cgroup. dir-cached's cache is sized for phase B (a quarter of the index minus"
          + " the slack, measured as under pressure: %s), since a cache cannot give memory back. Headline cell:"
          + " phase B", o.pressureHeap, where, Format.size(indexBytes), o.changingSeconds, o.changingSettleSeconds,
          o.changingSeconds, ChangingRun.INTERVAL_SECONDS, slackMethod(o)));
    }
    r.headline = Headline.compute(r.queryCells);
    changingRatios(r.changing);
    r.legend = legend(o, indexBytes, r.lucene);
  }

  /** How dir-cached's slack is measured, in words. */
  private static String slackMethod(Options o) {
    if (o.cachePressureShare > 0) {
      return String.format(Locale.ROOT, "its cache is %.2f of the page-cache budget (--cache-pressure-share), the"
          + " slack not measured", o.cachePressureShare);
    }
    return String.format(Locale.ROOT, "slack = the JVM's own file pages charged to the group right after the index"
        + " was evicted (its libraries, class data archive and jar; they compete with the index as page cache)"
        + " + growth headroom, the largest growth of the memory charged besides page cache (cgroup usage minus file:"
        + " anonymous and kernel memory), sampled every %d ms during %.1f s of queries at %d threads after the"
        + " query paths were compiled and before the cache fills: the larger of a run on dir-pread and one on"
        + " dir-cached with a small cache, its resident blocks left out", CacheSizing.SAMPLE_MILLIS,
        o.growthSeconds, java.util.Arrays.stream(o.threads).max().orElse(1));
  }

  /**
   * The first line of a failed worker's message, with the lines the worker printed about why
   * ("changing failed: ...") and about its memory ("sizing: ..."), when it printed them.
   */
  static String failureReason(Exception e) {
    String msg = String.valueOf(e.getMessage());
    StringBuilder sb = new StringBuilder(msg.lines().findFirst().orElse(msg).replaceFirst(":$", ""));
    msg.lines().filter(l -> l.startsWith("changing failed: ") || l.startsWith("sizing: "))
        .forEach(l -> sb.append("; ").append(l));
    return sb.toString();
  }

  /** Sets each changing run's ratios to the best alternative's phase A and phase B QPS at its thread count. */
  static void changingRatios(List<Results.Changing> runs) {
    for (Results.Changing c : runs) {
      if (c.failure != null) {
        continue;
      }
      for (Results.Changing alt : runs) {
        if (alt.failure != null || alt.threads != c.threads || !Headline.ALTERNATIVES.contains(alt.directory)) {
          continue;
        }
        if (c.bestA == null || alt.qpsA > bestOf(runs, c.bestA, c.threads).qpsA) {
          c.bestA = alt.directory;
        }
        if (c.bestB == null || alt.qpsB > bestOf(runs, c.bestB, c.threads).qpsB) {
          c.bestB = alt.directory;
        }
      }
      if (c.bestA != null) {
        c.ratioA = c.qpsA / bestOf(runs, c.bestA, c.threads).qpsA;
        c.ratioB = c.qpsB / bestOf(runs, c.bestB, c.threads).qpsB;
      }
    }
  }

  private static Results.Changing bestOf(List<Results.Changing> runs, String dir, int threads) {
    return runs.stream().filter(x -> x.directory.equals(dir) && x.threads == threads).findFirst().orElseThrow();
  }

  /** What each Directory name of the run stands for: class, configuration, JVM flags. */
  static List<Results.Legend> legend(Options o, long indexBytes, Results.Lucene lucene) {
    String flags = String.format(Locale.ROOT, "%s; heap %s (warm, cold), %s (pressure, changing)",
        JvmFlags.describeWorker("<heap>"), "1g", o.pressureHeap);
    List<Results.Legend> rows = new ArrayList<>();
    StrategyRegistry.LegendContext context = new StrategyRegistry.LegendContext(o.cacheBlockSize, o.cacheAdmission,
        indexBytes, lucene.cachedSizing);
    for (String name : o.directories) {
      Results.Legend row = new Results.Legend(name, StrategyRegistry.className(name),
          StrategyRegistry.configuration(name, context), flags);
      rows.add(row);
    }
    return rows;
  }

  /**
   * dir-cached's cache in a regime: warm and cold, one that holds the whole index; under pressure
   * and changing memory, half the page-cache budget for the compile phase only (the worker then
   * sizes it: {@link CacheSizing}).
   */
  static CacheSettings cacheFor(String regime, long indexBytes, long pageCacheBudget, int blockSize) {
    if (regime.equals("pressure") || regime.equals("changing")) {
      long bytes = pageCacheBudget / 2 / blockSize * blockSize;
      return new CacheSettings(Math.max(blockSize, bytes), blockSize);
    }
    return CacheSettings.holding(indexBytes, blockSize);
  }

  private static boolean isProgress(String line) {
    return line.startsWith("lucene ") && line.contains(" QPS");
  }

  /** Reads every file of the index, so that the warm regime is warm (this VM evicts idle cache). */
  static void warmFiles(Path index) throws IOException {
    try (Stream<Path> files = Files.list(index)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (Files.isRegularFile(p)) {
          DataFile.warm(p);
        }
      }
    }
  }

  static void evict(Path index) throws IOException {
    try (Stream<Path> files = Files.list(index)) {
      List<Path> all = files.filter(Files::isRegularFile).toList();
      boolean first = true;
      for (Path p : all) {
        if (first) {
          CacheControl.evict(p); // drop_caches as root: the whole cache at once
          first = false;
        } else if (!CacheControl.canDropCaches()) {
          CacheControl.evict(p);
        }
      }
    }
  }
}
