package dev.pread.store;

/**
 * Counters of a directory's hot set (see {@link AdaptiveDirectory}): what the last record written
 * or read held, and what loading it at open did.
 *
 * @param recordedRanges ranges in the last record this directory wrote, or else read at open
 * @param recordedBytes bytes in those ranges
 * @param loadedRanges ranges of the record read at open that the load reached
 * @param loadedBytes bytes the load read into the page cache or the block cache
 * @param cachedBytes bytes the load skipped because they were cached already
 * @param staleFiles files of the record skipped because they are missing or were replaced
 *     (another length, or other last 8 bytes)
 * @param staleBytes bytes of the ranges of those files
 * @param budgetBytes bytes the load left out because the cache they would go to was full
 * @param loading true while the load runs
 */
public record HotSetStats(
    long recordedRanges,
    long recordedBytes,
    long loadedRanges,
    long loadedBytes,
    long cachedBytes,
    long staleFiles,
    long staleBytes,
    long budgetBytes,
    boolean loading) {

  /** The counters of a directory without a hot set (it is off, or there was no record). */
  static final HotSetStats NONE = new HotSetStats(0, 0, 0, 0, 0, 0, 0, 0, false);

  /** {@code hotSet}'s counters, or {@link #NONE} if it is null. */
  static HotSetStats of(HotSet hotSet) {
    return hotSet != null ? hotSet.stats() : NONE;
  }
}
