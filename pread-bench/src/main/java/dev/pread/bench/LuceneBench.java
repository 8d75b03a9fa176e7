package dev.pread.bench;

import dev.pread.store.PreadDirectory;
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
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.ReadAdvice;

/**
 * The Lucene-level comparison: the same seeded query mix ({@link QueryMix}) on the same index
 * ({@link BenchIndex}) through each Directory, warm, cold and under a memory limit, at 1 and 2
 * threads. Every query's hits are checked against the reference checksums taken once on
 * MMapDirectory; any difference fails the run.
 */
final class LuceneBench {
  static final List<String> DIRECTORIES = List.of("dir-pread", "dir-mmap", "dir-mmap-random", "dir-niofs", "dir-cached");

  /** What the CLI asks for. */
  static final class Options {
    Path dataDir;
    long indexSize;
    Corpus corpus;
    int mixSize;
    double warmSeconds;
    int warmRounds;
    double coldSeconds;
    double pressureSeconds;
    double pressureWarmupCapSeconds;
    double jitWarmupSeconds;
    String pressureHeap;
    long pressureOverhead;
    int[] threads;
    List<String> directories = DIRECTORIES;
    int cacheBlockSize = dev.pread.cache.BlockCache.DEFAULT_BLOCK_SIZE;
    /** dir-cached's frequency admission. */
    boolean cacheAdmission = true;
    /** dir-cached's cache under pressure, as a share of the page-cache budget. */
    double cachePressureShare = 0.5;
    boolean warm;
    boolean cold;
    boolean pressure;
  }

  private LuceneBench() {}

  /** Opens the Directory called {@code name} over {@code folder} (not dir-cached, which needs its cache). */
  static Directory open(String name, Path folder) throws IOException {
    return open(name, folder, null);
  }

  /** Opens the Directory called {@code name} over {@code folder}; {@code cache} is dir-cached's. */
  static Directory open(String name, Path folder, CacheSettings cache) throws IOException {
    return switch (name) {
      case "dir-cached" -> {
        if (cache == null) {
          throw new IllegalArgumentException("dir-cached needs its cache budget and block size");
        }
        yield CachedDirectories.open(folder, cache);
      }
      case "dir-pread" -> {
        PreadDirectory d = new PreadDirectory(folder, NoLockFactory.INSTANCE);
        if (!d.isNativePread()) {
          d.close();
          throw new IllegalStateException("dir-pread would measure the NIOFS fallback: "
              + PreadDirectory.nativeUnavailableReason().orElse("native pread is off"));
        }
        yield d;
      }
      case "dir-pread-readahead" -> {
        // Lucene's hints only: the kernel's readahead where the context gives none.
        PreadDirectory d = (PreadDirectory) open("dir-pread", folder);
        d.setReadAdvice(PreadDirectory.ADVISE_BY_HINTS);
        yield d;
      }
      case "dir-mmap" -> new MMapDirectory(folder, NoLockFactory.INSTANCE);
      case "dir-mmap-random" -> {
        MMapDirectory d = new MMapDirectory(folder, NoLockFactory.INSTANCE);
        d.setReadAdvice((file, context) -> Optional.of(ReadAdvice.RANDOM));
        yield d;
      }
      case "dir-niofs" -> new NIOFSDirectory(folder, NoLockFactory.INSTANCE);
      default -> throw new IllegalArgumentException("unknown directory '" + name + "'; one of " + DIRECTORIES);
    };
  }

  /** Number of steps {@link #run} reports to its progress callback. */
  static long steps(Options o) {
    long perRegime = (long) o.directories.size() * o.threads.length;
    return 2 + (o.warm ? perRegime * o.warmRounds : 0) + (o.cold ? perRegime : 0) + (o.pressure ? perRegime : 0);
  }

  static void run(Results r, Options o, Consumer<String> step) throws Exception {
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
    try (Directory d = open("dir-mmap", index); DirectoryReader reader = DirectoryReader.open(d)) {
      r.lucene.docs = reader.numDocs();
      r.lucene.segments = reader.leaves().size();
      mix = QueryMix.build(reader, o.mixSize, 42);
      reference = QueryRun.reference(new IndexSearcher(reader), mix);
    }
    r.lucene.mixSize = mix.size();
    long budget = indexBytes / 4;
    Optional<String> noCgroup = o.pressure ? MemoryCgroup.unavailableReason() : Optional.empty();
    if (noCgroup.isPresent()) {
      r.skipped.add("lucene pressure regime: " + noCgroup.get());
    }
    List<String> regimes = new ArrayList<>();
    if (o.warm) {
      regimes.add("warm");
      r.regimes.put("lucene warm", String.format(Locale.ROOT, "every index file is read right before each cell"
          + " (dir-cached: through the Directory into its block cache, which holds the whole index);"
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
    long hits = 0;
    long minCache = Long.MAX_VALUE;
    long maxCache = 0;
    String where = "";
    for (String regime : regimes) {
      int rounds = regime.equals("warm") ? o.warmRounds : 1;
      for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < o.directories.size(); k++) {
          String name = o.directories.get((k + round) % o.directories.size());
          if (regime.equals("pressure") && name.equals("dir-cached")
              && budget - cacheFor(regime, indexBytes, budget, o.cacheBlockSize, o.cachePressureShare).budgetBytes()
                  < CACHED_PRESSURE_HEADROOM) {
            if (round == 0) {
              r.skipped.add(String.format(Locale.ROOT, "lucene pressure, dir-cached: the page-cache budget (%s, a"
                  + " quarter of the index) leaves less than %s beside a cache of half of it. Block memory cannot be"
                  + " reclaimed, so the JVM's own file pages and native growth (a second query thread, the JIT)"
                  + " must fit there: with 17 MiB the worker was killed by the OOM killer in one of three runs."
                  + " Use --index-size 512m or more", Format.size(budget), Format.size(CACHED_PRESSURE_HEADROOM)));
            }
            continue;
          }
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
          CacheSettings cache = cacheFor(regime, indexBytes, budget, o.cacheBlockSize, o.cachePressureShare);
          spec.cacheBudget = cache.budgetBytes();
          spec.cacheBlockSize = cache.blockSize();
          spec.cacheNoAdmission = !o.cacheAdmission;
          Results w;
          MemoryCheck group = null;
          if (regime.equals("pressure")) {
            long limit = Format.parseBytes(o.pressureHeap) + o.pressureOverhead + budget; // tightened by the worker
            try (MemoryCgroup cg = MemoryCgroup.create("pread-bench-q-" + ProcessHandle.current().pid(), limit)) {
              where = cg.describe().replaceFirst(", limit .*", "");
              w = WorkerProcess.run("query-worker", spec, o.pressureHeap, cg, LuceneBench::isProgress, step);
              hits += Math.max(0, cg.limitHits());
              group = cg.check();
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
              mine.memory.requireNoOom("lucene pressure " + name);
            }
            Results.QueryCell target = mine;
            c.meanMicrosByKind.forEach((kind, v) -> target.meanMicrosByKind.merge(kind, v / rounds, Double::sum));
            if (c.pageCacheBytes >= 0) {
              minCache = Math.min(minCache, c.pageCacheBytes);
              maxCache = Math.max(maxCache, c.pageCacheBytes);
            }
          }
          if (w.lucene != null && w.lucene.pressureLimit > 0) {
            r.lucene.pressureLimit = w.lucene.pressureLimit;
            r.lucene.pressureOtherBytes = w.lucene.pressureOtherBytes;
          }
        }
      }
    }
    if (regimes.contains("pressure")) {
      r.regimes.put("lucene pressure", String.format(Locale.ROOT, "a child JVM per Directory (heap %s pre-touched,"
          + " SerialGC) in a memory cgroup (%s). After compiling its query paths (%.1f s of queries), the worker"
          + " set the limit to what it held besides page cache (%s in the last worker) plus a page-cache budget of a"
          + " quarter of the %s index (%s); the groups hit their limits %d times; page cache charged at the end"
          + " of the cells: %s to %s. Then the index is evicted, the Directory reopens, queries run untimed until"
          + " the budget's worth was read from storage (cap %.0f s), and %.1f s are measured per thread count."
          + " dir-cached reads with O_DIRECT into a block cache of half the page-cache budget (%s, %s blocks)"
          + " inside the same limit: the issue's rule, cache budget half the memory available for data",
          o.pressureHeap, where, o.jitWarmupSeconds, Format.size(r.lucene.pressureOtherBytes), Format.size(indexBytes),
          Format.size(budget), hits, minCache == Long.MAX_VALUE ? "?" : Format.size(minCache),
          minCache == Long.MAX_VALUE ? "?" : Format.size(maxCache), o.pressureWarmupCapSeconds, o.pressureSeconds,
          Format.size(cacheFor("pressure", indexBytes, budget, o.cacheBlockSize, o.cachePressureShare).budgetBytes()),
          Format.bytes(o.cacheBlockSize)));
    }
  }

  /**
   * Least memory the pressure limit must leave beside dir-cached's block cache for everything else
   * the worker needs that the kernel cannot take from a block cache: the JVM's file pages and its
   * native growth while measuring.
   */
  static final long CACHED_PRESSURE_HEADROOM = 48L << 20;

  /**
   * dir-cached's cache in a regime: warm and cold, one that holds the whole index; under pressure,
   * {@code share} (half, by default) of the page-cache budget the other Directories get, inside the
   * same cgroup limit.
   */
  static CacheSettings cacheFor(String regime, long indexBytes, long pageCacheBudget, int blockSize, double share) {
    if (regime.equals("pressure")) {
      long bytes = (long) (pageCacheBudget * share) / blockSize * blockSize;
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
