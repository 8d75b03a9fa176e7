package dev.pread.bench.cli;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP_RANDOM;
import static dev.pread.bench.raw.StrategyRegistry.DIR_NIOFS;
import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;
import static dev.pread.bench.raw.StrategyRegistry.FFI_PREAD;
import static dev.pread.bench.raw.StrategyRegistry.FILECHANNEL_DIRECT;
import static dev.pread.bench.raw.StrategyRegistry.FILECHANNEL_HEAP;

import dev.pread.bench.cache.CachePressureBench;
import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.cache.ZipfBlocks;
import dev.pread.bench.lucene.Corpus;
import dev.pread.bench.lucene.LuceneBench;
import dev.pread.bench.pressure.CacheControl;
import dev.pread.bench.pressure.DeviceReadAhead;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.PressureOptions;
import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.pressure.WorkerProcess;
import dev.pread.bench.raw.BatchCells;
import dev.pread.bench.raw.DataFile;
import dev.pread.bench.raw.PrefetchLatencyRun;
import dev.pread.bench.raw.RandomReadRun;
import dev.pread.bench.raw.RawPreadStrategy;
import dev.pread.bench.raw.Strategy;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.raw.WarmReads;
import dev.pread.bench.raw.WorkerCommand;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.MachineInfo;
import dev.pread.bench.report.Report;
import dev.pread.bench.report.Results;
import dev.pread.store.PreadDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./pread bench}: the comparison report. The Lucene-level comparison ({@link LuceneBench});
 * random reads through every strategy in three regimes (warm; cold: page cache dropped before each
 * cell; pressure: a child JVM in a memory cgroup well below the file size), reference rows (the
 * device's O_DIRECT ceiling and page-cache copy bandwidth), cold prefetch latency and, under
 * pressure, the prefetch-distance sweep; and the block-cache sections of dir-cached: all cached
 * against mmap ({@link WarmReads}), Zipf-skewed reads under pressure ({@link CachePressureBench}),
 * cold batched prefetch. Writes results.json, report.md and PNG charts to {@code
 * bench-results/<timestamp>/}.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Compare Directories on a Lucene index and query mix, and read strategies, warm, cold and under a"
        + " memory limit; write a report.",
    footer = {
      "%nSections (--sections):",
      "  lucene  a seeded query mix on one index through each Directory",
      "          (--directories), warm, cold and under a memory limit; one JVM",
      "          per Directory and regime.",
      "  raw     read strategies (not in the default run; --sections lucene,raw",
      "          or --full): warm, cold and pressure random reads, reference",
      "          rows, prefetch latency, distance and batches, and the cache",
      "          sections.",
      "  cache   only the block-cache sections of raw, for dir-cached:",
      "          - warm, all cached: random readLong and 16 KiB readBytes, its",
      "            cache holding the file, against dir-mmap and dir-pread;",
      "          - pressure, Zipf: Zipf-skewed 16 KiB reads (--zipf-exponent) in",
      "            a memory cgroup below the file, its cache half the limit,",
      "            against dir-pread and dir-mmap-random; one worker JVM per",
      "            strategy and round; peak memory against the limit is",
      "            reported, and an OOM kill fails the run;",
      "          - cold, batched: prefetch B distinct blocks, then read them,",
      "            after dropping the page cache; a fresh cache per cell",
      "            (--cache-cold-budget).",
      "Lucene regimes (--regimes): warm, cold, pressure (a memory cgroup, a",
      "quarter of the index for page cache) and changing (the index fits, then a",
      "second process in the same cgroup takes memory until a quarter of it",
      "does; QPS and p99 per second, stalls; with --full or when named);",
      "and the operators' regimes under the same limit: throttled (the disk",
      "capped at 3,000 read IOPS and 125 MB/s by an I/O cgroup), merge (a",
      "force-merge through the same Directory during the queries) and",
      "neighbour (another process in the group streams a large file); the",
      "default run has a short version of each on dir-adaptive and",
      "dir-mmap-random at 1 thread, --full every Directory and thread count.",
      "The report opens with a legend (class, configuration and JVM flags of",
      "each name) and the headline: dir-adaptive, dir-pread and dir-cached",
      "against the best of dir-mmap, dir-mmap-random and dir-niofs per regime",
      "and thread count. dir-adaptive is AdaptiveDirectory with no",
      "configuration: it sizes itself from the cgroup.",
      "dir-cached is CachedPreadDirectory: O_DIRECT into a block cache of its",
      "own (--cache-block-size). Warm, its cache holds the file or index; under",
      "pressure it gets half the cgroup limit (raw), or (Lucene) the page-cache",
      "budget the other Directories get minus a slack its worker measures: the",
      "JVM's own file pages plus the growth of its other memory during a short",
      "query run (--cache-pressure-share overrides).",
      "Block-size sweep: ./pread cli cache-block-sizes --help"
    })
final class BenchCommand implements Callable<Integer> {
  @Option(names = "--full", description = "Run the whole matrix (3 GiB index, 30 s cold, 4 GiB file, 1/2/4/8 threads, every prefetch distance and batch size, 8 KiB batches, more rounds).")
  boolean full;

  @Option(names = "--regimes", split = ",", description = "Any of warm, cold, pressure, changing, throttled, merge,"
      + " neighbour (default: warm, cold, pressure and short throttled, merge and neighbour runs; all with --full)."
      + " changing, throttled, merge and neighbour are Lucene only.")
  List<String> regimes;

  @Option(names = "--dir", description = "Folder for the data file (default: ${DEFAULT-VALUE}).")
  Path dir = Path.of("bench-data");

  @Option(names = "--file-size", description = "Data file size, e.g. 1g (default: 1g; 4g with --full).")
  String fileSize;

  @Option(names = "--read-sizes", split = ",", description = "Warm read sizes (default: ${DEFAULT-VALUE}).")
  List<String> readSizes = List.of("4k", "16k");

  @Option(names = "--threads", split = ",", description = "Warm thread counts (default: 1,2; 1,2,4,8 with --full).")
  List<Integer> threads;

  @Option(names = "--strategies", split = ",", description = "Strategies (default: ${DEFAULT-VALUE}; also filechannel-heap, mmap, ffi-pread-odirect, dir-cached).")
  List<String> strategies = StrategyRegistry.CLI_DEFAULT;

  @Option(names = "--rounds", description = "Warm rounds of the raw read strategies (default: 3; 15 with --full).")
  Integer rounds;

  @Option(names = "--seconds", description = "Measured seconds per warm cell and round of the raw read strategies (default: 0.1; 0.2 with --full).")
  Double secondsOption;

  /** {@code --seconds}, or its default once {@link #plan()} has run. */
  double seconds = 0.2;

  @Option(names = "--io-seconds", description = "Measured seconds per cold or pressure cell (default: ${DEFAULT-VALUE}).")
  double ioSeconds = 1.5;

  @Option(names = "--io-rounds", description = "Rounds of cold and pressure cells (default: 2; 5 with --full).")
  Integer ioRounds;

  @Mixin PressureOptions pressureSetup = new PressureOptions();

  @Option(names = "--buffer-size", description = "PreadDirectory buffer size (default: ${DEFAULT-VALUE}).")
  int bufferSize = PreadDirectory.DEFAULT_BUFFER_SIZE;

  @Option(names = "--cache-block-size", description = "dir-cached's block size (default: 16k, BlockCache's default).")
  String cacheBlockSizeOption;

  @Option(names = "--cache-admission", description = "dir-cached's frequency admission: on, off, or both"
      + " (both: the Zipf pressure section also runs dir-cached-clock, the same cache without admission;"
      + " elsewhere on). Default: ${DEFAULT-VALUE}.")
  String cacheAdmission = "on";

  @Option(names = "--cache-pressure-share", description = "Overrides the sizing of dir-cached's cache under a"
      + " limit in the Lucene comparison: a share of the page-cache budget the other Directories get inside the"
      + " same limit (1.0 gives it equal memory). Default: the budget minus a slack measured in its worker.")
  Double cachePressureShare;

  @Option(names = "--changing-seconds", description = "Changing memory: seconds of each measured phase (default:"
      + " 5; 10 with --full).")
  Double changingSeconds;

  @Option(names = "--changing-settle-seconds", description = "Changing memory: seconds between the second process"
      + " holding its memory and phase B (default: ${DEFAULT-VALUE}).")
  double changingSettleSeconds = 10;

  @Option(names = "--indexing-rate", description = "Merge regime: the bulk-indexing load that follows the"
      + " force-merge (the corpus's first documents indexed in turn through the same Directory by one thread, a"
      + " near-real-time refresh every second): max (as fast as that thread indexes), a rate in MB of source text a"
      + " second, or off. Default: ${DEFAULT-VALUE}.")
  String indexingRate = "max";

  @Option(names = "--indexing-nice", description = "Merge regime: the nice value of the bulk-indexing load's"
      + " writer thread, 0 to 19, and so of the merge threads it starts (which inherit it): 0 leaves it at the"
      + " worker's own; 10 gives it about a tenth of a core the queries want, as an operator can run indexing on a"
      + " machine with few cores. The same for every Directory. Default: ${DEFAULT-VALUE}.")
  int indexingNice = 0;

  @Option(names = "--neighbour-io-class", description = "Noisy neighbour: the I/O scheduling class of the"
      + " neighbour's reads, best-effort (as any process) or idle (ionice -c3, what an operator can give a backup"
      + " or log shipper; served only while no other process waits for the disk). Default: ${DEFAULT-VALUE}.")
  String neighbourIoClass = "best-effort";

  @Option(names = "--operators-scheduler", description = "Throttled, merge and neighbour: the I/O scheduler of the"
      + " disk that holds --dir during these regimes, set for each and restored after (root), or keep (the disk's"
      + " own). BFQ is the Linux scheduler that weighs best-effort levels, at the highest of which AdaptiveDirectory"
      + " and CachedPreadDirectory read what a query waits on. Default: ${DEFAULT-VALUE}.")
  String operatorsScheduler = "bfq";

  @Option(names = "--device-read-ahead-kb", description = "Sets the readahead window (read_ahead_kb) of the disk"
      + " that holds --dir to this many KiB for the run, and restores it after (root). It applies to every file on"
      + " the disk: page faults, buffered misses, a neighbour's reads. Default: the disk's own, as the report states.")
  Integer deviceReadAheadKb;

  @Option(names = "--cache-cold-budget", description = "dir-cached's cache in the cold batched-prefetch cells,"
      + " fresh per cell (default: ${DEFAULT-VALUE}). Warm it holds the file or index; under pressure it is half"
      + " the cgroup limit (raw) or half the page-cache budget (Lucene).")
  String cacheColdBudget = "256m";

  @Option(names = "--zipf-exponent", description = "Skew of the pressure Zipf reads: block of rank k read with"
      + " probability proportional to 1/k^s (default: ${DEFAULT-VALUE}).")
  double zipfExponent = ZipfBlocks.DEFAULT_EXPONENT;

  @Option(names = "--out", description = "Results folder (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("bench-results");

  @Option(names = "--sections", split = ",", description = "Any of lucene (index and queries), raw (read strategies,"
      + " block-cache sections included), cache (only the block-cache sections: all cached against mmap, Zipf reads"
      + " under pressure, cold batched prefetch). Default: lucene (lucene and raw with --full).")
  List<String> sections;

  @Option(names = "--index-size", description = "Target size of the Lucene-level index (default: 128m; 3g with --full).")
  String indexSize;

  @Option(names = "--directories", split = ",", description = "Directories of the Lucene-level comparison"
      + " (default: dir-pread, dir-mmap, dir-mmap-random, dir-niofs, dir-cached; also dir-pread-readahead).")
  List<String> directories = StrategyRegistry.LUCENE_DEFAULT;

  @Option(names = "--mix-size", description = "Queries in the Lucene-level mix (default: 1000; 10000 with --full).")
  Integer mixSize;

  @Option(names = "--corpus", description = "auto (the JDK's src.zip when present) or generated (default: ${DEFAULT-VALUE}).")
  String corpus = "auto";

  @Option(names = "--query-seconds", description = "Measured seconds per round of a warm query cell (3 rounds; default: 0.6, 10 with --full) and per pressure query cell (default: 2, 10 with --full).")
  Double querySeconds;

  @Option(names = "--jit-warmup-seconds", description = "Seconds of queries each worker runs at 1 thread before it measures, for the JIT (default: 2; 5 with --full).")
  Double jitWarmupSeconds;

  @Option(names = "--jit-settle-seconds", description = "Under a limit (pressure, throttled, merge, neighbour): the longest each worker runs queries after its warm-up, waiting for its JIT compiler threads to use at most 10%% of a core over 1 s, before it measures (default: 6; 20 with --full; 0: no wait). A Directory whose read path changed under the limit compiles it again there, and on two cores a cell measured while the JIT compiles measures the JIT.")
  Double settleCapSeconds;

  @Option(names = "--cold-seconds", description = "Seconds of queries measured after dropping the cache (default: 3; 30 with --full).")
  Double coldSeconds;

  private static final int IO_READ_SIZE = 16384;

  /** dir-cached's block size, from --cache-block-size. */
  private int cacheBlockSize;

  @Override
  public Integer call() throws Exception {
    Plan p = plan();
    Path file = dataFile(p.size);
    if (p.raw || p.cacheSections) {
      DataFile.ensure(file, p.size);
    }
    try (DeviceReadAhead readAhead = deviceReadAheadKb == null ? null : DeviceReadAhead.setFor(dir, deviceReadAheadKb)) {
      Results r = startResults(file, p.size, readAhead);
      settleRegimes(r, p);
      try (Progress pb = Progress.start("bench", steps(p), "")) {
        runSections(r, p, file, pb);
      }
      writeReport(r);
    }
    return 0;
  }

  /**
   * What one run does, resolved from the options: sizes, rounds and thread counts (the defaults,
   * or those of --full), the sections and regimes, and which strategies each part reads with.
   */
  private static final class Plan {
    long size;
    List<Integer> warmThreads;
    int warmRounds;
    int ioRounds;
    int[] readSizes;
    int[] distances;
    int[] batches;
    int batchRounds;
    int[] batchSizes;
    /** Strategies of the cold batched-prefetch cells (the pressure worker's are its own). */
    List<String> batchStrategies;
    long[] delays;
    List<String> regimes;
    boolean lucene;
    /** Every part of raw: with --full, or --sections raw. */
    boolean raw;
    boolean cacheSections;
    boolean warm;
    boolean cold;
    /** False when the machine has no memory cgroup to run it in ({@link #settleRegimes}). */
    boolean pressure;
    List<String> pressureStrategies;
    LuceneBench.Options luceneOptions;
    CachePressureBench.Options zipf;

    boolean rawCold() {
      return raw && cold;
    }

    boolean rawPressure() {
      return raw && pressure;
    }

    boolean cacheWarm() {
      return cacheSections && warm;
    }

    boolean cacheCold() {
      return cacheSections && cold;
    }

    boolean cachePressure() {
      return cacheSections && pressure;
    }
  }

  /** Resolves and checks the options: an unknown name or a value out of range fails here. */
  private Plan plan() {
    Plan p = new Plan();
    if (deviceReadAheadKb != null && deviceReadAheadKb < 0) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--device-read-ahead-kb must not be negative (got " + deviceReadAheadKb + ")");
    }
    if (settleCapSeconds != null && !(settleCapSeconds >= 0)) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--jit-settle-seconds must be 0 or more (got " + settleCapSeconds + ")");
    }
    p.size = Format.parseBytes(fileSize != null ? fileSize : full ? "4g" : "1g");
    p.warmThreads = threads != null ? threads : full ? List.of(1, 2, 4, 8) : List.of(1, 2);
    p.warmRounds = rounds != null ? rounds : full ? 15 : 3;
    // The default run's raw cells read warm pages at hundreds of thousands of reads a second: 0.1 s
    // is tens of thousands of reads a cell, and keeps the run within its minutes.
    seconds = secondsOption != null ? secondsOption : full ? 0.2 : 0.1;
    p.ioRounds = ioRounds != null ? ioRounds : full ? 5 : 2;
    p.distances = full ? new int[] {0, 1, 2, 4, 8, 16, 32, 64} : new int[] {0, 1, 4, 16, 64};
    p.batches = full ? new int[] {1, 2, 4, 8, 16, 32, 64} : new int[] {1, 4, 16, 64};
    p.batchRounds = full ? p.ioRounds : Math.min(2, p.ioRounds);
    p.batchSizes = full ? new int[] {8192, IO_READ_SIZE} : new int[] {IO_READ_SIZE};
    p.delays = full ? new long[] {0, 50, 100, 200, 500} : new long[] {0, 200};
    for (String s : strategies) {
      if (!StrategyRegistry.STRATEGIES.contains(s)) {
        throw new picocli.CommandLine.ParameterException(
            new picocli.CommandLine(this), "unknown strategy '" + s + "'; known: " + StrategyRegistry.STRATEGIES);
      }
    }
    for (String d : directories) {
      if (!StrategyRegistry.DIRECTORIES.contains(d)) {
        throw new picocli.CommandLine.ParameterException(
            new picocli.CommandLine(this), "unknown directory '" + d + "'; known: " + StrategyRegistry.DIRECTORIES);
      }
    }
    // The default run is the Lucene comparison alone, which keeps it within 6 minutes on 2 cores.
    List<String> chosen = sections != null ? sections : full ? List.of("lucene", "raw") : List.of("lucene");
    for (String x : chosen) {
      if (!x.equals("raw") && !x.equals("lucene") && !x.equals("cache")) {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "unknown section '" + x + "'; known: lucene, raw, cache");
      }
    }
    p.raw = chosen.contains("raw");
    p.lucene = chosen.contains("lucene");
    // The block-cache sections: part of raw, or alone with --sections cache.
    p.cacheSections = p.raw || chosen.contains("cache");
    if (!List.of("on", "off", "both").contains(cacheAdmission)) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--cache-admission must be on, off or both (got '" + cacheAdmission + "')");
    }
    cacheBlockSize = (int) Format.parseBytes(cacheBlockSizeOption != null ? cacheBlockSizeOption
        : Integer.toString(dev.pread.cache.BlockCache.DEFAULT_BLOCK_SIZE));
    p.readSizes = readSizes.stream().mapToInt(x -> (int) Format.parseBytes(x)).toArray();
    List<String> known = List.of("warm", "cold", "pressure", "changing", "throttled", "merge", "neighbour", "restart");
    p.regimes = this.regimes != null ? this.regimes
        : full ? known : List.of("warm", "cold", "pressure", "throttled", "merge", "neighbour", "restart");
    for (String g : p.regimes) {
      if (!known.contains(g)) {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "unknown regime '" + g + "'; known: " + String.join(", ", known));
      }
    }
    p.warm = p.regimes.contains("warm");
    p.cold = p.regimes.contains("cold");
    p.pressure = p.regimes.contains("pressure");
    p.pressureStrategies =
        strategies.stream().filter(s -> !s.equals(FILECHANNEL_DIRECT) && !s.equals(FILECHANNEL_HEAP)).toList();
    p.zipf = zipfOptions(p.ioRounds);
    return p;
  }

  /** The run's results with what they were measured on: date, command, machine (printed too). */
  private static Results startResults(Path file, long size, DeviceReadAhead readAhead) {
    Results r = new Results();
    r.date = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
    r.command = "./pread bench" + (System.getProperty("pread.args", "").isBlank() ? "" : " " + System.getProperty("pread.args"));
    r.fileSize = size;
    r.machine = MachineInfo.collect(file);
    r.machine.put("native pread", PreadDirectory.nativeUnavailableReason().map(x -> "OFF: " + x).orElse("on"));
    if (readAhead != null) {
      r.machine.put("read_ahead_kb", r.machine.get("read_ahead_kb") + " (set for this run by --device-read-ahead-kb;"
          + " the disk's own: " + readAhead.before() + ")");
    }
    System.out.println();
    r.machine.forEach((k, v) -> System.out.printf("  %-14s %s%n", k, v));
    System.out.println();
    return r;
  }

  /**
   * Drops the pressure regime where the machine cannot run it, notes in {@code r} what the run
   * leaves out, and settles the Lucene options and the cold batch strategies.
   */
  private void settleRegimes(Results r, Plan p) {
    String pressureWhyNot = p.pressure ? MemoryCgroup.unavailableReason().orElse(null) : null;
    if (pressureWhyNot != null) {
      String msg = "pressure regime: " + pressureWhyNot;
      System.out.println("Skipping " + msg);
      r.skipped.add(msg);
      p.pressure = false;
    }
    p.luceneOptions = luceneOptions(p.warm, p.cold, p.pressure);
    p.luceneOptions.changing = p.regimes.contains("changing");
    p.luceneOptions.throttled = p.regimes.contains("throttled");
    p.luceneOptions.merge = p.regimes.contains("merge");
    p.luceneOptions.neighbour = p.regimes.contains("neighbour");
    p.luceneOptions.restart = p.regimes.contains("restart");
    if (!full) {
      // Short versions: ours against the best alternative under a limit, 1 thread (the default run stays
      // within 6 minutes on 2 cores); --full runs every Directory and thread count.
      p.luceneOptions.operatorDirectories = p.luceneOptions.directories.stream()
          .filter(d -> d.equals(dev.pread.bench.raw.StrategyRegistry.DIR_ADAPTIVE) || d.equals(DIR_MMAP_RANDOM)).toList();
      p.luceneOptions.operatorThreads = new int[] {1};
      // A merge window of 6 s: the run stays within its minutes with the index built in a fresh clone.
      // 5 s after each disturbance: recoveries of up to 3 s show (two 1 s intervals at 90% follow).
      // The bulk-indexing load, 3 s, when the merge regime is asked for by name (below).
      p.luceneOptions.disturbedBeforeSeconds = 2;
      p.luceneOptions.neighbourSeconds = 5;
      p.luceneOptions.mergeCapSeconds = 6;
      p.luceneOptions.indexingSeconds = 3;
      p.luceneOptions.disturbedAfterSeconds = 5;
      // Restart: ours against MMapDirectory, whose readahead makes it the best alternative warm and cold.
      p.luceneOptions.restartDirectories = p.luceneOptions.directories.stream()
          .filter(d -> d.equals(dev.pread.bench.raw.StrategyRegistry.DIR_ADAPTIVE) || d.equals(DIR_MMAP)).toList();
      p.luceneOptions.restartSeconds = 3;
    } else {
      // The operators' regimes at 1 query thread, as the figures they are compared with; the merge
      // of the 3 GiB index is measured for at most a minute.
      p.luceneOptions.operatorThreads = new int[] {1};
      p.luceneOptions.mergeCapSeconds = 60;
      p.luceneOptions.disturbedBeforeSeconds = 5;
      p.luceneOptions.neighbourSeconds = 20;
      p.luceneOptions.disturbedAfterSeconds = 15;
      p.luceneOptions.indexingSeconds = 60;
      p.luceneOptions.neighbourFileBytes = 4L << 30;
    }
    if (p.lucene && p.luceneOptions.merge && !full && this.regimes == null) {
      p.luceneOptions.indexingSeconds = 0;
      r.skipped.add("lucene bulk indexing (the merge regime's second load): not in the default run, which it would"
          + " take past 6 minutes on 2 cores (12 s more for each of its two workers); ./pread bench --regimes merge,"
          + " or --full");
    }
    if (p.lucene && !p.luceneOptions.changing && this.regimes == null) {
      r.skipped.add("lucene changing memory: not in the default run, which it would take past 6 minutes on 2 cores"
          + " (a worker per Directory, two thread counts, each with 10 s of settling); ./pread bench --regimes"
          + " warm,cold,pressure,changing, or --full");
    }
    if (sections == null && !full) {
      r.skipped.add("raw read strategies (warm, cold and under pressure, reference rows, batched prefetch, prefetch"
          + " distance and latency) and the block-cache sections: not in the default run, which they would take past"
          + " 6 minutes on 2 cores; ./pread bench --sections lucene,raw (--sections cache for the block-cache sections"
          + " alone), or --full");
    }
    if (p.cacheCold() && !p.rawCold()) {
      p.batchStrategies = List.of(DIR_CACHED, DIR_PREAD);
    } else if (p.cacheCold()) {
      p.batchStrategies = List.of(DIR_PREAD, DIR_MMAP_RANDOM, DIR_NIOFS, DIR_CACHED);
    } else {
      p.batchStrategies = PRESSURE_BATCH_STRATEGIES;
    }
  }

  /** Strategies of the batched-prefetch cells under pressure (and cold, without the cache sections). */
  private static final List<String> PRESSURE_BATCH_STRATEGIES = List.of(DIR_PREAD, DIR_MMAP_RANDOM, DIR_NIOFS);

  /** The progress bar's steps: one per cell, worker line or section of the plan. */
  private long steps(Plan p) {
    long batchCells = (long) p.batchRounds * p.batchSizes.length * p.batches.length * PRESSURE_BATCH_STRATEGIES.size();
    long coldBatchCells = (long) p.batchRounds * p.batchSizes.length * p.batches.length * p.batchStrategies.size();
    return (p.lucene ? LuceneBench.steps(p.luceneOptions) * LUCENE_STEP_WEIGHT : 0) + (!p.raw ? 0 : (p.warm ? (long) p.warmRounds
        * p.readSizes.length * p.warmThreads.size() * strategies.size() + 3 + p.warmRounds * 4L : 0)
        + (p.rawCold() ? (long) p.ioRounds * strategies.size() + 4L * p.delays.length : 0)
        + (p.rawPressure() ? (long) p.ioRounds * p.pressureStrategies.size() * 2 + p.distances.length + batchCells : 0))
        + (p.rawCold() || p.cacheCold() ? coldBatchCells : 0)
        + (p.cacheWarm() ? WarmReads.steps(CACHED_WARM_STRATEGIES, CACHED_WARM_SIZES, p.warmThreads, p.warmRounds) : 0)
        + (p.cachePressure() ? CachePressureBench.steps(p.zipf, cacheAdmission.equals("both") ? 4 : 3) : 0);
  }

  /** Runs every section of the plan, in report order. */
  private void runSections(Results r, Plan p, Path file, Progress pb) throws Exception {
    if (p.lucene) {
      LuceneBench.run(r, p.luceneOptions, progress(pb, LUCENE_STEP_WEIGHT));
    }
    if (p.raw && p.warm) {
      runWarm(r, file, p.size, p.readSizes, p.warmThreads, p.warmRounds, pb);
      runReference(r, file, p.size, pb);
      runWarmBatches(r, file, p.size, p.warmRounds, pb);
    }
    if (p.cacheWarm()) {
      runCachedWarm(r, file, p.size, p.warmThreads, p.warmRounds, pb);
    }
    if (p.rawCold()) {
      runCold(r, file, p.size, strategies, p.ioRounds, pb);
      runLatency(r, file, p.size, p.delays, pb);
    }
    if (p.rawCold() || p.cacheCold()) {
      runColdBatches(r, p, pb);
    }
    if (p.rawPressure()) {
      long psize = pressureSetup.fileSizeBytes();
      Path pfile = psize == p.size ? file : dataFile(psize);
      pb.setExtraMessage("pressure: data file " + pfile.getFileName());
      DataFile.ensure(pfile, psize);
      r.pressureFileSize = psize;
      runPressure(r, pfile, psize, p.pressureStrategies, p.ioRounds, p.distances, p.batchSizes, pb);
    }
    if (p.cachePressure()) {
      runZipfPressure(r, p.zipf, pb);
    }
  }

  /** Warm: the cost of prefetching data the page cache already holds. */
  private void runWarmBatches(Results r, Path file, long size, int rounds, Progress pb) throws Exception {
    pb.setExtraMessage("warm: cost of prefetching cached data");
    DataFile.warm(file);
    BatchCells.of("warm", name -> StrategyRegistry.openStrategy(name, file, bufferSize), size,
            List.of(DIR_PREAD, DIR_MMAP_RANDOM))
        .readSizes(IO_READ_SIZE).batches(16).prefetchModes(false, true).rounds(rounds).millis(250).step(pb::step)
        .run(r);
  }

  /** Cold, batched: prefetch B distinct blocks, then read them, after dropping the page cache. */
  private void runColdBatches(Results r, Plan p, Progress pb) throws Exception {
    // Distinct blocks of the larger data file, so that no read hits a page the run brought in.
    long bsize = Math.max(p.size, pressureSetup.fileSizeBytes());
    Path bfile = dataFile(bsize);
    DataFile.ensure(bfile, bsize);
    CacheSettings coldCache = new CacheSettings(Format.parseBytes(cacheColdBudget), cacheBlockSize);
    // 1 s, or less when --io-seconds asks for shorter cells (a small file has few distinct blocks).
    long coldBatchMillis = (long) Math.min(1000, ioSeconds * 1000);
    r.regimes.put("cold, batched", String.format(Locale.ROOT, "the page cache is dropped before every cell by"
        + " %s; the %s file; %.1f s per cell; every read is of a distinct block aligned to its size, so no read"
        + " is served by a page the cell brought in; each cell opens its strategy afresh (dir-cached: a new,"
        + " empty cache, %s; O_DIRECT, so it never reads the page cache)", CacheControl.method(),
        Format.bytes(bsize), coldBatchMillis / 1000.0, coldCache.describe()));
    List<String> bs = p.batchStrategies;
    // With dir-cached, reads are distinct at its block size too: no read may hit a block the cell loaded.
    long unit = bs.contains(DIR_CACHED) ? cacheBlockSize : 0;
    BatchCells.of("cold", name -> StrategyRegistry.openStrategy(name, bfile, bufferSize, coldCache), bsize, bs)
        .readSizes(p.batchSizes).batches(p.batches).prefetchModes(true).distinct(unit).rounds(p.batchRounds)
        .millis(coldBatchMillis).before(() -> CacheControl.evict(bfile))
        .step(() -> {
          pb.setExtraMessage("cold batched prefetch");
          pb.step();
        })
        .run(r);
  }

  /** Pressure, Zipf: dir-cached against dir-pread and dir-mmap-random, one worker JVM per strategy and round. */
  private void runZipfPressure(Results r, CachePressureBench.Options zipf, Progress pb) throws Exception {
    long psize = pressureSetup.fileSizeBytes();
    Path pfile = dataFile(psize);
    pb.setExtraMessage("pressure, Zipf: data file " + pfile.getFileName());
    DataFile.ensure(pfile, psize);
    r.pressureFileSize = psize;
    zipf.file = pfile;
    zipf.fileSize = psize;
    r.baselines.put(zipf.regime, DIR_PREAD);
    CacheSettings half = CacheSettings.halfOf(zipf.limit, cacheBlockSize).withAdmission(!cacheAdmission.equals("off"));
    List<CachePressureBench.Candidate> candidates = new ArrayList<>();
    candidates.add(new CachePressureBench.Candidate(DIR_CACHED, DIR_CACHED, half));
    if (cacheAdmission.equals("both")) {
      candidates.add(new CachePressureBench.Candidate(DIR_CACHED + "-clock", DIR_CACHED, half.withAdmission(false)));
    }
    candidates.add(new CachePressureBench.Candidate(DIR_PREAD, DIR_PREAD, null));
    candidates.add(new CachePressureBench.Candidate(DIR_MMAP_RANDOM, DIR_MMAP_RANDOM, null));
    CachePressureBench.run(r, zipf, candidates, progress(pb));
  }

  /** Writes results.json, report.md and the charts; prints the tables, then the legend and headline last, where the run ends. */
  private void writeReport(Results r) throws IOException {
    Path folder = out.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Path report = Report.write(r, folder);
    System.out.println();
    String headline = Report.headline(r);
    System.out.print(Report.markdown(r).replace(headline, "").replaceFirst("(?s)^.*?(?=### )", ""));
    System.out.print(headline);
    System.out.println("Report: " + report.toAbsolutePath());
    System.out.println("Raw results and charts: " + folder.toAbsolutePath());
  }

  /** The all-cached comparison: dir-cached against mmap (and PreadDirectory), random readLong and 16 KiB. */
  static final List<String> CACHED_WARM_STRATEGIES = List.of(DIR_CACHED, DIR_MMAP, DIR_PREAD);

  static final int[] CACHED_WARM_SIZES = {Long.BYTES, IO_READ_SIZE};

  private void runCachedWarm(Results r, Path file, long size, List<Integer> warmThreads, int warmRounds,
      Progress pb) throws Exception {
    CacheSettings all = CacheSettings.holding(size, cacheBlockSize);
    r.baselines.put(CACHED_WARM, DIR_MMAP);
    r.regimes.put(CACHED_WARM, String.format(Locale.ROOT, "dir-cached's block cache holds the whole %s file (%s) and"
        + " is filled through the input, every byte checked, at the start of every round, as the page cache is for"
        + " dir-mmap and dir-pread; readLong is seek + IndexInput.readLong at a random page-aligned offset, 16 KiB"
        + " is seek + readBytes; %d rounds of %.2f s per cell after a 0.1 s warm-up; ratios against dir-mmap",
        Format.bytes(size), all.describe(), warmRounds, seconds));
    WarmReads.run(r, CACHED_WARM, file, size, CACHED_WARM_STRATEGIES, CACHED_WARM_SIZES, warmThreads, warmRounds,
        seconds, name -> StrategyRegistry.openStrategy(name, file, bufferSize, all), progress(pb));
  }

  /** Most seconds a Zipf pressure worker warms up for (it stops once the file's size was read). */
  static final double ZIPF_WARMUP_CAP_SECONDS = 60;

  /** The regime name of the all-cached comparison. */
  static final String CACHED_WARM = "warm, all cached";

  private CachePressureBench.Options zipfOptions(int rounds) {
    CachePressureBench.Options o = new CachePressureBench.Options();
    o.limit = pressureSetup.limitBytes();
    o.heap = pressureSetup.heap;
    o.bufferSize = bufferSize;
    // Steady state: the page cache or block cache full, every miss evicting, and the block cache's
    // admission settled. The sketch needs more than one cache's worth of misses to tell hot blocks
    // from cold: on the Zipf reads (simulated, and measured) a warm-up of a limit's worth leaves the
    // hit ratio below where it settles. So every strategy reads the file's size from storage first
    // (capped in time).
    o.warmupBytes = 0;
    o.warmupCapSeconds = ZIPF_WARMUP_CAP_SECONDS;
    o.seconds = ioSeconds;
    o.rounds = rounds;
    o.threads = full ? new int[] {1, 2} : new int[] {1};
    o.readSize = IO_READ_SIZE;
    o.exponent = zipfExponent;
    return o;
  }

  private LuceneBench.Options luceneOptions(boolean warm, boolean cold, boolean pressure) {
    LuceneBench.Options o = new LuceneBench.Options();
    o.dataDir = dir;
    o.indexSize = Format.parseBytes(indexSize != null ? indexSize : full ? "3g" : "128m");
    o.corpus = switch (corpus) {
      case "auto" -> Corpus.detect();
      case "generated" -> Corpus.generated();
      default -> throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "unknown corpus '" + corpus + "'; known: auto, generated");
    };
    // The mix must touch more than the pressure regime's page-cache budget, or that regime runs warm:
    // with 1000 queries, a 2.1 GiB index's queries all hit a 545 MiB budget after the warm-up.
    o.mixSize = mixSize != null ? mixSize : full ? 10_000 : 1000;
    // Warm: rounds interleaved across the Directories' workers, the headline the median of per-round
    // ratios; the default run's three short rounds take the time one 2 s cell took.
    o.warmSeconds = querySeconds != null ? querySeconds : full ? 10 : 0.6;
    o.warmRounds = 3;
    o.pressureRounds = full ? 3 : 1;
    o.coldSeconds = coldSeconds != null ? coldSeconds : full ? 30 : 3;
    o.pressureSeconds = querySeconds != null ? querySeconds : full ? 10 : 2;
    o.pressureWarmupCapSeconds = full ? 30 : 4;
    o.settleCapSeconds = settleCapSeconds != null ? settleCapSeconds : full ? 20 : 6;
    o.jitWarmupSeconds = jitWarmupSeconds != null ? jitWarmupSeconds : full ? 5 : 2;
    o.pressureHeap = pressureSetup.heap;
    o.pressureOverhead = 192L << 20;
    o.threads = new int[] {1, 2};
    o.directories = directories;
    o.cacheBlockSize = cacheBlockSize;
    o.cacheAdmission = !cacheAdmission.equals("off");
    if (cachePressureShare != null && !(cachePressureShare > 0 && cachePressureShare <= 1)) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--cache-pressure-share must be in (0, 1] (got " + cachePressureShare + ")");
    }
    o.cachePressureShare = cachePressureShare == null ? 0 : cachePressureShare;
    o.changingSeconds = changingSeconds != null ? changingSeconds : full ? 10 : 5;
    o.changingSettleSeconds = changingSettleSeconds;
    if (!neighbourIoClass.equals("best-effort") && !neighbourIoClass.equals("idle")) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--neighbour-io-class must be best-effort or idle (got \"" + neighbourIoClass + "\")");
    }
    o.neighbourIdle = neighbourIoClass.equals("idle");
    o.indexingCharsPerSecond = parseIndexingRate(indexingRate);
    if (indexingNice < 0 || indexingNice > dev.pread.nativeio.CpuPriority.MAX_NICE) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--indexing-nice must be 0 to " + dev.pread.nativeio.CpuPriority.MAX_NICE + " (got " + indexingNice + ")");
    }
    o.indexingNice = indexingNice;
    if (!operatorsScheduler.matches("[a-z][a-z0-9-]*")) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--operators-scheduler must name a scheduler (bfq, mq-deadline, kyber, none) or be keep (got \""
              + operatorsScheduler + "\")");
    }
    o.operatorsScheduler = operatorsScheduler.equals("keep") ? null : operatorsScheduler;
    if (!(o.changingSeconds >= 1 && changingSettleSeconds >= 1)) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--changing-seconds and --changing-settle-seconds must be at least 1");
    }
    o.warm = warm;
    o.cold = cold;
    o.pressure = pressure;
    return o;
  }

  private Path dataFile(long size) {
    return dev.pread.bench.jmh.BenchFiles.dataFile(dir, size);
  }

  private void runWarm(Results r, Path file, long size, int[] sizes, List<Integer> warmThreads, int warmRounds,
      Progress pb) throws Exception {
    r.regimes.put("warm", String.format(Locale.ROOT,
        "the file is read sequentially at the start of every round (a round lasts seconds, well below the"
            + " minute after which this VM's DAMON reclaimer evicts untouched page cache); %d rounds of %.2f s"
            + " per cell after a %.2f s warm-up; page-aligned random offsets; each thread reads its own clone"
            + " or native buffer; inputs stay open across rounds", warmRounds, seconds, 0.1));
    WarmReads.run(r, "warm", file, size, strategies, sizes, warmThreads, warmRounds, seconds,
        name -> StrategyRegistry.openStrategy(name, file, bufferSize, CacheSettings.holding(size, cacheBlockSize)),
        progress(pb));
  }

  /**
   * How many steps of the bar one Lucene step (a worker's cell, seconds of queries in a JVM of its
   * own) counts for against one raw step (a fraction of a second of reads), so that the estimate
   * of the time left, which assumes steps of equal length, is not several times too long or short.
   */
  private static final long LUCENE_STEP_WEIGHT = 12;

  /** A progress callback: shows {@code message} and steps the bar. */
  private static java.util.function.Consumer<String> progress(Progress pb) {
    return progress(pb, 1);
  }

  /** A progress callback: shows {@code message} and steps the bar by {@code weight}. */
  private static java.util.function.Consumer<String> progress(Progress pb, long weight) {
    return message -> {
      pb.setExtraMessage(message);
      pb.stepBy(weight);
    };
  }

  private void runReference(Results r, Path file, long size, Progress pb) throws Exception {
    pb.setExtraMessage("reference: page-cache copy bandwidth");
    DataFile.warm(file);
    try (Strategy s = new RawPreadStrategy(file, false)) {
      int threadsHere = Runtime.getRuntime().availableProcessors();
      double rps = RandomReadRun.run(s, threadsHere, 1 << 20, size, 200, 1000, 11);
      r.reference.put("page-cache copy: 1 MiB preads, warm, " + threadsHere + " threads (MB/s)", rps * (1 << 20) / 1e6);
    }
    pb.step();
    try (Strategy s = new RawPreadStrategy(file, true)) {
      pb.setExtraMessage("reference: device, O_DIRECT queue depth 1");
      double qd1 = RandomReadRun.run(s, 1, IO_READ_SIZE, size, 200, 1000, 12);
      r.reference.put("device: O_DIRECT random 16 KiB, 1 thread (queue depth 1), reads/s", qd1);
      pb.step();
      pb.setExtraMessage("reference: device, O_DIRECT 16 threads");
      double qd16 = RandomReadRun.run(s, 16, IO_READ_SIZE, size, 200, 1000, 13);
      r.reference.put("device ceiling: O_DIRECT random 16 KiB, 16 threads (oversubscribed; queue depth ~16), reads/s", qd16);
      pb.step();
    } catch (dev.pread.nativeio.NativeIOException e) {
      r.skipped.add("device ceiling: O_DIRECT not supported here: " + e.getMessage());
      pb.stepBy(2);
    }
  }

  private void runCold(Results r, Path file, long size, List<String> coldStrategies, int ioR, Progress pb)
      throws Exception {
    r.regimes.put("cold", String.format(Locale.ROOT,
        "the page cache is dropped before every cell by %s; each cell opens its strategy afresh (an open"
            + " mapping would pin pages) and measures the first %.1f s, 1 thread, random 16 KiB reads; %d rounds",
        CacheControl.method(), ioSeconds, ioR));
    for (String s : coldStrategies) {
      r.cells.add(new Results.Cell("cold", s, IO_READ_SIZE, 1, ioR));
    }
    for (int round = 0; round < ioR; round++) {
      for (int k = 0; k < coldStrategies.size(); k++) {
        String name = coldStrategies.get((k + round) % coldStrategies.size());
        pb.setExtraMessage("cold " + name);
        Results.Cell cell = r.cell("cold", name, IO_READ_SIZE, 1);
        CacheControl.evict(file);
        ProcStats before = ProcStats.now();
        try (Strategy s = StrategyRegistry.openStrategy(name, file, bufferSize, CacheSettings.holding(size, cacheBlockSize))) {
          CacheUse.Probe probe = CacheUse.probe(s.cache().orElse(null));
          cell.rounds[round] = RandomReadRun.run(s, 1, IO_READ_SIZE, size, 0, (long) (ioSeconds * 1000), round * 31L + k);
          cell.cache = CacheUse.add(cell.cache, probe.done());
        }
        ProcStats d = ProcStats.now().minus(before);
        cell.majorFaults = Math.max(0, cell.majorFaults) + d.majorFaults();
        cell.storageReadBytes = Math.max(0, cell.storageReadBytes) + d.storageReadBytes();
        pb.step();
      }
    }
  }

  private void runLatency(Results r, Path file, long size, long[] delays, Progress pb) throws Exception {
    for (long delay : delays) {
      for (String s : List.of(FFI_PREAD, FFI_PREAD + "+prefetch", DIR_MMAP, DIR_MMAP + "+prefetch")) {
        pb.setExtraMessage("cold prefetch latency " + s + " work=" + delay + "us");
        r.prefetchLatency.add(PrefetchLatencyRun.run(s, file, size, delay, 64, 99 + delay));
        pb.step();
      }
    }
  }

  private void runPressure(Results r, Path file, long size, List<String> pressureStrategies, int ioR,
      int[] distances, int[] batchSizes, Progress pb) throws Exception {
    long limit = pressureSetup.limitBytes();
    WorkerCommand.Spec spec = new WorkerCommand.Spec();
    spec.file = file.toAbsolutePath().toString();
    spec.fileSize = size;
    spec.bufferSize = bufferSize;
    spec.limit = limit;
    spec.warmupCapSeconds = full ? 6 : 3;
    spec.seconds = ioSeconds;
    spec.rounds = ioR;
    spec.strategies = pressureStrategies.toArray(String[]::new);
    spec.readSizes = new int[] {IO_READ_SIZE};
    spec.threads = full ? new int[] {1, 2} : new int[] {1};
    spec.distances = distances;
    spec.distanceSeconds = ioSeconds;
    spec.batchStrategies = PRESSURE_BATCH_STRATEGIES.toArray(String[]::new);
    spec.batchReadSizes = batchSizes;
    spec.batches = full ? new int[] {1, 2, 4, 8, 16, 32, 64} : new int[] {1, 4, 16, 64};
    spec.batchRounds = full ? ioR : 2;
    spec.batchSeconds = 1.0;
    spec.cacheBlockSize = cacheBlockSize;
    long hits;
    long peak;
    String where;
    Results w;
    try (MemoryCgroup cg = MemoryCgroup.create("pread-bench-" + ProcessHandle.current().pid(), limit)) {
      where = cg.describe();
      w = WorkerProcess.run("worker", spec, pressureSetup.heap, cg,
          line -> line.startsWith("pressure ") || line.startsWith("prefetch distance") || line.startsWith("batch cell"),
          line -> {
            pb.setExtraMessage(line);
            pb.step();
          });
      hits = cg.limitHits();
      peak = cg.peakBytes();
    }
    r.cells.addAll(w.cells);
    r.prefetchDistance.addAll(w.prefetchDistance);
    r.batchPrefetch.addAll(w.batchPrefetch);
    r.regimes.put("pressure", String.format(Locale.ROOT,
        "a child JVM (heap %s, SerialGC) in %s, reading the %s file: the limit covers heap, native memory and"
            + " page cache; the group hit its limit %d times, peak charge %s. Steady state, not the first seconds"
            + " after an eviction: per round and strategy the file is evicted, the strategy opens afresh and reads"
            + " (batches of 16, prefetching) until it has read the limit's worth from storage (cap %d s); then"
            + " its cells run; the fewest limit hits in any measured cell: %s. 1 thread, random 16 KiB reads,"
            + " %.1f s per cell, %d rounds; ratios against dir-mmap-random",
        pressureSetup.heap, where, Format.bytes(size), hits, peak < 0 ? "?" : Format.bytes(peak - peak % (1 << 20)),
        (int) spec.warmupCapSeconds, fewestHits(w), ioSeconds, ioR));
  }

  /** The fewest limit hits in one measured pressure cell or batch, or "unknown". */
  private static String fewestHits(Results w) {
    long min = Long.MAX_VALUE;
    for (Results.Cell c : w.cells) {
      min = c.minLimitHits < 0 ? min : Math.min(min, c.minLimitHits);
    }
    for (Results.Batch b : w.batchPrefetch) {
      min = b.minLimitHits < 0 ? min : Math.min(min, b.minLimitHits);
    }
    return min == Long.MAX_VALUE ? "unknown" : Long.toString(min);
  }

  /**
   * {@code --indexing-rate}: characters of source text a second; {@link Double#POSITIVE_INFINITY}
   * for max, 0 for off.
   */
  double parseIndexingRate(String value) {
    if (value.equals("max")) {
      return Double.POSITIVE_INFINITY;
    }
    if (value.equals("off")) {
      return 0;
    }
    double mb;
    try {
      mb = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      mb = Double.NaN;
    }
    if (!(mb > 0) || Double.isInfinite(mb)) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
          "--indexing-rate must be max, off or a positive number of MB a second (got \"" + value + "\")");
    }
    return mb * 1e6;
  }
}
