package dev.pread.bench.report;

import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.pressure.MemoryCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's block-cache tables: what dir-cached's cache did in every cell that had one (budget,
 * block size, hit ratio, bytes read, evictions, prefetch), and every pressure worker's memory
 * against its cgroup's limit (peak, anonymous memory, page cache, the cache's allocation, OOM kills).
 */
final class CacheReport {
  private CacheReport() {}

  private record Row(String section, String what, CacheUse cache, MemoryCheck memory) {}

  private static List<Row> rows(Results r) {
    List<Row> rows = new ArrayList<>();
    for (Results.QueryCell c : r.queryCells) {
      rows.add(new Row("lucene " + c.regime, c.directory + ", " + c.threads + " thread" + (c.threads == 1 ? "" : "s"),
          c.cache, c.memory));
    }
    for (Results.Cell c : r.cells) {
      rows.add(new Row(c.regime, c.strategy + ", " + Report.readLabel(c.readSize) + ", " + c.threads + " thread"
          + (c.threads == 1 ? "" : "s"), c.cache, c.memory));
    }
    for (Results.Batch b : r.batchPrefetch) {
      rows.add(new Row(b.regime + ", batched", b.strategy + ", " + Report.readLabel(b.readSize) + ", B=" + b.batch
          + (b.prefetch ? "" : " without prefetch"), b.cache, null));
    }
    return rows;
  }

  static String cacheTable(Results r) {
    List<Row> rows = rows(r).stream().filter(x -> x.cache() != null).toList();
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("### Block cache (dir-cached), per cell over its rounds\n\n"
        + "Hits are counted per block visited: a Lucene input counts one each time it moves to a cached block,"
        + " however many reads it makes there, and a 16 KiB read one per block it copies from. Hits include"
        + " reads that waited for a load in flight (another reader's or a prefetch). Refused: misses"
        + " that could not be inserted because the slot admission chose was busy (read around the cache;"
        + " counted in misses). Allocated: the"
        + " most block memory the cache held, never above its budget (checked).\n\n"
        + "| section | cell | budget | block | hit ratio | hits | misses | refused | MB read from storage | evictions"
        + " | prefetch submitted / deduplicated / dropped | allocated |\n"
        + "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row x : rows) {
      CacheUse c = x.cache();
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.4f | %,d | %,d | %,d | %.0f | %,d | %,d / %,d / %,d | %s |%n",
          x.section(), x.what(), Format.size(c.budgetBytes), Format.bytes(c.blockSize), c.hitRatio(), c.hits,
          c.misses, c.rejected, c.bytesRead / 1e6, c.evictions, c.prefetchSubmitted, c.prefetchDeduplicated, c.prefetchDropped,
          Format.size(c.allocatedBytes)));
    }
    return sb.append('\n').toString();
  }

  static String memoryTable(Results r) {
    List<Row> rows = rows(r).stream().filter(x -> x.memory() != null).toList();
    if (rows.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("### Memory of the pressure workers, against their cgroup's limit\n\n"
        + "Per cell, the worst over its rounds (a worker per round). Peak: the group's peak charge while measuring"
        + " (cgroup v1: reset after the warm-up; v2: the worker's lifetime). Anonymous and page cache: charged"
        + " at the end of the cell. Limit hits: the fewest in one worker. A worker killed by the OOM killer fails"
        + " the run, so every row here says 0 kills (-1: the kernel does not report them).\n\n"
        + "| section | cell | limit | peak | anonymous | page cache | dir-cached allocated / budget | limit hits"
        + " | OOM kills |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row x : rows) {
      MemoryCheck m = x.memory();
      CacheUse c = x.cache();
      sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %d |%n", x.section(), x.what(),
          Format.size(m.limitBytes), Format.size(m.peakBytes), Format.size(m.anonBytes), Format.size(m.pageCacheBytes),
          c == null ? "" : Format.size(c.allocatedBytes) + " / " + Format.size(c.budgetBytes),
          m.limitHits < 0 ? "?" : String.format(Locale.ROOT, "%,d", m.limitHits), m.oomKills));
    }
    return sb.append('\n').toString();
  }
}
