package dev.pread.bench.raw;

import java.util.SplittableRandom;

/**
 * Where the reads of a {@link RandomReadRun} start. Each thread draws from a generator of its own,
 * seeded by the run; generators of one pattern and file share everything else (a Zipf pattern's hot
 * blocks are the same for every thread, as a query load's are).
 */
public interface OffsetPattern {
  /** A generator for one thread's reads of {@code readSize} bytes in a file of {@code fileSize}. */
  Generator forThread(int readSize, long fileSize, long seed);

  /** Not thread-safe: one per thread. */
  interface Generator {
    long next();
  }

  /** Page-aligned offsets, uniformly at random (with replacement): the default of every regime. */
  OffsetPattern UNIFORM_PAGES = (readSize, fileSize, seed) -> {
    SplittableRandom random = new SplittableRandom(seed);
    long pages = (fileSize - readSize) / 4096 + 1;
    return () -> random.nextLong(pages) * 4096;
  };
}
