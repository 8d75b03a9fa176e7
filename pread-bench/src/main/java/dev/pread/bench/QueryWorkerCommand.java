package dev.pread.bench;

import com.google.gson.Gson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Hidden: the Lucene-level pressure regime's child process, started by the CLI inside a memory
 * cgroup. It rebuilds the query mix from the index (and checks it is the parent's, by
 * fingerprint), then for each Directory: evicts the index, opens the Directory, runs queries
 * untimed until the page-cache budget's worth was read from storage (so the group is at its limit
 * and reclaiming), and measures each thread count. Hits are checked against the parent's
 * reference checksums.
 */
@Command(name = "query-worker", hidden = true)
final class QueryWorkerCommand implements Callable<Integer> {
  /** What the parent asks for. */
  static final class Spec {
    String index;
    String[] directories;
    int[] threads;
    double seconds;
    double warmupCapSeconds;
    long warmupBytes;
    long pageCacheBudget;
    double jitWarmupSeconds;
    int mixSize;
    long mixFingerprint;
    long[] reference;
  }

  @Option(names = "--spec", required = true)
  Path specFile;

  @Option(names = "--out", required = true)
  Path outFile;

  @Override
  public Integer call() throws Exception {
    Gson gson = new Gson();
    Spec spec = gson.fromJson(Files.readString(specFile), Spec.class);
    Path index = Path.of(spec.index);
    QueryMix mix;
    try (Directory d = LuceneBench.open("dir-niofs", index); DirectoryReader reader = DirectoryReader.open(d)) {
      mix = QueryMix.build(reader, spec.mixSize, 42);
    }
    if (mix.fingerprint() != spec.mixFingerprint) {
      throw new IllegalStateException("the worker built another query mix than the parent");
    }
    // Compile the query paths of every Directory before anything is measured.
    for (String name : spec.directories) {
      try (Directory d = LuceneBench.open(name, index); DirectoryReader reader = DirectoryReader.open(d)) {
        QueryRun.run(new IndexSearcher(reader), mix, spec.reference, 1, 0, (long) (spec.jitWarmupSeconds * 1000), name);
      }
    }
    // Size the limit from what this JVM holds besides page cache (the heap is pre-touched), so that
    // the page cache gets the budget, no more: the JVM's own footprint is not known in advance.
    LuceneBench.evict(index);
    long usage = MemoryCgroup.ownUsageBytes();
    long cache = MemoryCgroup.ownPageCacheBytes();
    long limit = -1;
    if (usage > 0 && cache >= 0) {
      limit = usage - cache + spec.pageCacheBudget;
      MemoryCgroup.setOwnLimit(limit);
    }
    System.out.printf("lucene pressure limit: %d (usage %d, page cache %d)%n", limit, usage, cache);
    Results r = new Results();
    r.lucene = new Results.Lucene();
    r.lucene.pressureLimit = limit;
    r.lucene.pressureOtherBytes = usage - cache;
    for (String name : spec.directories) {
      LuceneBench.evict(index);
      try (Directory d = LuceneBench.open(name, index); DirectoryReader reader = DirectoryReader.open(d)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        long start = System.nanoTime();
        ProcStats before = ProcStats.now();
        int first = 0;
        while ((System.nanoTime() - start) / 1e9 < spec.warmupCapSeconds) {
          QueryRun.Result w = QueryRun.run(searcher, mix, spec.reference, 1, first, 250, name);
          first += (int) w.queries();
          long read = ProcStats.now().minus(before).storageReadBytes();
          if (read < 0 || read >= spec.warmupBytes) {
            break;
          }
        }
        System.out.printf("lucene pressure %s: warmed up in %.1f s%n", name, (System.nanoTime() - start) / 1e9);
        for (int t : spec.threads) {
          Results.QueryCell c = new Results.QueryCell("pressure", name, t, 1);
          ProcStats b = ProcStats.now();
          QueryRun.Result res = QueryRun.run(searcher, mix, spec.reference, t, first, (long) (spec.seconds * 1000), name);
          first += (int) res.queries();
          ProcStats d2 = ProcStats.now().minus(b);
          c.qps[0] = res.qps();
          c.p50Micros[0] = res.p50Micros();
          c.p99Micros[0] = res.p99Micros();
          c.queries = res.queries();
          c.majorFaults = d2.majorFaults();
          c.storageReadBytes = d2.storageReadBytes();
          c.pageCacheBytes = MemoryCgroup.ownPageCacheBytes();
          r.queryCells.add(c);
          System.out.printf("lucene pressure %s x%d: %.1f QPS%n", name, t, res.qps());
        }
      }
    }
    Files.writeString(outFile, gson.toJson(r));
    return 0;
  }
}
