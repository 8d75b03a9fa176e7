package dev.pread.bench.lucene;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.pressure.CacheControl;
import dev.pread.bench.pressure.DeviceScheduler;
import dev.pread.bench.pressure.DirtyLimit;
import dev.pread.bench.pressure.IoThrottle;
import dev.pread.bench.pressure.JvmFlags;
import dev.pread.bench.pressure.LimitKeeper;
import dev.pread.bench.pressure.LiveWorker;
import dev.pread.bench.pressure.MachineQuiet;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.WorkerProcess;
import dev.pread.bench.raw.DataFile;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.report.DisturbedResult;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.Headline;
import dev.pread.bench.report.Results;
import dev.pread.store.AdaptiveDirectory;
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
    /**
     * Rounds of the pressure regime: a worker per Directory and round, Directories rotated, the
     * headline a median of per-round ratios. One window under a limit moves by a tenth or more
     * between workers (the device, the kernel's reclaim), more than the goals' margins.
     */
    public int pressureRounds = 1;
    public double coldSeconds;
    public double pressureSeconds;
    public double pressureWarmupCapSeconds;
    /** The cap on a pressure-like worker's wait for its JIT compiler to fall quiet before it measures. */
    public double settleCapSeconds;
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
    /** The regimes operators live with: a capped disk, a merge during search, a noisy neighbour. */
    public boolean throttled;
    public boolean merge;
    public boolean neighbour;
    /** Restart: a JVM that served the index stops, a new one opens it (page cache kept, then dropped). */
    public boolean restart;
    /** Restart: its Directories (null: those of the other regimes), and the seconds measured after the open. */
    public List<String> restartDirectories;
    public double restartSeconds = 30;
    /** Their Directories and thread counts; null: those of the other regimes. */
    public List<String> operatorDirectories;
    public int[] operatorThreads;
    /** Merge and neighbour: seconds before, the longest the disturbance runs, seconds after. */
    public double disturbedBeforeSeconds = 3;
    public double neighbourSeconds = 8;
    public double mergeCapSeconds = 120;
    public double disturbedAfterSeconds = 8;
    /**
     * Merge: the bulk-indexing load after the force-merge through the same Directory, its seconds
     * (0: none; measured before and after as the merge is) and its rate in characters of source
     * text a second ({@link Double#POSITIVE_INFINITY}: as fast as its thread indexes; 0: none).
     */
    public double indexingSeconds = 20;
    public double indexingCharsPerSecond = Double.POSITIVE_INFINITY;
    /** Merge: the nice value of the indexing load's writer thread (0: the worker's own). */
    public int indexingNice;

    /** Whether the merge regime's workers run the bulk-indexing load after their merge. */
    boolean indexing() {
      return indexingSeconds > 0 && indexingCharsPerSecond > 0;
    }
    /** Neighbour: the size of the file it streams. */
    public long neighbourFileBytes = 1L << 30;
    /** The neighbour reads in the idle I/O class ({@code ionice -c3}). */
    public boolean neighbourIdle;
    /** The disk's I/O scheduler during throttled, merge and neighbour, or null for the disk's own (see {@link DeviceScheduler}). */
    public String operatorsScheduler = "bfq";
    /** Throttled: the read caps, a common general-purpose cloud volume's. */
    public long throttleIops = 3000;
    public long throttleBytesPerSecond = 125_000_000L;

    /** The Directories of {@code regime}. */
    List<String> directoriesOf(String regime) {
      return isOperatorRegime(regime) && operatorDirectories != null ? operatorDirectories : directories;
    }

    /** The thread counts of {@code regime}. */
    int[] threadsOf(String regime) {
      return isOperatorRegime(regime) && operatorThreads != null ? operatorThreads : threads;
    }
  }

  /** The machine's dirty page limit during the merge regime on cgroup v1 (see {@link DirtyLimit}). */
  static final long MERGE_DIRTY_BYTES = 16L << 20;

  /** The regimes run with the disk on {@link Options#operatorsScheduler}: those under the pressure limit that disturb it. */
  static final List<String> SCHEDULED_REGIMES = List.of("throttled", "merge", "neighbour");

  /** Whether {@code regime} is one of the operators' regimes (throttled, merge, neighbour, restart). */
  static boolean isOperatorRegime(String regime) {
    return SCHEDULED_REGIMES.contains(regime) || regime.equals("restart");
  }

  /** The heap of the workers without a memory limit: warm, cold and restart. */
  private static final String UNLIMITED_HEAP = "1g";

  private LuceneBench() {}

  /**
   * Number of steps {@link #run} reports to its progress callback: the index, the mix, the
   * neighbour's file, and a step per worker.
   */
  public static long steps(Options o) {
    long perRegime = (long) o.directories.size() * o.threads.length;
    long perOperatorRegime = (long) o.directoriesOf("merge").size() * o.threadsOf("merge").length;
    return 2 + (o.neighbour ? 1 : 0) + (o.warm ? perRegime * o.warmRounds : 0) + (o.cold ? perRegime : 0) + (o.pressure ? perRegime * o.pressureRounds : 0)
        + (o.changing ? perRegime : 0)
        + perOperatorRegime * ((o.throttled ? 1 : 0) + (o.merge ? 1 : 0) + (o.neighbour ? 1 : 0))
        + (o.restart ? 3L * (o.restartDirectories != null ? o.restartDirectories : o.directories).size()
            * o.threadsOf("restart").length : 0);
  }

  public static void run(Results r, Options o, Consumer<String> step) throws Exception {
    boolean anyLimited = o.pressure || o.changing || o.throttled || o.merge || o.neighbour;
    Optional<String> noCgroup = anyLimited ? MemoryCgroup.unavailableReason() : Optional.empty();
    // The raw section's data file when it has the size asked for (the default run's and --full's):
    // one file written, not two. Written beside the index build, which runs on one thread.
    Path neighbourFile = dev.pread.bench.jmh.BenchFiles.dataFile(o.dataDir, o.neighbourFileBytes);
    java.util.concurrent.FutureTask<Void> neighbourWrite = null;
    if (o.neighbour && noCgroup.isEmpty()) {
      neighbourWrite = new java.util.concurrent.FutureTask<>(() -> {
        DataFile.ensure(neighbourFile, o.neighbourFileBytes);
        return null;
      });
      Thread.ofPlatform().name("neighbour-file").daemon().start(neighbourWrite);
    }
    step.accept("lucene: index");
    Path index = BenchIndex.ensure(o.dataDir, o.corpus, o.indexSize);
    long indexBytes = BenchIndex.committedSizeOf(index);
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
    r.lucene.mixFingerprint = mix.fingerprint();
    long budget = indexBytes / 4;
    if (noCgroup.isPresent()) {
      r.skipped.add("lucene regimes under a memory limit (pressure, changing, throttled, merge, neighbour): "
          + noCgroup.get());
    }
    Optional<String> noThrottle = o.throttled && noCgroup.isEmpty()
        ? IoThrottle.unavailableReason(IoThrottle.CGROUP_ROOT, IoThrottle.SYS_DEV_BLOCK, index)
        : Optional.empty();
    if (noThrottle.isPresent()) {
      r.skipped.add("lucene throttled: " + noThrottle.get());
    }
    if (neighbourWrite != null) {
      step.accept("lucene: the neighbour's file");
      try {
        neighbourWrite.get();
      } catch (java.util.concurrent.ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          throw new IOException("writing the neighbour's file " + neighbourFile + ": " + io.getMessage(), io);
        }
        throw e;
      }
    }
    List<String> regimes = new ArrayList<>();
    if (o.warm) {
      regimes.add("warm");
      r.regimes.put("lucene warm", String.format(Locale.ROOT, "a worker JVM per Directory stays up for the"
          + " warm and cold regimes; the workers compile one after another, then their cells interleave: per round"
          + " and thread count each Directory in turn (order rotated by round) runs the same queries. Every index file is"
          + " read right before each cell (dir-cached: through the Directory into its block cache, which holds"
          + " the whole index; no other Directory, dir-adaptive included, gets more than the page cache);"
          + " %.1f s of queries as warm-up, then %.1f s measured; %d rounds, the headline the median of"
          + " per-round ratios", QueryWorkerCommand.WARM_UP_MILLIS / 1000.0, o.warmSeconds, o.warmRounds));
    }
    if (o.cold) {
      regimes.add("cold");
      r.regimes.put("lucene cold", String.format(Locale.ROOT, "the warm regime's workers (compiled) run the"
          + " cold cells after every worker closed its warm Directory: per thread count each Directory in turn."
          + " The page cache is dropped by %s before each cell;"
          + " the Directory and reader open after the drop, and the first %.1f s from the open are measured: the"
          + " open's time and reads count, and the queries run for the rest of the window",
          CacheControl.method(), o.coldSeconds));
    }
    if (o.pressure && noCgroup.isEmpty()) {
      regimes.add("pressure");
    }
    if (o.changing && noCgroup.isEmpty()) {
      regimes.add("changing");
    }
    if (o.throttled && noCgroup.isEmpty() && noThrottle.isEmpty()) {
      regimes.add("throttled");
    }
    if (o.merge && noCgroup.isEmpty()) {
      regimes.add("merge");
    }
    if (o.neighbour && noCgroup.isEmpty()) {
      regimes.add("neighbour");
    }
    List<String> live = regimes.stream().filter(x -> x.equals("warm") || x.equals("cold")).toList();
    if (!live.isEmpty()) {
      runInterleaved(r, o, live, name -> {
        QueryWorkerCommand.Spec spec = spec(o, "warm", name, index, indexBytes, budget, mix, reference);
        spec.regime = QueryWorkerCommand.LIVE;
        spec.coldSeconds = o.coldSeconds;
        return spec;
      }, step);
    }
    long hits = 0;
    long minCache = Long.MAX_VALUE;
    long maxCache = 0;
    String where = "";
    // The other regimes: a worker JVM per Directory and round, each in a memory cgroup of its own.
    for (String regime : regimes.stream().filter(x -> !live.contains(x)).toList()) {
      int rounds = regime.equals("pressure") ? o.pressureRounds : 1;

      List<String> dirs = o.directoriesOf(regime);
      int[] threads = o.threadsOf(regime);
      DirtyLimit dirty = regime.equals("merge") ? DirtyLimit.lowerOnV1(MERGE_DIRTY_BYTES) : null;
      if (dirty != null) {
        r.lucene.mergeDirtyLimit = DirtyLimit.describe(MERGE_DIRTY_BYTES);
      }
      DeviceScheduler scheduler = null;
      if (SCHEDULED_REGIMES.contains(regime)) {
        String own = DeviceScheduler.current(index);
        r.lucene.operatorsScheduler = own + " (the disk's own)";
        if (o.operatorsScheduler != null && !o.operatorsScheduler.equals(own)) {
          try {
            scheduler = DeviceScheduler.setFor(index, o.operatorsScheduler);
            r.lucene.operatorsScheduler = o.operatorsScheduler + " (set for these regimes, the disk's own " + own
                + " restored after each)";
          } catch (IOException e) {
            r.lucene.operatorsScheduler += "; " + o.operatorsScheduler + " could not be set: " + e.getMessage();
            System.err.println("lucene " + regime + ": runs under " + r.lucene.operatorsScheduler);
          }
        }
      }
      try {
        for (int round = 0; round < rounds; round++) {
          for (int k = 0; k < dirs.size(); k++) {
            String name = dirs.get((k + round) % dirs.size());
            for (int[] workerThreads : workerThreads(regime, threads)) {
              // Regimes other than restart measure a Directory without a hot-set record of an earlier worker.
              deleteHotSet(index);
              QueryWorkerCommand.Spec spec = spec(o, regime, name, index, indexBytes, budget, mix, reference);
              spec.threads = workerThreads;
              spec.firstQuery = round * 997;
              spec.settleSeconds = o.changingSettleSeconds;
              if (regime.equals("merge") || regime.equals("neighbour")) {
                spec.phaseSeconds = o.disturbedBeforeSeconds;
                spec.duringSeconds = regime.equals("merge") ? o.mergeCapSeconds : o.neighbourSeconds;
                spec.afterSeconds = o.disturbedAfterSeconds;
                spec.neighbourFile = neighbourFile.toAbsolutePath().toString();
                spec.neighbourIdle = o.neighbourIdle;
              }
              if (regime.equals("merge")) {
                spec.indexingSeconds = o.indexing() ? o.indexingSeconds : 0;
                // JSON has no infinity: 0 in the spec is no rate cap
                spec.indexingCharsPerSecond = Double.isInfinite(o.indexingCharsPerSecond) ? 0 : o.indexingCharsPerSecond;
                spec.corpusGenerated = o.corpus.isGenerated();
                spec.indexingNice = o.indexingNice;
              }
              Results w;
              MemoryCheck group = null;
              // Loose at first, with room for the whole index, so that the compile phase is the same for
              // every Directory (an adaptive one reads its mappings); the worker sets the limit itself once
              // it knows its own footprint.
              long limit = Format.parseBytes(o.pressureHeap) + o.pressureOverhead
                  + indexBytes * 3 / 2;
              try (MemoryCgroup cg = MemoryCgroup.create("pread-bench-q-" + ProcessHandle.current().pid(), limit);
                  IoThrottle io = regime.equals("throttled")
                      ? IoThrottle.create(IoThrottle.CGROUP_ROOT, IoThrottle.SYS_DEV_BLOCK,
                          "pread-bench-io-" + ProcessHandle.current().pid(), index, o.throttleIops,
                          o.throttleBytesPerSecond, cg.dir())
                      : null) {
                where = cg.describe().replaceFirst(", limit .*", "");
                if (io != null) {
                  r.lucene.throttle = io.describe();
                }
                try {
                  w = WorkerProcess.run("query-worker", spec, o.pressureHeap, cg, io, LuceneBench::isProgress, step);
                  hits += Math.max(0, cg.limitHits());
                  group = cg.check();
                  group.requireNoOom("lucene " + regime + " " + name);
                } catch (IllegalStateException e) {
                  String why = failureReason(e);
                  step.accept("lucene " + regime + " " + name + " FAILED: " + why);
                  r.skipped.add("lucene " + regime + ", " + name + ": FAILED, the run went on: " + why);
                  for (int t : workerThreads) {
                    if (regime.equals("merge") || regime.equals("neighbour")) {
                      for (String ran : regime.equals("merge") && o.indexing()
                          ? List.of("merge", "indexing") : List.of(regime)) {
                        DisturbedResult d = new DisturbedResult();
                        d.regime = ran;
                        d.directory = name;
                        d.threads = t;
                        d.failure = why;
                        r.disturbed.add(d);
                      }
                      continue;
                    }
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
              for (Results.QueryCell c : w.queryCells) {
                Results.QueryCell mine = addRound(r, regime, name, round, rounds, c);
                if (group != null && c.memory != null) {
                  MemoryCheck m = c.memory.withGroup(group);
                  m.limitBytes = w.lucene != null && w.lucene.pressureLimit > 0 ? w.lucene.pressureLimit : m.limitBytes;
                  mine.memory = MemoryCheck.worse(mine.memory, m);
                  mine.memory.requireNoOom("lucene " + regime + " " + name);
                }
                if (regime.equals("pressure") && c.pageCacheBytes >= 0) {
                  minCache = Math.min(minCache, c.pageCacheBytes);
                  maxCache = Math.max(maxCache, c.pageCacheBytes);
                }
              }
              r.changing.addAll(w.changing);
              for (DisturbedResult d : w.disturbed) {
                if (group != null && d.memory != null) {
                  d.memory = d.memory.withGroup(group);
                  d.memory.requireNoOom("lucene " + regime + " " + name);
                }
                r.disturbed.add(d);
              }
              if (w.lucene != null && w.lucene.settleSeconds >= 0) {
                r.lucene.settles.computeIfAbsent(regime, key -> new java.util.ArrayList<>()).add(String.format(Locale.ROOT,
                    "%s %.1f s%s", name, w.lucene.settleSeconds, w.lucene.settleQuiet ? "" : " (not quiet at the cap)"));
              }
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
      } finally {
        if (dirty != null) {
          dirty.close();
        }
        if (scheduler != null) {
          scheduler.close();
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
          + " path under the limit compiled it in the warm-up), runs another quarter of the warm-up,%s and measures"
          + " %.1f s per thread count; %d round(s), Directories rotated. While a cell runs, the page cache stays at"
          + " the budget: every %d ms the worker sets the limit to what it holds besides page cache (the blocks of a"
          + " cache of our own inside the budget) plus the budget, when that moved by 1 MiB or more, since what a JVM"
          + " holds moves after the limit is set (the JIT's arenas, the C library's free lists) and under a fixed"
          + " limit each MiB it grows is a MiB of page cache less for that Directory alone; %s. Held besides page cache: %s in"
          + " the last worker; the groups hit their limits %d times; page cache charged at the end of the cells:"
          + " %s to %s."
          + " dir-adaptive gets no size from the bench: it sizes itself from the cgroup."
          + " dir-cached reads with O_DIRECT into a block cache inside the same limit: %s. %s",
          o.pressureHeap, where, o.jitWarmupSeconds, Format.size(indexBytes), Format.size(budget),
          o.pressureWarmupCapSeconds, settleSentence(o, r),
          o.pressureSeconds, o.pressureRounds, QueryWorkerCommand.LIMIT_KEEPER_MILLIS,
          limitMoves(r, "pressure"), Format.size(r.lucene.pressureOtherBytes), hits,
          minCache == Long.MAX_VALUE ? "?" : Format.size(minCache), minCache == Long.MAX_VALUE ? "?" : Format.size(maxCache),
          r.lucene.cachedSizing == null ? "did not run" : r.lucene.cachedSizing, slackMethod(o)));
    }
    if (regimes.contains("changing")) {
      r.regimes.put("lucene changing", String.format(Locale.ROOT, "changing memory: a child JVM per Directory and"
          + " thread count (heap %s pre-touched, SerialGC), so that phase A is a node's start, in a memory cgroup (%s)."
          + " After compiling its query paths, the worker evicts the index and sets the limit to what it holds besides"
          + " page cache plus 1.5 times the %s index; every index file is read (warm), 0.5 s of queries, then queries"
          + " run without pause:"
          + " phase A (%.1f s, the index fits); a second process in the same group (memory-hog) takes 1.25 times the"
          + " index of anonymous memory, leaving a quarter of the index to page cache; %.1f s of settling after it"
          + " holds its memory; phase B (%.1f s, the index does not fit); the hog is killed. From the moment the hog"
          + " holds its memory to the end of phase B the page cache stays at a quarter of the index, as under"
          + " pressure (the limit follows what the worker holds besides page cache, the blocks of a cache of our own"
          + " inside that quarter); each thread count starts from the same limit. QPS and p99 per %.0f s"
          + " interval; the stall is the longest stretch with no completed query. dir-adaptive gets no size: it"
          + " sizes itself from the cgroup. dir-cached's cache is sized for phase B (a quarter of the index minus"
          + " the slack, measured as under pressure: %s), since a cache cannot give memory back. Headline cell:"
          + " phase B", o.pressureHeap, where, Format.size(indexBytes), o.changingSeconds, o.changingSettleSeconds,
          o.changingSeconds, ChangingRun.INTERVAL_SECONDS, slackMethod(o)));
    }
    if (o.restart) {
      runRestart(r, o, index, indexBytes, mix, reference, step);
    }
    String operatorDirs = String.join(", ", o.directoriesOf("merge"));
    String operatorThreads = java.util.Arrays.toString(o.threadsOf("merge"));
    if (regimes.contains("throttled")) {
      r.regimes.put("lucene throttled", String.format(Locale.ROOT, "the pressure regime (the same limit and budget,"
          + " set up the same way, the page cache kept at the budget the same way; %s; %s) with the worker also in an I/O"
          + " cgroup that caps the reads of the index's disk"
          + " like a general-purpose cloud volume: %s. Device reads per query are the group's own reads of that"
          + " disk. Directories: %s; threads %s", limitMoves(r, "throttled"), settles(r, "throttled"), r.lucene.throttle,
          operatorDirs, operatorThreads));
    }
    if (regimes.contains("merge")) {
      r.regimes.put("lucene merge", String.format(Locale.ROOT, "search during a merge, under the pressure regime's"
          + " limit (set up the same way, the page cache kept at the budget the same way; %s). Per thread count, queries run without pause: %.1f s before; then another"
          + " thread opens an IndexWriter on the same index through the same Directory and force-merges it to one"
          + " segment (stopped and rolled back if still running after %.0f s), reading every segment as Lucene merges do and writing the merged one, which"
          + " is rolled back at the end so the index is unchanged; then %.1f s after.%s Recovery: from the merge's end"
          + " to the first of %d intervals of %.0f s in a row at %.0f%% of the QPS before. Hit ratio: of the block"
          + " cache of the Directories that have one. Directories: %s; threads %s", settles(r, "merge"), o.disturbedBeforeSeconds,
          o.mergeCapSeconds, o.disturbedAfterSeconds,
          r.lucene.mergeDirtyLimit == null ? "" : " Cgroup v1 does not bound a group's dirty pages, and the merge's"
              + " writes got every worker OOM-killed under the limit: the machine's " + r.lucene.mergeDirtyLimit
              + " are set during this regime and restored after, as a v1 container that indexes must.", DisturbedRun.RECOVERY_WINDOW, DisturbedRun.INTERVAL_SECONDS,
          DisturbedRun.RECOVERED_SHARE * 100, operatorDirs, operatorThreads));
      if (o.indexing()) {
        r.regimes.put("lucene indexing", String.format(Locale.ROOT, "search during bulk indexing, in the merge regime's"
            + " workers right after their merge (the same limit, page-cache budget and dirty-page limits). Per thread"
            + " count, queries run without pause: %.1f s before; then another thread opens an IndexWriter on the same"
            + " index through the same Directory and adds documents of the corpus (the first %,d characters of it, held"
            + " in memory, indexed in turn) %s for %.1f s, refreshing a near-real-time reader"
            + " every %.0f s as a node does at OpenSearch's default refresh interval: each refresh flushes a small"
            + " segment, and Lucene's ConcurrentMergeScheduler merges them as they pile up; then it rolls back, and"
            + " %.1f s are measured after. The queries search the commit they opened, so that their hits stay the"
            + " reference's; the new segments are read by the writer (flush, refresh, merges), not by them. The"
            + " table's disturbance line says the rate each writer reached. Recovery as in the merge"
            + " regime. Directories: %s; threads %s", o.disturbedBeforeSeconds,
            QueryWorkerCommand.INDEXING_DOCUMENT_CHARS, Double.isInfinite(o.indexingCharsPerSecond)
                ? "as fast as its one thread indexes (--indexing-rate max)"
                : String.format(Locale.ROOT, "at %.1f MB/s of source text (a target)", o.indexingCharsPerSecond / 1e6),
            o.indexingSeconds,
            IndexingDisturbance.REFRESH_SECONDS, o.disturbedAfterSeconds, operatorDirs, operatorThreads)
            + (o.indexingNice > 0 ? String.format(Locale.ROOT, ". The writer's thread, and the merge threads it starts,"
                + " at nice %d (--indexing-nice), for every Directory", o.indexingNice) : ""));
      }
    }
    if (regimes.contains("neighbour")) {
      r.regimes.put("lucene neighbour", String.format(Locale.ROOT, "a noisy neighbour, under the pressure regime's"
          + " limit (set up the same way, the page cache kept at the budget the same way, the neighbour's page cache"
          + " inside it; %s). Per thread count, queries run without pause: %.1f s before; then a second"
          + " process in the same memory group (a shell looping cat over a %s file, as a snapshot upload or log"
          + " shipper would; the disk's own readahead applies) for %.1f s; then it is killed and %.1f s are measured"
          + " after. Recovery as in the merge regime. Directories: %s; threads %s", settles(r, "neighbour"), o.disturbedBeforeSeconds,
          Format.size(o.neighbourFileBytes), o.neighbourSeconds, o.disturbedAfterSeconds, operatorDirs,
          operatorThreads));
    }
    if (r.lucene.operatorsScheduler != null) {
      for (String regime : SCHEDULED_REGIMES) {
        r.regimes.computeIfPresent("lucene " + regime, (key, text) -> text + ". The disk's I/O scheduler: " + r.lucene.operatorsScheduler
            + "; BFQ is the one that weighs best-effort levels, at the highest of which AdaptiveDirectory and"
            + " CachedPreadDirectory read what a query waits on, as an operator who shares the disk with other work"
            + " chooses it (--operators-scheduler keep: the disk's own)");
      }
    }
    r.headline = Headline.compute(r.queryCells);
    changingRatios(r.changing);
    disturbedRatios(r.disturbed);
    r.legend = legend(o, indexBytes, r.lucene);
  }

  /**
   * The restart regime: per Directory and thread count, a worker serves the warm index and closes
   * (a Directory that keeps a hot set records it), a new worker opens the index with the page cache
   * kept and measures its first seconds, then the page cache is dropped and a third worker does the
   * same. Any hot-set record of an earlier run is deleted first.
   */
  private static void runRestart(Results r, Options o, Path index, long indexBytes, QueryMix mix, long[] reference,
      Consumer<String> step) throws Exception {
    List<String> dirs = o.restartDirectories != null ? o.restartDirectories : o.directories;
    int[] threads = o.threadsOf("restart");
    List<String> reused = new ArrayList<>();
    for (String name : dirs) {
      for (int t : threads) {
        deleteHotSet(index);
        String[] phases = {"restart-serve", "restart-open", "restart-open"};
        int firstPhase = 0;
        Results.QueryCell warm = recordsHotSet(name) ? null : r.queryCell("warm", name, t);
        if (warm != null && warm.failure == null && warm.qps.length > 0) {
          // A Directory without a hot set: its serving JVM would measure the warm QPS this run's warm
          // regime measured, and leave the index in the page cache, which reading every file does.
          r.queryCells.add(copy(warm, "restart warm"));
          warmFiles(index);
          reused.add(name);
          firstPhase = 1;
          step.accept("lucene restart " + name + " x" + t + ": the warm regime's QPS");
        }
        for (int p = firstPhase; p < phases.length; p++) {
          QueryWorkerCommand.Spec spec = new QueryWorkerCommand.Spec();
          spec.index = index.toAbsolutePath().toString();
          spec.regime = phases[p];
          spec.directory = name;
          spec.threads = new int[] {t};
          // The serving JVM measures the same window as the restarted ones, from the same first query:
          // the mix's queries differ in cost, and a shorter window or another stretch of the mix
          // would move the ratio as much as the restart does.
          spec.seconds = o.restartSeconds;
          spec.firstQuery = 0;
          spec.jitWarmupSeconds = o.jitWarmupSeconds;
          spec.mixRecipes = mix.recipes();
          spec.mixFingerprint = mix.fingerprint();
          spec.reference = reference;
          CacheSettings cache = cacheFor("warm", indexBytes, indexBytes / 4, o.cacheBlockSize);
          spec.cacheBudget = cache.budgetBytes();
          spec.cacheBlockSize = cache.blockSize();
          spec.cacheNoAdmission = !o.cacheAdmission;
          spec.indexBytes = indexBytes;
          spec.dropBeforeOpen = p == 2;
          String label = "lucene restart " + name + " x" + t + " " + (p == 0 ? "serving" : p == 1 ? "kept" : "dropped");
          try {
            Results w = WorkerProcess.run("query-worker", spec, UNLIMITED_HEAP, null, LuceneBench::isProgress, step);
            r.queryCells.addAll(w.queryCells);
          } catch (IllegalStateException e) {
            String why = failureReason(e);
            step.accept(label + " FAILED: " + why);
            r.skipped.add(label + ": FAILED, the run went on: " + why);
            Results.QueryCell failed = new Results.QueryCell(
                p == 0 ? "restart warm" : p == 1 ? "restart kept" : "restart dropped", name, t, 1);
            failed.failure = why;
            r.queryCells.add(failed);
          }
        }
      }
    }
    deleteHotSet(index);
    r.regimes.put("lucene restart", String.format(Locale.ROOT, "a JVM that served the index stops and a new one"
        + " opens it, without a memory limit. Per Directory and thread count: a worker reads every index file,"
        + " compiles, measures %.1f s of warm queries from the mix's first query and closes its Directory (AdaptiveDirectory and"
        + " CachedPreadDirectory record their hot set in the index folder then); a new worker (nothing compiled,"
        + " nothing of the index read: the query mix comes from the parent as text) opens the Directory with the page cache kept (a process"
        + " restart) and measures its first %.1f s from the open; then a third does the same after the page cache"
        + " was dropped by %s (a reboot, or the files copied to another node). The ratios are to the same"
        + " Directory's warm QPS; JIT compilation is part of the first seconds of every Directory alike."
        + " Directories: %s; threads %s%s", o.restartSeconds, o.restartSeconds, CacheControl.method(),
        String.join(", ", dirs), java.util.Arrays.toString(threads), reused.isEmpty() ? "" : ". "
            + String.join(", ", reused) + " keeps no hot set: its warm QPS is that of the warm regime in this run,"
            + " and instead of a serving worker the bench reads every index file, leaving the page cache as that"
            + " worker would"));
  }

  /**
   * The thread counts each worker of {@code regime} measures: all of them in one worker, but for the
   * changing regime a worker per thread count. Its phase A is a node's start with an index that
   * fits; in a worker that ran the previous thread count's phase B it would be the return of memory
   * instead, which a Directory that switched read paths pays for with the recompilation of its
   * query code, and which that regime does not set out to measure.
   */
  static List<int[]> workerThreads(String regime, int[] threads) {
    if (!regime.equals("changing")) {
      return List.of(threads);
    }
    List<int[]> each = new ArrayList<>();
    for (int t : threads) {
      each.add(new int[] {t});
    }
    return each;
  }

  /** Whether {@code directory} records a hot set at close, which a restarted JVM loads. */
  static boolean recordsHotSet(String directory) {
    return directory.equals(StrategyRegistry.DIR_ADAPTIVE) || directory.equals(StrategyRegistry.DIR_CACHED);
  }

  /** {@code c}'s figures under another regime's name. */
  private static Results.QueryCell copy(Results.QueryCell c, String regime) {
    Results.QueryCell out = new Results.QueryCell(regime, c.directory, c.threads, c.qps.length);
    System.arraycopy(c.qps, 0, out.qps, 0, c.qps.length);
    System.arraycopy(c.p50Micros, 0, out.p50Micros, 0, c.p50Micros.length);
    System.arraycopy(c.p99Micros, 0, out.p99Micros, 0, c.p99Micros.length);
    out.queries = c.queries;
    out.majorFaults = c.majorFaults;
    out.storageReadBytes = c.storageReadBytes;
    out.cpuUserMillis = c.cpuUserMillis;
    out.cpuSystemMillis = c.cpuSystemMillis;
    out.queryThreadCpuMillis = c.queryThreadCpuMillis;
    out.queryThreadMillis = c.queryThreadMillis;
    out.compilerCpuMillis = c.compilerCpuMillis;
    return out;
  }

  /** How far a cell's {@code LimitKeeper} moved the limit from where it started, either way; 0 if it did not. */
  static long limitMoveBytes(Results.QueryCell c) {
    return LimitKeeper.widestMove(c.limitStartBytes, c.limitLowestBytes, c.limitHighestBytes);
  }

  /** The pressure regime's wait for the JIT, in words: a clause that follows the warm-ups. */
  private static String settleSentence(Options o, Results r) {
    if (o.settleCapSeconds <= 0) {
      return " no wait for the JIT after it (--jit-settle-seconds 0),";
    }
    return String.format(Locale.ROOT, " then queries until its JIT compiler threads used at most %.0f%% of a core over"
        + " %.0f s (cap %.0f s; %s): a Directory whose read path changed under the limit recompiles the loops that"
        + " inlined it, and on two cores a cell measured while the JIT compiles measures the JIT,",
        QueryWorkerCommand.SETTLE_COMPILER_SHARE * 100, QueryWorkerCommand.SETTLE_WINDOW_MILLIS / 1000.0,
        o.settleCapSeconds, settles(r, "pressure"));
  }

  /** The waits for the JIT of a pressure-like regime's workers, in words. */
  private static String settles(Results r, String regime) {
    java.util.List<String> s = r.lucene.settles.get(regime);
    return s == null ? "no wait for the JIT" : "waited for the JIT: " + String.join(", ", s);
  }

  /** The widest move of the limit within a cell of {@code regime}, in words. */
  private static String limitMoves(Results r, String regime) {
    long widest = 0;
    int writes = 0;
    for (Results.QueryCell c : r.queryCells) {
      if (c.regime.equals(regime)) {
        widest = Math.max(widest, limitMoveBytes(c));
        writes += c.limitWrites;
      }
    }
    return String.format(Locale.ROOT, "within a cell the limit moved by at most %s (%d writes in all)", Format.size(widest), writes);
  }

  /**
   * A figure summed over rounds: -1 (unknown) once any round's is unknown, so that a sum never
   * leaves a round out silently.
   */
  private static long sumKnown(long sum, long add, int round) {
    if (add < 0 || (round > 0 && sum < 0)) {
      return -1;
    }
    return round == 0 ? add : sum + add;
  }

  /** As {@link #sumKnown(long, long, int)}, for a figure that is null where unknown. */
  private static Long sumKnown(Long sum, Long add, int round) {
    if (add == null || (round > 0 && sum == null)) {
      return null;
    }
    return round == 0 ? add : sum + add;
  }

  /**
   * Deletes the hot-set record in the index folder, which AdaptiveDirectory and
   * CachedPreadDirectory write as they close and load as they open, so that the next open measures
   * a Directory without one.
   */
  static void deleteHotSet(Path index) throws IOException {
    Files.deleteIfExists(index.resolve(AdaptiveDirectory.HOT_SET_FILE));
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

  /** The spec of {@code name}'s worker in {@code regime}, but for what only some regimes set. */
  private static QueryWorkerCommand.Spec spec(Options o, String regime, String name, Path index, long indexBytes,
      long budget, QueryMix mix, long[] reference) {
    QueryWorkerCommand.Spec spec = new QueryWorkerCommand.Spec();
    spec.index = index.toAbsolutePath().toString();
    spec.regime = regime;
    spec.directory = name;
    spec.threads = o.threadsOf(regime);
    spec.seconds = switch (regime) {
      case "warm" -> o.warmSeconds;
      case "cold" -> o.coldSeconds;
      default -> o.pressureSeconds;
    };
    spec.jitWarmupSeconds = o.jitWarmupSeconds;
    spec.warmupCapSeconds = o.pressureWarmupCapSeconds;
    spec.settleCapSeconds = o.settleCapSeconds;
    spec.warmupBytes = budget;
    spec.pageCacheBudget = budget;
    spec.mixRecipes = mix.recipes();
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
    return spec;
  }

  /** Adds a worker's cell {@code c} as round {@code round} of {@code name}'s cell in {@code r}, and returns that cell. */
  private static Results.QueryCell addRound(Results r, String regime, String name, int round, int rounds,
      Results.QueryCell c) {
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
    mine.cpuUserMillis = sumKnown(mine.cpuUserMillis, c.cpuUserMillis, round);
    mine.cpuSystemMillis = sumKnown(mine.cpuSystemMillis, c.cpuSystemMillis, round);
    mine.queryThreadCpuMillis = sumKnown(mine.queryThreadCpuMillis, c.queryThreadCpuMillis, round);
    mine.queryThreadMillis = sumKnown(mine.queryThreadMillis, c.queryThreadMillis, round);
    mine.compilerCpuMillis = sumKnown(mine.compilerCpuMillis, c.compilerCpuMillis, round);
    mine.pageCacheBytes = c.pageCacheBytes;
    if (limitMoveBytes(c) >= limitMoveBytes(mine)) {
      mine.limitStartBytes = c.limitStartBytes;
      mine.limitLowestBytes = c.limitLowestBytes;
      mine.limitHighestBytes = c.limitHighestBytes;
    }
    mine.limitWrites += c.limitWrites;
    if (c.deviceReads >= 0) {
      mine.deviceReads = Math.max(0, mine.deviceReads) + c.deviceReads;
    }
    mine.cache = CacheUse.add(mine.cache, c.cache);
    Results.QueryCell target = mine;
    c.meanMicrosByKind.forEach((kind, v) -> target.meanMicrosByKind.merge(kind, v / rounds, Double::sum));
    return mine;
  }

  /**
   * Warm and cold, interleaved: a {@link LiveWorker} per Directory serves both regimes. The workers
   * start one after another (each compiles its query paths while the others idle); then per round,
   * thread count and Directory (rotated by round) one warm cell, every Directory's cell of a round
   * and thread count on the same queries; then every worker closes its warm Directory (a page any
   * process maps stays resident through drop_caches) and each runs its cold cells in turn. A
   * Directory's cell and the best alternative's of the same round run seconds apart, not a minute,
   * so a spell of a slow machine (this VM's neighbours) moves both. A worker that fails fails its
   * own cells; the others go on.
   */
  private static void runInterleaved(Results r, Options o, List<String> regimes,
      java.util.function.Function<String, QueryWorkerCommand.Spec> specOf, Consumer<String> step) throws Exception {
    List<String> dirs = o.directories;
    int[] threads = o.threads;
    java.util.Map<String, LiveWorker> workers = new java.util.LinkedHashMap<>();
    record Asked(String regime, int round, int threads) {}
    java.util.Map<String, List<Asked>> asked = new java.util.HashMap<>();
    java.util.Map<String, String> failed = new java.util.LinkedHashMap<>();
    try {
      for (String name : dirs) {
        QueryWorkerCommand.Spec spec = specOf.apply(name);
        deleteHotSet(Path.of(spec.index));
        try {
          workers.put(name, LiveWorker.start("query-worker", spec, UNLIMITED_HEAP, LuceneBench::isProgress, step));
          asked.put(name, new ArrayList<>());
        } catch (IllegalStateException e) {
          failed.put(name, failureReason(e));
        }
      }
      for (String regime : regimes) {
        int rounds = liveRounds(o, regime);
        if (regime.equals("cold")) {
          for (String name : List.copyOf(workers.keySet())) {
            try {
              workers.get(name).cell(QueryWorkerCommand.RELEASE, 0, 0);
            } catch (IllegalStateException e) {
              failed.put(name, failureReason(e));
              workers.remove(name).close();
            }
          }
        }
        String quiet = MachineQuiet.await(0.10, 250, 10_000);
        r.regimes.computeIfPresent("lucene " + regime, (k, v) -> v + "; " + quiet);
        for (int round = 0; round < rounds; round++) {
          for (int ti = 0; ti < threads.length; ti++) {
            for (int k = 0; k < dirs.size(); k++) {
              String name = dirs.get((k + round) % dirs.size());
              LiveWorker w = workers.get(name);
              if (w == null) {
                continue;
              }
              try {
                w.cell(regime, threads[ti], round * 997 + ti * 101);
                asked.get(name).add(new Asked(regime, round, threads[ti]));
              } catch (IllegalStateException e) {
                failed.put(name, failureReason(e));
                workers.remove(name).close();
              }
            }
          }
        }
      }
      for (var e : workers.entrySet()) {
        String name = e.getKey();
        List<Asked> cells = asked.get(name);
        try {
          Results w = e.getValue().finish();
          if (w.queryCells.size() != cells.size()) {
            throw new IllegalStateException("the worker measured " + w.queryCells.size() + " cells, asked for " + cells.size());
          }
          for (int i = 0; i < cells.size(); i++) {
            Results.QueryCell c = w.queryCells.get(i);
            Asked want = cells.get(i);
            if (c.threads != want.threads() || !c.regime.equals(want.regime())) {
              throw new IllegalStateException("cell " + i + " ran " + c.regime + " at " + c.threads + " threads, asked for "
                  + want.regime() + " at " + want.threads());
            }
            addRound(r, want.regime(), name, want.round(), liveRounds(o, want.regime()), c);
          }
        } catch (IllegalStateException | IOException ex) {
          failed.put(name, failureReason(ex));
        }
      }
    } finally {
      for (LiveWorker w : workers.values()) {
        w.close();
      }
    }
    for (var e : failed.entrySet()) {
      String name = e.getKey();
      for (String regime : regimes) {
        step.accept("lucene " + regime + " " + name + " FAILED: " + e.getValue());
        r.skipped.add("lucene " + regime + ", " + name + ": FAILED, the run went on: " + e.getValue());
        r.queryCells.removeIf(c -> c.regime.equals(regime) && c.directory.equals(name));
        for (int t : threads) {
          Results.QueryCell cell = new Results.QueryCell(regime, name, t, liveRounds(o, regime));
          cell.failure = e.getValue();
          r.queryCells.add(cell);
        }
      }
    }
  }

  /** Rounds of a live worker's regime: warm's, and one of cold. */
  private static int liveRounds(Options o, String regime) {
    return regime.equals("warm") ? o.warmRounds : 1;
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

  /**
   * Sets each merge or neighbour run's ratios to the best alternative during the disturbance (the
   * highest QPS of the same regime and thread count) in QPS and in p99.
   */
  static void disturbedRatios(List<DisturbedResult> runs) {
    for (DisturbedResult c : runs) {
      if (c.failure != null) {
        continue;
      }
      DisturbedResult best = null;
      for (DisturbedResult alt : runs) {
        if (alt.failure == null && alt.regime.equals(c.regime) && alt.threads == c.threads
            && Headline.ALTERNATIVES.contains(alt.directory) && (best == null || alt.qps[1] > best.qps[1])) {
          best = alt;
        }
      }
      if (best != null && best.qps[1] > 0) {
        c.bestDuring = best.directory;
        c.ratioDuring = c.qps[1] / best.qps[1];
        c.p99RatioDuring = best.p99Micros[1] > 0 ? c.p99Micros[1] / best.p99Micros[1] : Double.NaN;
      }
    }
  }

  private static Results.Changing bestOf(List<Results.Changing> runs, String dir, int threads) {
    return runs.stream().filter(x -> x.directory.equals(dir) && x.threads == threads).findFirst().orElseThrow();
  }

  /** What each Directory name of the run stands for: class, configuration, JVM flags. */
  static List<Results.Legend> legend(Options o, long indexBytes, Results.Lucene lucene) {
    String flags = String.format(Locale.ROOT, "%s; heap %s (warm, cold); -XX:+AlwaysPreTouch and heap %s (restart),"
        + " %s (pressure, changing, throttled, merge, neighbour)", JvmFlags.describeWorker("<heap>", false), UNLIMITED_HEAP, UNLIMITED_HEAP,
        o.pressureHeap);
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
    if (!regime.equals("warm") && !regime.equals("cold")) {
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
