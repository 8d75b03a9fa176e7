package dev.pread.bench.cache;

import dev.pread.cache.BlockCache;
import dev.pread.cache.BlockCacheStats;

/**
 * What a block cache did during one cell (the difference of two {@link BlockCacheStats}
 * snapshots), summed over a cell's rounds; part of results.json and the report's cache table.
 * Counts are of blocks unless named bytes.
 */
public final class CacheUse {
  public long budgetBytes;
  public int blockSize;
  public long hits;
  public long misses;
  public long evictions;
  public long bytesRead;
  /** Bytes of misses copied from the page cache instead of read from storage; not in {@link #bytesRead}. */
  public long pageCacheBytes;
  long readAround;
  /** Misses read around the cache because the slot admission chose was busy; part of {@link #misses}. */
  public long rejected;
  public long prefetchSubmitted;
  public long prefetchDeduplicated;
  public long prefetchDropped;
  long loadFailures;
  /** The most block memory allocated at the end of any round (never above the budget). */
  public long allocatedBytes;
  /** Resident block data at the end of the last round. */
  long residentBytes;

  /** Takes a snapshot of {@code cache} (or of nothing, when null) to measure a cell against. */
  public static Probe probe(BlockCache cache) {
    return new Probe(cache, cache == null ? null : cache.stats());
  }

  /** A snapshot taken before a cell. */
  public record Probe(BlockCache cache, BlockCacheStats before) {
    /** What the cache did since the snapshot, or null without a cache. */
    public CacheUse done() {
      return cache == null ? null : between(cache, before, cache.stats());
    }
  }

  /** What {@code cache} did between the snapshots {@code before} and {@code after}. */
  static CacheUse between(BlockCache cache, BlockCacheStats before, BlockCacheStats after) {
    CacheUse u = new CacheUse();
    u.budgetBytes = cache.budgetBytes();
    u.blockSize = cache.blockSize();
    u.hits = after.hits() - before.hits();
    u.misses = after.misses() - before.misses();
    u.evictions = after.evictions() - before.evictions();
    u.bytesRead = after.bytesRead() - before.bytesRead();
    u.pageCacheBytes = after.pageCacheBytes() - before.pageCacheBytes();
    u.readAround = after.readAround() - before.readAround();
    u.rejected = after.rejected() - before.rejected();
    u.prefetchSubmitted = after.prefetchSubmitted() - before.prefetchSubmitted();
    u.prefetchDeduplicated = after.prefetchDeduplicated() - before.prefetchDeduplicated();
    u.prefetchDropped = after.prefetchDropped() - before.prefetchDropped();
    u.loadFailures = after.loadFailures() - before.loadFailures();
    u.allocatedBytes = after.allocatedBytes();
    u.residentBytes = after.residentBytes();
    return u;
  }

  /** {@code total} plus {@code round} (either may be null). */
  public static CacheUse add(CacheUse total, CacheUse round) {
    if (total == null) {
      return round;
    }
    if (round == null) {
      return total;
    }
    CacheUse u = new CacheUse();
    u.budgetBytes = round.budgetBytes;
    u.blockSize = round.blockSize;
    u.hits = total.hits + round.hits;
    u.misses = total.misses + round.misses;
    u.evictions = total.evictions + round.evictions;
    u.bytesRead = total.bytesRead + round.bytesRead;
    u.pageCacheBytes = total.pageCacheBytes + round.pageCacheBytes;
    u.readAround = total.readAround + round.readAround;
    u.rejected = total.rejected + round.rejected;
    u.prefetchSubmitted = total.prefetchSubmitted + round.prefetchSubmitted;
    u.prefetchDeduplicated = total.prefetchDeduplicated + round.prefetchDeduplicated;
    u.prefetchDropped = total.prefetchDropped + round.prefetchDropped;
    u.loadFailures = total.loadFailures + round.loadFailures;
    u.allocatedBytes = Math.max(total.allocatedBytes, round.allocatedBytes);
    u.residentBytes = round.residentBytes;
    return u;
  }

  /** Hits over hits and misses, or 0 before any read. */
  public double hitRatio() {
    long n = hits + misses;
    return n == 0 ? 0 : (double) hits / n;
  }

  /** Fails when the cache held more block memory than its budget, or a load failed. */
  public void check(String where) {
    if (allocatedBytes > budgetBytes) {
      throw new IllegalStateException(where + ": the block cache allocated " + allocatedBytes
          + " bytes, above its budget of " + budgetBytes);
    }
    if (loadFailures > 0) {
      throw new IllegalStateException(where + ": " + loadFailures + " block loads failed");
    }
  }
}
