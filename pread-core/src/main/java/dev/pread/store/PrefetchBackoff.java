package dev.pread.store;

/**
 * Shared by an input and all its clones and slices: how many prefetches in a row found their data
 * already in the page cache. After a run of hits, prefetches skip their residency probe except when
 * the count reaches a power of two, so prefetching cached data costs almost nothing; a miss resets
 * the count.
 *
 * <p>The field is plain: concurrent updates may lose counts, which only changes when the next probe
 * happens, never what is read.
 */
final class PrefetchBackoff {
  int consecutiveHits;

  /** True when this prefetch should probe the page cache: the count is zero or a power of two. */
  boolean shouldProbe() {
    int hits = consecutiveHits++;
    return (hits & (hits - 1)) == 0;
  }

  void miss() {
    consecutiveHits = 0;
  }
}
