package dev.pread.bench;

import com.google.gson.Gson;
import dev.pread.store.PreadDirectory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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
  static final List<String> DIRECTORIES = List.of("dir-pread", "dir-mmap", "dir-mmap-random", "dir-niofs");

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
    boolean warm;
    boolean cold;
    boolean pressure;
  }

  private LuceneBench() {}

  /** Opens the Directory called {@code name} over {@code folder}. */
  static Directory open(String name, Path folder) throws IOException {
    return switch (name) {
      case "dir-pread" -> {
        PreadDirectory d = new PreadDirectory(folder, NoLockFactory.INSTANCE);
        if (!d.isNativePread()) {
          d.close();
          throw new IllegalStateException("dir-pread would measure the NIOFS fallback: "
              + PreadDirectory.nativeUnavailableReason().orElse("native pread is off"));
        }
        yield d;
      }
      case "dir-pread-random" -> {
        // RANDOM advice wherever the context does not ask for sequential reads.
        PreadDirectory d = (PreadDirectory) open("dir-pread", folder);
        d.setReadAdvice((file, context) -> PreadDirectory.ADVISE_BY_CONTEXT.apply(file, context)
            .or(() -> Optional.of(ReadAdvice.RANDOM)));
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
    return 3 + (o.warm ? perRegime * o.warmRounds : 0) + (o.cold ? perRegime : 0) + (o.pressure ? perRegime + o.directories.size() : 0);
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
    step.accept("lucene: compiling every Directory's query paths");
    for (String name : o.directories) {
      try (Directory d = open(name, index); DirectoryReader reader = DirectoryReader.open(d)) {
        QueryRun.run(new IndexSearcher(reader), mix, reference, 1, 0, (long) (o.jitWarmupSeconds * 1000), name);
      }
    }
    if (o.warm) {
      r.regimes.put("lucene warm", String.format(Locale.ROOT, "after %.0f s of untimed queries per Directory (JIT),"
          + " every index file is read right before each cell; 0.5 s of queries as warm-up, then %.1f s measured;"
          + " %d rounds, directories rotated", o.jitWarmupSeconds, o.warmSeconds, o.warmRounds));
      for (int rr = 0; rr < o.warmRounds; rr++) {
        int round = rr;
        for (int k = 0; k < o.directories.size(); k++) {
          String name = o.directories.get((k + round) % o.directories.size());
          for (int t : o.threads) {
            step.accept("lucene warm " + name + " x" + t);
            warmFiles(index);
            try (Directory d = open(name, index); DirectoryReader reader = DirectoryReader.open(d)) {
              IndexSearcher searcher = new IndexSearcher(reader);
              QueryRun.run(searcher, mix, reference, t, round * 997, 500, name);
              record(r, "warm", name, t, o.warmRounds, round, () -> QueryRun.run(searcher, mix, reference, t,
                  round * 997 + 101, (long) (o.warmSeconds * 1000), name));
            }
          }
        }
      }
    }
    if (o.cold) {
      r.regimes.put("lucene cold", String.format(Locale.ROOT, "the page cache is dropped by %s before each cell;"
          + " the Directory and reader open after the drop; the first %.1f s of queries are measured",
          CacheControl.method(), o.coldSeconds));
      for (int k = 0; k < o.directories.size(); k++) {
        String name = o.directories.get(k);
        for (int t : o.threads) {
          step.accept("lucene cold " + name + " x" + t);
          evict(index);
          try (Directory d = open(name, index); DirectoryReader reader = DirectoryReader.open(d)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            record(r, "cold", name, t, 1, 0,
                () -> QueryRun.run(searcher, mix, reference, t, 0, (long) (o.coldSeconds * 1000), name));
          }
        }
      }
    }
    if (o.pressure) {
      Optional<String> why = MemoryCgroup.unavailableReason();
      if (why.isPresent()) {
        r.skipped.add("lucene pressure regime: " + why.get());
      } else {
        runPressure(r, o, index, indexBytes, mix, reference, step);
      }
    }
  }

  private interface Cell {
    QueryRun.Result run() throws Exception;
  }

  private static void record(Results r, String regime, String name, int threads, int rounds, int round, Cell cell)
      throws Exception {
    Results.QueryCell c = r.queryCell(regime, name, threads);
    if (c == null) {
      c = new Results.QueryCell(regime, name, threads, rounds);
      r.queryCells.add(c);
    }
    ProcStats before = ProcStats.now();
    QueryRun.Result res = cell.run();
    ProcStats d = ProcStats.now().minus(before);
    c.qps[round] = res.qps();
    c.p50Micros[round] = res.p50Micros();
    c.p99Micros[round] = res.p99Micros();
    c.queries += res.queries();
    c.majorFaults = Math.max(0, c.majorFaults) + d.majorFaults();
    c.storageReadBytes = Math.max(0, c.storageReadBytes) + d.storageReadBytes();
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

  private static void runPressure(Results r, Options o, Path index, long indexBytes, QueryMix mix, long[] reference,
      Consumer<String> step) throws Exception {
    long heap = Format.parseBytes(o.pressureHeap);
    long budget = indexBytes / 4;
    // A generous start; the worker tightens it to its own footprint + the budget.
    long limit = heap + o.pressureOverhead + budget;
    QueryWorkerCommand.Spec spec = new QueryWorkerCommand.Spec();
    spec.index = index.toAbsolutePath().toString();
    spec.directories = o.directories.toArray(String[]::new);
    spec.threads = o.threads;
    spec.seconds = o.pressureSeconds;
    spec.warmupCapSeconds = o.pressureWarmupCapSeconds;
    spec.warmupBytes = budget;
    spec.pageCacheBudget = budget;
    spec.jitWarmupSeconds = o.jitWarmupSeconds;
    spec.mixSize = mix.size();
    spec.mixFingerprint = mix.fingerprint();
    spec.reference = reference;
    Path tmp = Files.createTempDirectory("pread-bench-query-worker");
    Path specFile = tmp.resolve("spec.json");
    Path outFile = tmp.resolve("out.json");
    Gson gson = new Gson();
    Files.writeString(specFile, gson.toJson(spec));
    String jar = Path.of(LuceneBench.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xmx" + o.pressureHeap, "-Xms" + o.pressureHeap, "-XX:+AlwaysPreTouch",
        "-XX:+UseSerialGC",
        "-cp", jar, Main.class.getName(), "query-worker", "--spec", specFile.toString(), "--out", outFile.toString());
    String where;
    long hits;
    try (MemoryCgroup cg = MemoryCgroup.create("pread-bench-q-" + ProcessHandle.current().pid(), limit)) {
      where = cg.describe();
      Process p = new ProcessBuilder(cg.wrap(cmd)).redirectErrorStream(true).start();
      List<String> log = new ArrayList<>();
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          log.add(line);
          if (line.startsWith("lucene pressure ") && !line.startsWith("lucene pressure limit")) {
            step.accept(line);
          }
        }
      }
      int rc = p.waitFor();
      if (rc != 0) {
        throw new IllegalStateException("lucene pressure worker failed (exit " + rc + "; 137 means the cgroup's OOM"
            + " killer):\n" + String.join("\n", log.subList(Math.max(0, log.size() - 30), log.size())));
      }
      hits = cg.limitHits();
    }
    Results w = gson.fromJson(Files.readString(outFile), Results.class);
    r.queryCells.addAll(w.queryCells);
    r.lucene.pressureLimit = w.lucene.pressureLimit;
    r.lucene.pressureOtherBytes = w.lucene.pressureOtherBytes;
    Files.deleteIfExists(specFile);
    Files.deleteIfExists(outFile);
    Files.deleteIfExists(tmp);
    long minCache = Long.MAX_VALUE;
    long maxCache = 0;
    for (Results.QueryCell c : w.queryCells) {
      if (c.pageCacheBytes >= 0) {
        minCache = Math.min(minCache, c.pageCacheBytes);
        maxCache = Math.max(maxCache, c.pageCacheBytes);
      }
    }
    r.regimes.put("lucene pressure", String.format(Locale.ROOT, "a child JVM (heap %s pre-touched, SerialGC) in %s;"
        + " after compiling every Directory's query paths (%.0f s each), the worker set the limit to what it held"
        + " besides page cache (%s) + a page-cache budget of a quarter of the %s index: %s; the group hit its limit"
        + " %d times; page cache charged to the group at the end of the cells: %s to %s. Per Directory:"
        + " the index is evicted, the Directory opens, queries run untimed until a quarter of the index was read"
        + " from storage (cap %.0f s), then %.1f s are measured per thread count",
        o.pressureHeap, where, o.jitWarmupSeconds, Format.size(r.lucene.pressureOtherBytes), Format.size(indexBytes),
        Format.size(r.lucene.pressureLimit), hits,
        minCache == Long.MAX_VALUE ? "?" : Format.size(minCache),
        minCache == Long.MAX_VALUE ? "?" : Format.size(maxCache),
        o.pressureWarmupCapSeconds, o.pressureSeconds));
  }
}
