package dev.pread.bench.cli;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP;
import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;

import dev.pread.bench.cache.CachePressureBench;
import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.ZipfBlocks;
import dev.pread.bench.jmh.BenchFiles;
import dev.pread.bench.pressure.CacheControl;
import dev.pread.bench.pressure.MemoryCgroup;
import dev.pread.bench.pressure.PressureOptions;
import dev.pread.bench.raw.BatchCells;
import dev.pread.bench.raw.DataFile;
import dev.pread.bench.raw.StrategyRegistry;
import dev.pread.bench.raw.WarmReads;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.MachineInfo;
import dev.pread.bench.report.Report;
import dev.pread.bench.report.Results;
import dev.pread.bench.report.Stats;
import dev.pread.cache.BlockCache;
import dev.pread.store.PreadDirectory;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./pread cli cache-block-sizes}: dir-cached at each block size, in the three regimes the
 * block size trades off, so that {@link BlockCache#DEFAULT_BLOCK_SIZE} is chosen by measurement:
 *
 * <ul>
 *   <li>warm, all cached: random readLong and 16 KiB readBytes, the cache holding the file (small
 *       blocks make a 16 KiB read span several blocks; large ones cost nothing once cached), with
 *       dir-mmap as the reference;
 *   <li>pressure: Zipf-skewed 16 KiB reads in a memory cgroup below the file size, the cache half
 *       the limit ({@link CachePressureBench}; large blocks read and hold bytes nobody asked for,
 *       so fewer hot blocks fit), with dir-pread as the reference;
 *   <li>cold: batches of 1 and 16 distinct 16 KiB blocks prefetched, then read, after dropping the
 *       page cache, a fresh cache per cell (larger blocks read more per miss).
 * </ul>
 *
 * Writes results.json, report.md (the summary table first) and charts to {@code
 * <out>/<timestamp>-cache-block-sizes/}.
 */
@Command(
    name = "cache-block-sizes",
    mixinStandardHelpOptions = true,
    description = "Sweep dir-cached's block size: warm all-cached readLong and 16 KiB reads (against mmap), Zipf"
        + " reads under a memory limit (against PreadDirectory), cold batched prefetch B=1 and B=16.")
final class CacheBlockSizeCommand implements Callable<Integer> {
  @Option(names = "--dir", description = "Folder for the data files (default: ${DEFAULT-VALUE}).")
  Path dir = Path.of("bench-data");

  @Option(names = "--block-sizes", split = ",", description = "Block sizes (default: ${DEFAULT-VALUE}).")
  List<String> blockSizes = List.of("4k", "8k", "16k", "32k", "64k");

  @Option(names = "--regimes", split = ",", description = "Any of warm, cold, pressure (default: all).")
  List<String> regimes = List.of("warm", "cold", "pressure");

  @Option(names = "--file-size", description = "Data file of the warm cells, held whole by the cache (default: ${DEFAULT-VALUE}).")
  String fileSize = "1g";

  @Mixin PressureOptions pressureSetup = new PressureOptions();

  @Option(names = "--cold-budget", description = "Cache of a cold cell, fresh per cell (default: ${DEFAULT-VALUE}).")
  String coldBudget = "256m";

  @Option(names = "--zipf-exponent", description = "Skew of the pressure reads (default: ${DEFAULT-VALUE}).")
  double zipfExponent = ZipfBlocks.DEFAULT_EXPONENT;

  @Option(names = "--rounds", description = "Rounds of warm cells (default: ${DEFAULT-VALUE}).")
  int rounds = 3;

  @Option(names = "--seconds", description = "Measured seconds per warm cell (default: ${DEFAULT-VALUE}).")
  double seconds = 0.25;

  @Option(names = "--io-rounds", description = "Rounds of pressure and cold cells (default: ${DEFAULT-VALUE}).")
  int ioRounds = 2;

  @Option(names = "--io-seconds", description = "Measured seconds per pressure cell; cold cells last up to 0.5 s"
      + " (default: ${DEFAULT-VALUE}).")
  double ioSeconds = 1.5;

  @Option(names = "--out", description = "Results folder (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("bench-results");

  static final String WARM = "warm, all cached";
  static final String PRESSURE = "pressure, Zipf";
  static final String COLD = "cold";
  private static final int READ = 16384;
  private static final int[] BATCHES = {1, 16};

  @Override
  public Integer call() throws Exception {
    List<Integer> sizes = blockSizes.stream().map(s -> (int) Format.parseBytes(s)).toList();
    Map<String, Integer> labels = new LinkedHashMap<>();
    for (int bs : sizes) {
      BlockCache.builder(bs).blockSize(bs); // refuses a size the cache would refuse
      labels.put(label(bs), bs);
    }
    long warmSize = Format.parseBytes(fileSize);
    long ioSize = pressureSetup.fileSizeBytes();
    long limit = pressureSetup.limitBytes();
    Path warmFile = BenchFiles.dataFile(dir, warmSize);
    Path ioFile = BenchFiles.dataFile(dir, ioSize);
    boolean warm = regimes.contains("warm");
    boolean cold = regimes.contains("cold");
    boolean pressure = regimes.contains("pressure");
    Results r = new Results();
    r.date = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
    r.command = "./pread cli cache-block-sizes" + (System.getProperty("pread.args", "").isBlank() ? ""
        : " " + System.getProperty("pread.args"));
    r.fileSize = warmSize;
    if (pressure) {
      MemoryCgroup.unavailableReason().ifPresent(why -> r.skipped.add("pressure regime: " + why));
      pressure = MemoryCgroup.unavailableReason().isEmpty();
    }
    if (warm) {
      DataFile.ensure(warmFile, warmSize);
    }
    if (cold || pressure) {
      DataFile.ensure(ioFile, ioSize);
      r.pressureFileSize = ioSize;
    }
    r.machine = MachineInfo.collect(warm ? warmFile : ioFile);

    List<String> warmLabels = new ArrayList<>(labels.keySet());
    warmLabels.add(DIR_MMAP);
    int[] warmReads = {Long.BYTES, READ};
    CachePressureBench.Options zipf = new CachePressureBench.Options();
    zipf.file = ioFile;
    zipf.fileSize = ioSize;
    zipf.limit = limit;
    zipf.heap = pressureSetup.heap;
    zipf.bufferSize = PreadDirectory.DEFAULT_BUFFER_SIZE;
    zipf.warmupBytes = limit;
    zipf.warmupCapSeconds = 3;
    zipf.seconds = ioSeconds;
    zipf.rounds = ioRounds;
    zipf.threads = new int[] {1};
    zipf.readSize = READ;
    zipf.exponent = zipfExponent;
    List<CachePressureBench.Candidate> candidates = new ArrayList<>();
    labels.forEach((l, bs) -> candidates.add(new CachePressureBench.Candidate(l, DIR_CACHED, CacheSettings.halfOf(limit, bs))));
    candidates.add(new CachePressureBench.Candidate(DIR_PREAD, DIR_PREAD, null));
    long coldCells = (long) ioRounds * BATCHES.length * labels.size();
    long steps = (warm ? WarmReads.steps(warmLabels, warmReads, List.of(1), rounds) : 0)
        + (pressure ? CachePressureBench.steps(zipf, candidates.size()) : 0) + (cold ? coldCells : 0);
    try (Progress pb = Progress.start("block sizes", steps, "")) {
      java.util.function.Consumer<String> step = m -> {
        pb.setExtraMessage(m);
        pb.step();
      };
      if (warm) {
        r.baselines.put(WARM, DIR_MMAP);
        r.regimes.put(WARM, String.format(Locale.ROOT, "each cache holds the whole %s file, filled through the input"
            + " (every byte checked) when it opens; one candidate open at a time, rotated, reopened every round;"
            + " the page cache is warmed for dir-mmap at the start of every round; %d rounds of %.2f s per cell,"
            + " 1 thread; readLong is seek + IndexInput.readLong", Format.bytes(warmSize), rounds, seconds));
        WarmReads.runOneAtATime(r, WARM, warmFile, warmSize, warmLabels, warmReads, List.of(1), rounds, seconds,
            l -> labels.containsKey(l)
                ? StrategyRegistry.openStrategy(DIR_CACHED, warmFile, PreadDirectory.DEFAULT_BUFFER_SIZE, CacheSettings.holding(warmSize, labels.get(l)))
                : StrategyRegistry.openStrategy(l, warmFile), step);
      }
      if (pressure) {
        r.baselines.put(PRESSURE, DIR_PREAD);
        CachePressureBench.run(r, zipf, candidates, step);
      }
      if (cold) {
        // Half a second: reads are distinct at the largest block size, and a cell may use at most
        // half of the file's such blocks (a 4 GiB file has 32,768 of 64 KiB).
        long coldMillis = (long) Math.min(500, ioSeconds * 1000);
        long budget = Format.parseBytes(coldBudget);
        int unit = sizes.stream().mapToInt(Integer::intValue).max().getAsInt();
        r.regimes.put(COLD + ", batched", String.format(Locale.ROOT, "the page cache is dropped before every cell by"
            + " %s; the %s file; %.1f s per cell; every read is 16 KiB at the start of a distinct %s-aligned block"
            + " (the largest block size), so at no block size is a read served by a block the cell loaded before;"
            + " a fresh cache of %s per cell", CacheControl.method(), Format.bytes(ioSize), coldMillis / 1000.0,
            Format.bytes(Math.max(unit, READ)), Format.size(budget)));
        BatchCells.of(COLD, l -> StrategyRegistry.openStrategy(DIR_CACHED, ioFile, PreadDirectory.DEFAULT_BUFFER_SIZE,
                new CacheSettings(budget, labels.get(l))), ioSize, new ArrayList<>(labels.keySet()))
            .readSizes(READ).batches(BATCHES).prefetchModes(true).distinct(unit).rounds(ioRounds).millis(coldMillis)
            .before(() -> CacheControl.evict(ioFile)).step(() -> step.accept("cold batched prefetch"))
            .run(r);
      }
    }
    r.preface = summary(r, sizes);
    Path folder = out.resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
        + "-cache-block-sizes");
    Path report = Report.write(r, folder);
    System.out.println();
    System.out.println(r.preface);
    System.out.println("Report: " + report.toAbsolutePath());
    return 0;
  }

  static String label(int blockSize) {
    return DIR_CACHED + " " + Format.bytes(blockSize);
  }

  /** One row per block size: each regime's figure, against the reference and against the 16 KiB default. */
  static String summary(Results r, List<Integer> sizes) {
    int dflt = BlockCache.DEFAULT_BLOCK_SIZE;
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "### dir-cached block size (summary)%n%n"
        + "Medians over rounds; ratios are medians of per-round ratios. \"vs %s\" compares with the current default"
        + " block size.%n%n| block | warm readLong vs dir-mmap | warm 16 KiB vs dir-mmap | pressure Zipf reads/s"
        + " | vs %s | hit ratio | vs dir-pread | cold B=16 reads/s | vs %s | B=16 vs B=1 |%n"
        + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n", Format.bytes(dflt), Format.bytes(dflt),
        Format.bytes(dflt)));
    for (int bs : sizes) {
      String l = label(bs);
      sb.append("| ").append(Format.bytes(bs)).append(" | ")
          .append(ratio(r.cell(WARM, l, Long.BYTES, 1), r.cell(WARM, DIR_MMAP, Long.BYTES, 1))).append(" | ")
          .append(ratio(r.cell(WARM, l, READ, 1), r.cell(WARM, DIR_MMAP, READ, 1))).append(" | ");
      Results.Cell p = r.cell(PRESSURE, l, READ, 1);
      sb.append(p == null ? "" : Format.rate(p.median())).append(" | ")
          .append(ratio(p, r.cell(PRESSURE, label(dflt), READ, 1))).append(" | ")
          .append(p == null || p.cache == null ? "" : String.format(Locale.ROOT, "%.3f", p.cache.hitRatio()))
          .append(" | ").append(ratio(p, r.cell(PRESSURE, DIR_PREAD, READ, 1))).append(" | ");
      Results.Batch b16 = r.batch(COLD, l, READ, 16, true);
      Results.Batch b1 = r.batch(COLD, l, READ, 1, true);
      Results.Batch d16 = r.batch(COLD, label(dflt), READ, 16, true);
      sb.append(b16 == null ? "" : Format.rate(Stats.median(b16.rounds))).append(" | ")
          .append(b16 == null || d16 == null ? "" : Format.ratio(Stats.pairedRatio(b16.rounds, d16.rounds)))
          .append(" | ")
          .append(b16 == null || b1 == null ? "" : Format.ratio(Stats.pairedRatio(b16.rounds, b1.rounds)))
          .append(" |\n");
    }
    return sb.toString();
  }

  private static String ratio(Results.Cell a, Results.Cell b) {
    return a == null || b == null ? "" : Format.ratio(Stats.pairedRatio(a.rounds, b.rounds));
  }
}
