package dev.pread.bench.cache;

import dev.pread.bench.report.Format;
import dev.pread.cache.BlockCache;
import java.util.Locale;

/**
 * The block cache a {@code dir-cached} strategy or directory gets: its budget and block size, always
 * given explicitly by the regime that opens it, so every figure names the regime it was taken in.
 *
 * <ul>
 *   <li>warm ("all cached"): {@link #holding} the whole file or index, so every read is a hit once
 *       it was preloaded;
 *   <li>pressure: half the memory cgroup's limit, so the cache, the heap and the JVM fit under it
 *       (block memory, unlike page cache, cannot be reclaimed when the limit is reached);
 *   <li>cold: a fresh cache per cell, of a budget far above the blocks a batch has in flight.
 * </ul>
 *
 * @param budgetBytes most bytes of block data the cache holds
 * @param blockSize bytes per block, a power of two from 4 KiB to 1 MiB
 * @param admission the cache's frequency admission ({@code BlockCache.Builder#frequencyAdmission})
 */
public record CacheSettings(long budgetBytes, int blockSize, boolean admission) {
  /** Blocks added to a "holding" budget, so that a full cache still has free blocks to load into. */
  static final int SLACK_BLOCKS = 64;

  /** With admission, the cache's default. */
  public CacheSettings(long budgetBytes, int blockSize) {
    this(budgetBytes, blockSize, true);
  }

  /** The same cache with admission on or off. */
  public CacheSettings withAdmission(boolean on) {
    return new CacheSettings(budgetBytes, blockSize, on);
  }

  public CacheSettings {
    if (budgetBytes < blockSize || blockSize <= 0) {
      throw new IllegalArgumentException("cache budget " + budgetBytes + " is below one block of " + blockSize);
    }
  }

  /** A cache that holds all of {@code bytes} (a file or an index) with room to spare. */
  public static CacheSettings holding(long bytes, int blockSize) {
    long blocks = (bytes + blockSize - 1) / blockSize + SLACK_BLOCKS;
    return new CacheSettings(blocks * blockSize, blockSize);
  }

  /** Half of a memory cgroup's limit: the raw pressure regime's cache (see the class comment). */
  public static CacheSettings halfOf(long limitBytes, int blockSize) {
    return new CacheSettings(limitBytes / 2 / blockSize * blockSize, blockSize);
  }

  /** Builds the cache; the caller closes it. */
  BlockCache build(String name) {
    return BlockCache.builder(budgetBytes).blockSize(blockSize).frequencyAdmission(admission).name(name).build();
  }

  public String describe() {
    return String.format(Locale.ROOT, "budget %s, %s blocks%s", Format.size(budgetBytes), Format.bytes(blockSize),
        admission ? "" : ", no admission");
  }
}
