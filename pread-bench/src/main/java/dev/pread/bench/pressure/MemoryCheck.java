package dev.pread.bench.pressure;

import dev.pread.bench.report.Format;
import java.util.Locale;

/**
 * A pressure worker's memory, against its cgroup's limit: the evidence that a cell ran under the
 * limit without being killed. The group's side (limit, peak, limit hits, OOM kills) is read by the
 * parent when the worker has exited ({@link MemoryCgroup#check}); the worker's side (anonymous
 * memory and page cache at the end of its cell) by the worker.
 */
public final class MemoryCheck {
  public long limitBytes = -1;
  /** Peak charge of the group (v1: since the worker reset it before measuring; v2: its lifetime). */
  public long peakBytes = -1;
  public long anonBytes = -1;
  public long pageCacheBytes = -1;
  public long limitHits = -1;
  /** Processes the group's OOM killer killed: must be 0 (-1: unknown). */
  public long oomKills = -1;
  boolean underOom;

  /** The worker's figures at the end of a cell, read inside its own group. */
  public static MemoryCheck ownNow() {
    MemoryCheck m = new MemoryCheck();
    m.anonBytes = MemoryCgroup.ownAnonBytes();
    m.pageCacheBytes = MemoryCgroup.ownPageCacheBytes();
    return m;
  }

  /** This check with the group's figures taken from {@code group} (the worker's own are kept). */
  public MemoryCheck withGroup(MemoryCheck group) {
    MemoryCheck m = new MemoryCheck();
    m.limitBytes = group.limitBytes;
    m.peakBytes = group.peakBytes;
    m.limitHits = group.limitHits;
    m.oomKills = group.oomKills;
    m.underOom = group.underOom;
    m.anonBytes = anonBytes;
    m.pageCacheBytes = pageCacheBytes;
    return m;
  }

  /** The worse of two checks of one cell over rounds: the highest peak, the most kills. */
  public static MemoryCheck worse(MemoryCheck a, MemoryCheck b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    MemoryCheck m = new MemoryCheck();
    m.limitBytes = Math.max(a.limitBytes, b.limitBytes);
    m.peakBytes = Math.max(a.peakBytes, b.peakBytes);
    m.anonBytes = Math.max(a.anonBytes, b.anonBytes);
    m.pageCacheBytes = Math.max(a.pageCacheBytes, b.pageCacheBytes);
    m.limitHits = a.limitHits < 0 || b.limitHits < 0 ? -1 : Math.min(a.limitHits, b.limitHits);
    m.oomKills = Math.max(a.oomKills, b.oomKills);
    m.underOom = a.underOom || b.underOom;
    return m;
  }

  /** Fails loudly when the group's OOM killer struck or the group is stuck under OOM. */
  public void requireNoOom(String where) {
    if (oomKills > 0 || underOom) {
      throw new IllegalStateException(String.format(Locale.ROOT,
          "%s: the memory cgroup's OOM killer struck (oom_kill %d, under_oom %b; limit %s, peak %s)",
          where, oomKills, underOom, Format.size(limitBytes), Format.size(peakBytes)));
    }
  }
}
