package dev.pread.bench.lucene;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.cache.CachedDirectories;
import dev.pread.bench.pressure.CompilerCpu;
import dev.pread.bench.pressure.GroupSampler;
import dev.pread.bench.pressure.IoThrottle;
import dev.pread.bench.pressure.LimitKeeper;
import dev.pread.bench.pressure.LiveWorker;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.pressure.SteadyState;
import dev.pread.bench.pressure.WorkerFiles;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.report.DisturbedResult;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.Results;
import dev.pread.bench.report.Timeline;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.HotSetStats;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * Hidden: one JVM per Directory and regime of the Lucene-level comparison, like a JMH fork. In a
 * JVM shared by several Directories, Lucene's hot call sites (LZ4 decompression, postings
 * decoding) see several IndexInput classes, go megamorphic and run slower for all of them; no
 * Directory runs like that in production. The worker rebuilds the query mix from the index (and
 * checks it is the parent's, by fingerprint), compiles its query paths, then runs its regime:
 *
 * <ul>
 *   <li>live ({@link LiveWorker}): says it is ready and runs the warm and cold cells the parent asks
 *       for, which interleaves the Directories' workers. Warm: the first cell opens the Directory;
 *       each reads every index file (dir-cached: through the Directory, into its cache), runs 0.2 s
 *       of queries and measures. Before the cold cells the parent has every worker close its warm
 *       Directory; each cold cell drops the page cache, opens the Directory and measures the first
 *       seconds;
 *   <li>pressure (started in a memory cgroup): evicts the index, sets the group's limit to its own
 *       footprint plus the page-cache budget, reopens, runs queries untimed until the budget's worth
 *       was read from storage (the group is then at its limit), sets the limit again to the median
 *       of its footprint over a further warm-up (a cache's blocks left out) plus the budget, and
 *       measures each thread count. dir-cached's cache is the budget minus a slack the worker
 *       measures ({@link CacheSizing});
 *   <li>throttled (also in an I/O cgroup that caps the index's disk): as pressure, counting the
 *       device reads of each cell;
 *   <li>merge and neighbour: set up as pressure (the page cache kept at the budget as there), then
 *       per thread count a {@link DisturbedRun}: a
 *       force-merge through the same Directory ({@link MergeDisturbance}) followed by a bulk-indexing
 *       load through it ({@link IndexingDisturbance}), or another process streaming a file ({@link
 *       Neighbour});
 *   <li>restart-serve: warm, measured, closed (the Directory records its hot set); restart-open: a
 *       JVM with nothing compiled opens the Directory (after dropping the page cache if asked) and
 *       measures its first seconds;
 *   <li>changing (started in a memory cgroup): see {@link ChangingRun}.
 * </ul>
 *
 * Hits are checked against the parent's reference checksums.
 */
@Command(name = "query-worker", hidden = true)
public final class QueryWorkerCommand implements Callable<Integer> {
  /** How often a pressure or throttled cell's {@link LimitKeeper} looks at the group. */
  static final long LIMIT_KEEPER_MILLIS = 20;

  /**
   * After the warm-ups under the limit, queries go on until the JIT compiler threads used at most
   * this share of one core over {@link #SETTLE_WINDOW_MILLIS} ({@link SteadyState#compilerQuiet}).
   */
  static final double SETTLE_COMPILER_SHARE = 0.10;

  static final long SETTLE_WINDOW_MILLIS = 1000;

  /** What the parent asks for. */
  static final class Spec {
    String index;
    String regime;
    String directory;
    int[] threads;
    double seconds;
    /** A live worker's cold cells: the seconds measured from the open. */
    double coldSeconds;
    int firstQuery;
    double jitWarmupSeconds;
    double warmupCapSeconds;
    /** Pressure and the regimes set up like it: the cap on the wait for the JIT to fall quiet. */
    double settleCapSeconds;
    long warmupBytes;
    long pageCacheBudget;
    /** The query mix as {@link QueryMix#recipes}, and its {@link QueryMix#fingerprint}. */
    java.util.List<java.util.List<String>> mixRecipes;
    long mixFingerprint;
    long[] reference;
    /** dir-cached's cache: budget and block size, chosen by the parent for the regime. */
    long cacheBudget;
    int cacheBlockSize;
    /** True for a cache without frequency admission. */
    boolean cacheNoAdmission;
    /**
     * Pressure and changing, dir-cached: its cache as a share of the page-cache budget, or 0 to
     * give it the budget minus the slack this worker measures ({@link CacheSizing}). {@link
     * #cacheBudget} is then only the cache of the compile phase.
     */
    double cacheShare;
    /** Seconds of each query run (dir-pread, dir-cached) whose memory growth is part of the slack. */
    double growthSeconds;
    /** Changing: the index's size, the seconds of each measured phase and of the settling. */
    long indexBytes;
    double phaseSeconds;
    double settleSeconds;
    /** Merge and neighbour: the longest the disturbance runs, and the seconds measured after it. */
    double duringSeconds;
    double afterSeconds;
    /** Neighbour: the file it streams. */
    String neighbourFile;
    /** The neighbour reads in the idle I/O class. */
    boolean neighbourIdle;
    /**
     * Merge: the bulk-indexing load after the force-merge, its seconds (0: none; measured before and
     * after as the merge is), its rate in characters of source text a second (0: as fast as its
     * thread indexes), and whether the corpus it indexes is the generated one (else the JDK's
     * src.zip, as the index).
     */
    double indexingSeconds;
    double indexingCharsPerSecond;
    boolean corpusGenerated;
    /** Merge: the nice value of the indexing load's writer thread (0: the worker's own). */
    int indexingNice;
    /** Restart: drop the page cache after building the mix, before opening the Directory (a reboot). */
    boolean dropBeforeOpen;

    CacheSettings cache() {
      return cacheBudget > 0 ? new CacheSettings(cacheBudget, cacheBlockSize, !cacheNoAdmission) : null;
    }
  }

  @Mixin WorkerFiles files = new WorkerFiles();

  @Override
  public Integer call() throws Exception {
    Spec spec = files.readSpec(Spec.class);
    Path index = Path.of(spec.index);
    String name = spec.directory;
    // The mix comes from the parent's recipes: the worker reads nothing of the index before its
    // Directory opens (a restarted JVM must not have compiled Lucene's decoding code for another
    // Directory's inputs first), and no worker spends its first second scanning the terms.
    QueryMix mix = QueryMix.fromRecipes(spec.mixRecipes);
    if (mix.fingerprint() != spec.mixFingerprint) {
      throw new IllegalStateException("the worker made another query mix than the parent's");
    }
    if (spec.regime.equals("restart-open")) {
      // A restarted JVM: nothing compiled, nothing read, the Directory under test opened once.
      Results r = new Results();
      r.lucene = new Results.Lucene();
      if (spec.dropBeforeOpen) {
        LuceneBench.evict(index);
      }
      restartOpen(r, spec, index, mix);
      files.writeResults(r);
      return 0;
    }
    // The indexing load's documents, read before the limit is set: the load reads no corpus.
    List<Corpus.Doc> indexingDocs = spec.regime.equals("merge") && spec.indexingSeconds > 0
        ? (spec.corpusGenerated ? Corpus.generated() : Corpus.detect()).first(INDEXING_DOCUMENT_CHARS) : null;
    try (Directory d = StrategyRegistry.openDirectory(name, index, spec.cache()); DirectoryReader reader = DirectoryReader.open(d)) {
      if (!underLimit(spec.regime)) {
        LuceneBench.warmFiles(index); // keep the compile phase itself from waiting on the disk
      }
      QueryRun.run(new IndexSearcher(reader), mix, spec.reference, 1, 0, (long) (spec.jitWarmupSeconds * 1000), name);
      if (spec.regime.equals("merge")) {
        compileMerge(d, spec, indexingDocs);
      }
    }
    // The compile phase's Directory recorded its hot set as it closed (AdaptiveDirectory,
    // CachedPreadDirectory), and the measured one would load it as it opens: a cold cell would
    // measure a restart. Each regime measures a Directory without a record, but restart's.
    LuceneBench.deleteHotSet(index);
    Results r = new Results();
    r.lucene = new Results.Lucene();
    int first = spec.firstQuery;
    switch (spec.regime) {
      case "restart-serve" -> {
        // The JVM that serves the index before the restart: warm, measured, then closed (a Directory
        // that keeps a hot set records it at close). A node records its hot set every minute; this
        // worker serves for seconds, so it records every second: a block cache gives a file's blocks
        // up when its last input closes, and a record made at close keeps those of the last record.
        System.setProperty("dev.pread.hotset.interval.seconds", "1");
        try (Directory d = StrategyRegistry.openDirectory(name, index, spec.cache()); DirectoryReader reader = DirectoryReader.open(d)) {
          IndexSearcher searcher = new IndexSearcher(reader);
          int t = spec.threads[0];
          LuceneBench.warmFiles(index);
          CachedDirectories.preload(d);
          QueryRun.run(searcher, mix, spec.reference, t, first, 500, name);
          measure(r, spec, d, searcher, mix, t, first); // the queries the restarted JVMs start with
        }
        r.queryCells.forEach(c -> c.regime = "restart warm");
      }
      case LIVE -> {
        // Warm and cold cells as the parent asks for them ({@link #serve}). The warm cells share one
        // Directory, opened at the first; before the cold cells the parent has every worker close it
        // (a page mapped by any process stays resident whatever drop_caches does).
        LiveWarm warm = new LiveWarm(index, name, spec);
        try {
          serve(cell -> {
            switch (cell.regime()) {
              case "warm" -> {
                boolean opened = warm.isOpen();
                IndexSearcher searcher = warm.searcher();
                // Every index file read again right before the cell (this VM evicts idle page cache),
                // and a short warm-up: the JVM idled while the other Directories' workers measured.
                LuceneBench.warmFiles(index);
                CachedDirectories.preload(warm.directory());
                if (!opened) {
                  QueryRun.run(searcher, mix, spec.reference, 1, 0, 500, name); // the Directory's first queries
                }
                QueryRun.run(searcher, mix, spec.reference, cell.threads(), cell.first(), WARM_UP_MILLIS, name);
                measure(r, spec, "warm", spec.seconds, warm.directory(), searcher, mix, cell.threads(), cell.first(), null);
              }
              case "cold" -> {
                warm.close();
                LuceneBench.evict(index);
                LuceneBench.deleteHotSet(index); // the last cell's Directory's
                // The window starts before the open: what a Directory reads while it opens is cold-start time.
                Window window = Window.start();
                try (Directory d = StrategyRegistry.openDirectory(name, index, spec.cache()); DirectoryReader reader = DirectoryReader.open(d)) {
                  measure(r, spec, "cold", spec.coldSeconds, d, new IndexSearcher(reader), mix, cell.threads(), cell.first(), window);
                }
              }
              case RELEASE -> warm.close();
              default -> throw new IllegalArgumentException("live worker: unknown regime '" + cell.regime() + "'");
            }
          });
        } finally {
          warm.close();
        }
      }
      case "pressure", "throttled", "merge", "neighbour" -> {
        CacheSizing.Growth growth = measuresSlack(spec) ? CacheSizing.growth(index, mix, spec) : null;
        LuceneBench.evict(index);
        long usage = MemoryCgroup.ownUsageBytes();
        long cache = MemoryCgroup.ownPageCacheBytes();
        if (usage <= 0 || cache < 0) {
          throw new IllegalStateException("cannot read this process's memory cgroup: usage " + usage + ", cache " + cache);
        }
        r.lucene.pressureLimit = usage - cache + spec.pageCacheBudget;
        r.lucene.pressureOtherBytes = usage - cache;
        CacheSettings settings = spec.cache();
        if (name.equals(DIR_CACHED)) {
          CacheSizing sizing;
          try {
            sizing = CacheSizing.of(spec, spec.pageCacheBudget, cache, growth);
          } catch (IllegalStateException e) {
            System.out.println("sizing: " + e.getMessage()); // the cell's failure names it
            throw e;
          }
          settings = sizing.settings(spec);
          r.lucene.cachedPressureBytes = settings.budgetBytes();
          r.lucene.cachedSlackBytes = sizing.slackBytes();
          r.lucene.slackFileBytes = sizing.fileBytes();
          r.lucene.slackGrowthBytes = sizing.growthBytes();
          r.lucene.cachedSizing = sizing.describe();
          System.out.printf("sizing: dir-cached under pressure: %s; limit %s (%s besides page cache)%n",
              sizing.describe(), Format.size(r.lucene.pressureLimit), Format.size(r.lucene.pressureOtherBytes));
        }
        MemoryCgroup.setOwnLimit(r.lucene.pressureLimit);
        MemoryCgroup.resetOwnPeak(); // the peak reported is that under the limit just set
        try (Directory d = StrategyRegistry.openDirectory(name, index, settings); DirectoryReader reader = DirectoryReader.open(d)) {
          IndexSearcher searcher = new IndexSearcher(reader);
          int[] next = {first};
          // A quarter of a second of queries at 1 thread, untimed: the unit of every warm-up below.
          SteadyState.Slice warm = slice -> next[0] += (int) QueryRun.run(searcher, mix, spec.reference, 1, next[0], 250, name).queries();
          SteadyState.readFromStorage(spec.warmupBytes, spec.warmupCapSeconds, warm);
          // The budget is page cache beside what the worker holds in its steady state, not beside what
          // it held after compiling: the warm-up may have compiled another read path (an adaptive
          // directory's) and the C library may have kept memory freed since. The median over a further
          // warm-up leaves out the peaks of compilations in flight. Blocks of a cache of our own belong
          // to the budget.
          GroupSampler sampler = GroupSampler.start(10, () -> CachedDirectories.allocatedBytes(d));
          try {
            SteadyState.readFromStorage(spec.warmupBytes / 4, spec.warmupCapSeconds / 4, warm);
          } finally {
            sampler.close();
          }
          long held = sampler.medianNonFileBytes();
          if (held <= 0) {
            throw new IllegalStateException("cannot read this process's memory cgroup after the warm-up");
          }
          r.lucene.pressureLimitAtOpen = r.lucene.pressureLimit;
          r.lucene.pressureLimit = held + spec.pageCacheBudget;
          r.lucene.pressureOtherBytes = held;
          MemoryCgroup.setOwnLimit(r.lucene.pressureLimit);
          SteadyState.readFromStorage(spec.warmupBytes / 4, spec.warmupCapSeconds / 4, warm);
          if (spec.settleCapSeconds > 0) {
            SteadyState.Settle settle = SteadyState.compilerQuiet(SETTLE_COMPILER_SHARE, SETTLE_WINDOW_MILLIS,
                spec.settleCapSeconds, warm);
            r.lucene.settleSeconds = settle.seconds();
            r.lucene.settleQuiet = settle.quiet();
          }
          MemoryCgroup.resetOwnPeak();
          first = next[0];
          for (int t : spec.threads) {
            if (spec.regime.equals("pressure") || spec.regime.equals("throttled")) {
              first = measure(r, spec, d, searcher, mix, t, first);
            } else {
              DisturbedRun.Disturbance disturbance = spec.regime.equals("merge")
                  ? new MergeDisturbance(d) : new Neighbour(Path.of(spec.neighbourFile), spec.neighbourIdle);
              DisturbedResult res;
              try (LimitKeeper keeper = keepBudget(spec, d)) {
                res = DisturbedRun.run(spec.regime, name, d, searcher, mix, spec.reference, t, first,
                    spec.phaseSeconds, spec.duringSeconds, spec.afterSeconds, disturbance);
              }
              r.disturbed.add(res);
              first += (int) res.queries;
              if (indexingDocs != null) {
                try (LimitKeeper keeper = keepBudget(spec, d)) {
                  res = DisturbedRun.run("indexing", name, d, searcher, mix, spec.reference, t, first,
                      spec.phaseSeconds, spec.indexingSeconds, spec.afterSeconds,
                      new IndexingDisturbance(d, indexingDocs, indexingRate(spec), spec.indexingNice));
                }
                r.disturbed.add(res);
                first += (int) res.queries;
              }
            }
          }
        }
      }
      case "changing" -> {
        CacheSizing.Growth growth = measuresSlack(spec) ? CacheSizing.growth(index, mix, spec) : null;
        try {
          ChangingRun.run(r, spec, index, mix, growth);
        } catch (Exception e) {
          System.out.println("changing failed: " + e.getMessage());
          throw e;
        }
      }
      default -> throw new IllegalArgumentException("unknown regime " + spec.regime);
    }
    files.writeResults(r);
    return 0;
  }

  /** Milliseconds of queries right before each warm cell, after the worker idled. */
  static final long WARM_UP_MILLIS = 200;

  /** Length of the intervals of a restarted JVM's first seconds ({@link Results.QueryCell#intervalQps}). */
  static final double RESTART_INTERVAL_SECONDS = 1.0;

  /** The regime of a live worker: warm and cold cells, as the parent asks for them. */
  static final String LIVE = "live";

  /** A live worker's command to close its warm Directory (before the cold cells of any worker). */
  static final String RELEASE = "release";

  /** One cell the parent asks a live worker for: its regime, thread count and the mix's first query. */
  record Cell(String regime, int threads, int first) {}

  /** What a live worker does for one cell. */
  @FunctionalInterface
  interface CellRun {
    void run(Cell cell) throws Exception;
  }

  /**
   * The live worker's warm Directory: opened at the first warm cell (which also runs 0.5 s of
   * queries on it first), kept for the next, closed before cold cells.
   */
  private static final class LiveWarm {
    private final Path index;
    private final String name;
    private final Spec spec;
    private Directory directory;
    private DirectoryReader reader;
    private IndexSearcher searcher;

    LiveWarm(Path index, String name, Spec spec) {
      this.index = index;
      this.name = name;
      this.spec = spec;
    }

    boolean isOpen() {
      return searcher != null;
    }

    IndexSearcher searcher() throws Exception {
      if (searcher == null) {
        directory = StrategyRegistry.openDirectory(name, index, spec.cache());
        reader = DirectoryReader.open(directory);
        searcher = new IndexSearcher(reader);
      }
      return searcher;
    }

    Directory directory() {
      return directory;
    }

    void close() throws java.io.IOException {
      try {
        if (reader != null) {
          reader.close();
        }
      } finally {
        if (directory != null) {
          directory.close();
        }
        reader = null;
        directory = null;
        searcher = null;
      }
    }
  }

  /**
   * The live worker's loop ({@link LiveWorker}): says it is ready, then runs each cell the parent
   * asks for on standard input ({@code cell <regime> <threads> <first query>}, or {@code cell
   * release 0 0}) and says when it is done, until the parent says {@code quit} or closes the stream.
   * The parent asks one worker at a time, so the Directories' cells interleave in time while each
   * keeps its own JVM.
   */
  private static void serve(CellRun run) throws Exception {
    System.out.println(LiveWorker.READY);
    System.out.flush();
    java.io.BufferedReader in = new java.io.BufferedReader(
        new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null && !line.equals(LiveWorker.QUIT)) {
      String[] words = line.trim().split(" ");
      if (words.length != 4 || !words[0].equals(LiveWorker.CELL)) {
        throw new IllegalArgumentException("live worker: unknown command '" + line + "'");
      }
      run.run(new Cell(words[1], Integer.parseInt(words[2]), Integer.parseInt(words[3])));
      System.out.println(LiveWorker.DONE);
      System.out.flush();
    }
  }

  /** The indexing load's rate from the spec, where 0 is no cap. */
  private static double indexingRate(Spec spec) {
    return spec.indexingCharsPerSecond > 0 ? spec.indexingCharsPerSecond : Double.POSITIVE_INFINITY;
  }

  /** Characters of source text the indexing load holds and indexes in turn (about 4 MB of heap). */
  static final long INDEXING_DOCUMENT_CHARS = 4_000_000;

  /**
   * Runs a merge and then, if {@code docs} is not null, the indexing load (each rolled back; one
   * writer at a time, as the measured runs have it) for a few seconds before the limit is set, as a
   * node that indexes has merged and indexed before: the memory their compiled code and the
   * compiler's own arenas take is then part of what the worker holds, not taken from the page-cache
   * budget during the measured runs (on the 135 MiB index's 34 MiB budget that growth got workers
   * OOM-killed).
   */
  private static void compileMerge(Directory d, Spec spec, List<Corpus.Doc> docs) throws Exception {
    double window = Math.min(spec.duringSeconds, 2 * spec.jitWarmupSeconds);
    DisturbedRun.runFor(new MergeDisturbance(d), System.nanoTime(), window);
    if (docs != null) {
      DisturbedRun.runFor(new IndexingDisturbance(d, docs, indexingRate(spec), spec.indexingNice), System.nanoTime(), window / 4);
    }
  }

  /** The first {@code spec.seconds} of queries of a restarted JVM, from the Directory's open. */
  private static void restartOpen(Results r, Spec spec, Path index, QueryMix mix) throws Exception {
    int t = spec.threads[0];
    Window window = Window.start();
    try (Directory d = StrategyRegistry.openDirectory(spec.directory, index, spec.cache());
        DirectoryReader reader = DirectoryReader.open(d)) {
      java.util.function.Supplier<HotSetStats> stats = d instanceof AdaptiveDirectory a ? a::hotSetStats
          : d instanceof CachedPreadDirectory cp ? cp::hotSetStats : null;
      // When the load at open ended: a daemon thread looks every 10 ms (a look reads a few fields).
      java.util.concurrent.atomic.AtomicLong loadEnd = new java.util.concurrent.atomic.AtomicLong(-1);
      Thread watcher = null;
      if (stats != null) {
        watcher = Thread.ofPlatform().daemon().name("hot-set-watch").start(() -> {
          try {
            while (stats.get().loading()) {
              Thread.sleep(10);
            }
            loadEnd.set(System.nanoTime());
          } catch (InterruptedException stop) {
            // the window ended first
          }
        });
      }
      measure(r, spec, d, new IndexSearcher(reader), mix, t, spec.firstQuery, window);
      if (watcher != null) {
        watcher.interrupt();
        watcher.join();
      }
      Results.QueryCell c = r.queryCells.get(r.queryCells.size() - 1);
      c.regime = spec.dropBeforeOpen ? "restart dropped" : "restart kept";
      if (stats != null) {
        HotSetStats h = stats.get();
        c.hotSetLoadedBytes = h.loadedBytes() + h.cachedBytes();
        c.hotSetRecordedBytes = h.recordedBytes();
        c.hotSetLoadSeconds = loadEnd.get() < 0 ? null : window.secondsAt(loadEnd.get());
      }
    }
  }

  /**
   * Keeps the page cache at the budget while a cell under the limit runs (pressure, throttled,
   * merge, neighbour): the JVM's own memory grows after the limit was set, and under a fixed limit
   * that growth is page cache less, for that Directory alone; beside a streaming neighbour it left
   * the kernel too little page cache to reclaim in time, and workers were OOM-killed.
   */
  private static LimitKeeper keepBudget(Spec spec, Directory dir) {
    return LimitKeeper.start(spec.pageCacheBudget, LIMIT_KEEPER_MILLIS, () -> CachedDirectories.allocatedBytes(dir));
  }

  /** Whether {@code regime} runs under the pressure regime's limit (compiled without reading the index first). */
  static boolean underLimit(String regime) {
    return switch (regime) {
      case "pressure", "throttled", "merge", "neighbour" -> true;
      default -> false;
    };
  }

  /** Whether this worker sizes dir-cached's cache by the slack it measures. */
  private static boolean measuresSlack(Spec spec) {
    return spec.directory.equals(DIR_CACHED) && !(spec.cacheShare > 0);
  }

  /**
   * Where a measured window starts: its time, the process's I/O counters and its JIT compiler
   * threads' CPU. A cold or restarted cell starts its window before the Directory opens, so that
   * the open's reads and time count.
   */
  private record Window(long startNanos, ProcStats before, CompilerCpu compilerBefore) {
    static Window start() {
      return new Window(System.nanoTime(), ProcStats.now(), CompilerCpu.now());
    }

    double elapsedSeconds() {
      return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Seconds from the window's start to {@code nanos} (a {@link System#nanoTime()}). */
    double secondsAt(long nanos) {
      return (nanos - startNanos) / 1e9;
    }
  }

  /** Measures one thread count; returns the next query to start from. */
  private static int measure(Results r, Spec spec, Directory dir, IndexSearcher searcher, QueryMix mix, int threads,
      int first) throws Exception {
    return measure(r, spec, dir, searcher, mix, threads, first, null);
  }

  /**
   * Measures {@code spec.seconds} of queries, or, given a window that started before the open,
   * {@code spec.seconds} from its start: the queries run for what is left of it (at least a tenth
   * of it), and the QPS is their number over the whole window.
   */
  private static int measure(Results r, Spec spec, Directory dir, IndexSearcher searcher, QueryMix mix, int threads,
      int first, Window window) throws Exception {
    return measure(r, spec, spec.regime, spec.seconds, dir, searcher, mix, threads, first, window);
  }

  /** As {@link #measure(Results, Spec, Directory, IndexSearcher, QueryMix, int, int, Window)}, for a cell of {@code regime} of {@code seconds}. */
  private static int measure(Results r, Spec spec, String regime, double seconds, Directory dir, IndexSearcher searcher,
      QueryMix mix, int threads, int first, Window window) throws Exception {
    Results.QueryCell c = new Results.QueryCell(regime, spec.directory, threads, 1);
    CacheUse.Probe probe = CacheUse.probe(CachedDirectories.cacheOf(dir));
    ProcStats before = window != null ? window.before() : ProcStats.now();
    CompilerCpu compilerBefore = window != null ? window.compilerBefore() : CompilerCpu.now();
    long readsBefore = regime.equals("throttled") ? IoThrottle.ownReadOps(Path.of(spec.index)) : -1;
    double left = window == null ? seconds : Math.max(seconds / 10, seconds - window.elapsedSeconds());
    // A restarted JVM's first seconds, per interval from the open: how soon it reaches its warm rate.
    Timeline.Recorder[] recorders = null;
    if (window != null && regime.startsWith("restart")) {
      recorders = new Timeline.Recorder[threads];
      for (int i = 0; i < threads; i++) {
        recorders[i] = new Timeline.Recorder();
      }
    }
    long deadline = System.nanoTime() + (long) (left * 1e9);
    // The page cache stays at the budget while the cell runs, whatever the JVM's own memory does.
    LimitKeeper keeper = regime.equals("pressure") || regime.equals("throttled") ? keepBudget(spec, dir) : null;
    QueryRun.Result res;
    try {
      res = QueryRun.run(searcher, mix, spec.reference, threads, first,
          () -> System.nanoTime() < deadline, spec.directory, recorders);
    } finally {
      if (keeper != null) {
        keeper.close();
        c.limitStartBytes = keeper.startBytes();
        c.limitLowestBytes = keeper.lowestBytes();
        c.limitHighestBytes = keeper.highestBytes();
        c.limitWrites = keeper.writes();
      }
    }
    if (recorders != null) {
      Timeline tl = Timeline.of(recorders, window.startNanos(), System.nanoTime(), RESTART_INTERVAL_SECONDS);
      c.intervalSeconds = tl.intervalSeconds();
      c.intervalQps = new double[tl.intervals()];
      c.intervalP99Micros = new long[tl.intervals()];
      for (int i = 0; i < tl.intervals(); i++) {
        c.intervalQps[i] = tl.qps(i);
        c.intervalP99Micros[i] = tl.p99Micros(i);
      }
    }
    double qps = window == null ? res.qps() : res.queries() / window.elapsedSeconds();
    ProcStats d = ProcStats.now().minus(before);
    long compiler = CompilerCpu.now().millisSince(compilerBefore);
    c.compilerCpuMillis = compiler < 0 ? null : compiler;
    if (readsBefore >= 0) {
      long readsAfter = IoThrottle.ownReadOps(Path.of(spec.index));
      c.deviceReads = readsAfter >= 0 ? readsAfter - readsBefore : -1;
    }
    c.qps[0] = qps;
    c.p50Micros[0] = res.p50Micros();
    c.p99Micros[0] = res.p99Micros();
    c.queries = res.queries();
    c.meanMicrosByKind.putAll(res.meanMicrosByKind());
    c.majorFaults = d.majorFaults();
    c.storageReadBytes = d.storageReadBytes();
    c.cpuUserMillis = d.userMillis();
    c.cpuSystemMillis = d.systemMillis();
    c.queryThreadCpuMillis = res.threadCpuNanos() < 0 ? -1 : res.threadCpuNanos() / 1_000_000;
    c.queryThreadMillis = res.threadNanos() / 1_000_000;
    c.pageCacheBytes = underLimit(regime) ? MemoryCgroup.ownPageCacheBytes() : -1;
    c.cache = probe.done();
    if (c.cache != null) {
      c.cache.check("lucene " + regime + " " + spec.directory);
    }
    c.memory = underLimit(regime) ? MemoryCheck.ownNow() : null;
    r.queryCells.add(c);
    System.out.printf("lucene %s %s x%d: %.1f QPS%n", regime, spec.directory, threads, qps);
    return first + (int) res.queries();
  }
}
