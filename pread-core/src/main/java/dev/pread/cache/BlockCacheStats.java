package dev.pread.cache;

/**
 * A snapshot of a {@link BlockCache}'s counters since it was created. Counts are of blocks unless
 * named bytes. Counters are read one after another while the cache runs, so a snapshot is not
 * atomic: two counters may disagree by the events that happened while it was taken.
 *
 * @param hits block reads served from the cache, including reads that waited for a load already
 *     in flight (another reader's, or a prefetch). A {@link CachedFile#read} counts one per block
 *     it copies from; a {@link BlockReader} one each time it moves to a cached block, however many
 *     reads it then makes inside that block. So a workload of many small reads per block (Lucene
 *     decoding) shows a lower hit ratio through readers than through {@code read}, for the same
 *     misses
 * @param misses blocks read from storage because a reader needed them, inserted or (see {@code
 *     rejected}) not
 * @param evictions blocks dropped to make room
 * @param bytesRead bytes read from storage, by readers, read-around and prefetch
 * @param pageCacheBytes bytes of misses (reads, read-around, prefetch) copied from the page cache
 *     instead, because it held all of them ({@code BlockCache.Builder#fillFromPageCache}); not in
 *     {@code bytesRead}
 * @param readAround blocks read for inputs that do not insert (merges, read-once) or, when every
 *     block was pinned, into a temporary buffer
 * @param rejected misses that admission could not insert because the slot it chose was pinned or
 *     loading (see {@code BlockCache.Builder#frequencyAdmission}); they were read around the
 *     cache. Rare: with one reader, never
 * @param prefetchSubmitted blocks whose loading a prefetch started
 * @param prefetchDeduplicated blocks a prefetch asked for that were cached or already loading
 * @param prefetchDropped blocks a prefetch asked for that were not loaded: the in-flight cap was
 *     reached, no block could be evicted, or the cache was closing
 * @param prefetchInFlight prefetched blocks being loaded now
 * @param loadFailures loads that failed (the reader got the error; a prefetch's is dropped)
 * @param residentBytes bytes of blocks that hold data or are loading
 * @param allocatedBytes bytes of block memory allocated so far (at most the budget)
 */
public record BlockCacheStats(
    long hits,
    long misses,
    long evictions,
    long bytesRead,
    long pageCacheBytes,
    long readAround,
    long rejected,
    long prefetchSubmitted,
    long prefetchDeduplicated,
    long prefetchDropped,
    int prefetchInFlight,
    long loadFailures,
    long residentBytes,
    long allocatedBytes) {

  /** Hits divided by hits and misses, or 0 before any read. */
  public double hitRatio() {
    long total = hits + misses;
    return total == 0 ? 0 : (double) hits / total;
  }
}
