package dev.pread.cache;

/**
 * What an attempt to get a cache slot for a block came to, as one {@code long} so that no path
 * allocates for it: either a table entry naming the slot (see {@link BlockStates}: an entry is
 * never 0 in its low 32 bits), or one of the values below, which are 0 there. Returned by {@link
 * ClockPolicy}'s claims and by {@link FileBlocks#acquire}, and carried by a {@link Run} that
 * claimed nothing.
 */
final class Outcome {
  /** No slot could be had: every one is pinned or loading. Read around the cache this time. */
  static final long BUSY = 0L;

  /**
   * Admission refused the block: it was used less lately than the block it would replace. A miss
   * read around the cache, counted as a rejection.
   */
  static final long REJECTED = 1L << 32;

  /** The block is cached or being loaded already: look it up again. */
  static final long PRESENT = 2L << 32;

  /**
   * The block is missing and the reading thread reads around the cache ({@link
   * BlockCache.Builder#readAroundIn}): read it as an input that does not insert would ({@link
   * BlockReader} reads runs of it into a buffer of its own).
   */
  static final long AROUND = 3L << 32;

  private Outcome() {}

  /** True if {@code outcome} is a table entry (a slot was had), not one of the values above. */
  static boolean isEntry(long outcome) {
    return (int) outcome != 0;
  }
}
