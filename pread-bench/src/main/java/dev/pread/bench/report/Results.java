package dev.pread.bench.report;

import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.pressure.MemoryCheck;
import dev.pread.bench.raw.PrefetchDistanceRun;
import dev.pread.bench.raw.PrefetchLatencyRun;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one {@code ./pread bench} run measured: written as results.json, and the source of
 * the Markdown tables and the charts. Also the protocol between the CLI and its pressure worker.
 */
public final class Results {
  /** One timed cell: reads/s per round, and what the process did meanwhile. */
  public static final class Cell {
    String regime;
    String strategy;
    public int readSize;
    public int threads;
    public double[] rounds;
    public long majorFaults = -1;
    public long storageReadBytes = -1;
    /** Pressure only: the fewest times the cgroup hit its limit during one measured round. */
    public long minLimitHits = -1;
    /** dir-cached only: what its block cache did, summed over rounds. */
    public CacheUse cache;
    /** Pressure cells run in a worker of their own: its memory against the cgroup's limit. */
    public MemoryCheck memory;

    public Cell(String regime, String strategy, int readSize, int threads, int rounds) {
      this.regime = regime;
      this.strategy = strategy;
      this.readSize = readSize;
      this.threads = threads;
      this.rounds = new double[rounds];
    }

    public double median() {
      return Stats.median(rounds);
    }
  }

  /** Batched prefetch: reads/s per round for one strategy, batch size and prefetch on/off. */
  public static final class Batch {
    String regime;
    String strategy;
    public int readSize;
    public int batch;
    boolean prefetch;
    public double[] rounds;
    /** Pressure only: the fewest times the cgroup hit its limit during one measured round. */
    public long minLimitHits = -1;
    /** dir-cached only: what its block cache did, summed over rounds. */
    public CacheUse cache;

    public Batch(String regime, String strategy, int readSize, int batch, boolean prefetch, int rounds) {
      this.regime = regime;
      this.strategy = strategy;
      this.readSize = readSize;
      this.batch = batch;
      this.prefetch = prefetch;
      this.rounds = new double[rounds];
    }
  }

  /** One cell of the Lucene-level comparison: per round QPS and latency percentiles. */
  public static final class QueryCell {
    public String regime;
    public String directory;
    public int threads;
    public double[] qps;
    public double[] p50Micros;
    public double[] p99Micros;
    public long queries;
    public long majorFaults = -1;
    public long storageReadBytes = -1;
    /**
     * CPU time of the worker process over the measured windows, all rounds, in user and in system
     * mode (every thread, the kernel's work on its behalf included), or -1.
     */
    public long cpuUserMillis = -1;
    public long cpuSystemMillis = -1;
    /**
     * CPU time of the query threads alone over their queries, all rounds (user and system), and their
     * wall time over the same queries, summed over threads; -1 where unknown. Their ratio is the
     * share of the time the query threads spent on a core: the rest they waited, on reads, page
     * faults, or a core the worker's other threads held.
     */
    public long queryThreadCpuMillis = -1;
    public long queryThreadMillis = -1;
    /**
     * CPU time of the worker's JIT compiler threads over the measured windows, all rounds (part of
     * {@link #cpuUserMillis} and {@link #cpuSystemMillis}), or null where unknown (results written
     * without it, or /proc unreadable): on few cores, time the queries could not have.
     */
    public Long compilerCpuMillis;
    /** Restart: bytes of the hot set the Directory loaded or found cached at open, and recorded; -1: none. */
    public long hotSetLoadedBytes = -1;
    public long hotSetRecordedBytes = -1;
    /**
     * Restart: seconds from the Directory's open until its hot set's load ended (sampled every 10
     * ms), or null where unknown: no hot set, the load still ran at the window's end, or results
     * written without it.
     */
    public Double hotSetLoadSeconds;
    /** Reads the worker's I/O group made from the index's disk in the cell (throttled regime), or -1. */
    public long deviceReads = -1;
    /**
     * Pressure and throttled: the group's limit when the cell started, the lowest and highest the
     * {@code LimitKeeper} set during it (-1: none) and how many times it set one.
     */
    public long limitStartBytes = -1;
    public long limitLowestBytes = -1;
    public long limitHighestBytes = -1;
    public int limitWrites;
    /** Pressure only: page cache charged to the group at the end of the cell. */
    public long pageCacheBytes = -1;
    /**
     * Restart only (else null): per interval of {@link #intervalSeconds} from the Directory's open,
     * the queries completed per second and their p99 (-1: none completed).
     */
    public double[] intervalQps;
    public long[] intervalP99Micros;
    public double intervalSeconds;
    /** Mean latency per query kind over all rounds, in microseconds. */
    public java.util.Map<String, Double> meanMicrosByKind = new java.util.TreeMap<>();
    /** dir-cached only: what its block cache did, summed over rounds. */
    public CacheUse cache;
    /** Pressure only: the worker's memory against its cgroup's limit. */
    public MemoryCheck memory;
    /** Why the cell has no figures (its worker failed, e.g. killed by the OOM killer), or null. */
    public String failure;

    public QueryCell(String regime, String directory, int threads, int rounds) {
      this.regime = regime;
      this.directory = directory;
      this.threads = threads;
      this.qps = new double[rounds];
      this.p50Micros = new double[rounds];
      this.p99Micros = new double[rounds];
    }
  }

  /** What the Lucene-level comparison ran on. */
  public static final class Lucene {
    public String index;
    public long indexBytes;
    public String corpus;
    public long docs;
    public int segments;
    public int mixSize;
    /** {@code QueryMix.fingerprint()}: two runs with the same one ran the same queries. */
    public long mixFingerprint;
    /**
     * Pressure: the limit the worker measured under (set after the warm-up), what it held besides page
     * cache then (blocks of a cache of our own excluded), and the limit it reopened the Directory under.
     */
    public long pressureLimit = -1;
    public long pressureLimitAtOpen = -1;
    public long pressureOtherBytes = -1;
    /**
     * Pressure and the regimes set up like it, in a worker: the seconds it waited for its JIT
     * compiler to fall quiet after the warm-ups, and whether it did within the cap (-1: no wait).
     */
    public double settleSeconds = -1;
    public boolean settleQuiet;
    /** The same, gathered by the parent: per regime, one entry per worker ("dir-x 1.2 s"). */
    public java.util.Map<String, java.util.List<String>> settles = new java.util.TreeMap<>();
    /** Pressure, dir-cached: its cache, and the page-cache budget minus it (the slack), by how it was measured. */
    public long cachedPressureBytes = -1;
    public long cachedSlackBytes = -1;
    /** The slack's parts: the JVM's own file pages left after evicting the index, and the growth headroom. */
    public long slackFileBytes = -1;
    public long slackGrowthBytes = -1;
    /** How dir-cached's cache under pressure was sized, in words. */
    public String cachedSizing;
    /** Merge: the dirty page limits set during it (cgroup v1), or null. */
    public String mergeDirtyLimit;
    /** Throttled, merge and neighbour: the disk's I/O scheduler during them, in words, or null. */
    public String operatorsScheduler;
    /** Throttled: the I/O group's caps. */
    public String throttle;
  }

  /** One row of the legend: what a strategy name stands for. */
  public record Legend(String name, String className, String configuration, String jvmFlags) {}

  /**
   * One run of the changing-memory regime: a Directory at one thread count, queries running all
   * along while a second process in the same cgroup takes memory. Times are seconds from the start
   * of the queries.
   */
  public static final class Changing {
    public String directory;
    public int threads;
    /** Why the run has no figures, or null. */
    public String failure;
    public long limitBytes = -1;
    /** What the worker held besides page cache when it set the limit. */
    public long otherBytes = -1;
    public long indexBytes;
    /** Anonymous memory the second process held. */
    public long hogBytes = -1;
    /** dir-cached: its cache, and the slack it leaves of the phase-B page-cache budget. */
    public long cacheBytes = -1;
    public long slackBytes = -1;
    public double hogStart;
    public double hogHeld;
    public double phaseBStart;
    public double end;
    public double qpsA;
    public double qpsSettling;
    public double qpsB;
    public double p99MicrosA;
    public double p99MicrosB;
    /**
     * The lowest and highest limit the phase-B {@code LimitKeeper} set (-1: none; it starts from
     * {@link #limitBytes}), and how many times it set one.
     */
    public long limitLowestBytes = -1;
    public long limitHighestBytes = -1;
    public int limitWrites;
    /** Mean page cache charged to the group in phase A and in phase B. */
    public long pageCacheA = -1;
    public long pageCacheB = -1;
    public double stallSeconds;
    public double stallStart;
    /** Per interval of {@link #intervalSeconds}: completed queries per second, p99 (-1: none), page cache. */
    public double intervalSeconds;
    public double[] intervalQps;
    public long[] intervalP99Micros;
    public long[] intervalPageCache;
    /** Ratios to the best alternative of the same phase and thread count, set by the parent (NaN: none). */
    public double ratioA = Double.NaN;
    public double ratioB = Double.NaN;
    public String bestA;
    public String bestB;
  }

  public String date;
  public String command;
  public Map<String, String> machine = new LinkedHashMap<>();
  public Map<String, String> regimes = new LinkedHashMap<>();
  public long fileSize;
  /** Size of the pressure regime's data file, when that regime ran. */
  public long pressureFileSize;
  public List<Cell> cells = new ArrayList<>();
  public List<Batch> batchPrefetch = new ArrayList<>();
  public List<PrefetchDistanceRun.Result> prefetchDistance = new ArrayList<>();
  public List<PrefetchLatencyRun.Result> prefetchLatency = new ArrayList<>();
  public Map<String, Double> reference = new LinkedHashMap<>();
  public List<String> skipped = new ArrayList<>();
  public Lucene lucene;
  public List<QueryCell> queryCells = new ArrayList<>();
  /** Regimes whose ratios are taken against another strategy than {@link Report#baseline}'s. */
  public Map<String, String> baselines = new LinkedHashMap<>();
  /** Markdown put before the tables (a command's own summary), or null. */
  public String preface;
  /** What each strategy name of the Lucene-level comparison stands for. */
  public List<Legend> legend = new ArrayList<>();
  /** Our Directories against the best alternative per regime and thread count ({@link Headline}). */
  public List<Headline.Cell> headline = new ArrayList<>();
  /** The changing-memory regime's runs. */
  public List<Changing> changing = new ArrayList<>();
  /** The merge and noisy-neighbour runs. */
  public List<DisturbedResult> disturbed = new ArrayList<>();

  public QueryCell queryCell(String regime, String directory, int threads) {
    for (QueryCell c : queryCells) {
      if (c.regime.equals(regime) && c.directory.equals(directory) && c.threads == threads) {
        return c;
      }
    }
    return null;
  }

  public Batch batch(String regime, String strategy, int readSize, int batch, boolean prefetch) {
    for (Batch b : batchPrefetch) {
      if (b.regime.equals(regime) && b.strategy.equals(strategy) && b.readSize == readSize && b.batch == batch
          && b.prefetch == prefetch) {
        return b;
      }
    }
    return null;
  }

  /** Adds the batch cells of one regime, each with {@code rounds} empty rounds. */
  public void addBatches(String regime, List<String> strategies, int[] readSizes, int[] batches, boolean[] prefetchModes,
      int rounds) {
    for (int rs : readSizes) {
      for (String s : strategies) {
        for (int b : batches) {
          for (boolean p : prefetchModes) {
            batchPrefetch.add(new Batch(regime, s, rs, b, p, rounds));
          }
        }
      }
    }
  }

  public Cell cell(String regime, String strategy, int readSize, int threads) {
    for (Cell c : cells) {
      if (c.regime.equals(regime) && c.strategy.equals(strategy) && c.readSize == readSize && c.threads == threads) {
        return c;
      }
    }
    return null;
  }
}
