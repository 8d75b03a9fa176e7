package dev.pread.bench;

import java.util.SplittableRandom;

/**
 * One thread reads random page-aligned blocks in batches: it calls {@code prefetch} for each of a
 * batch's B offsets, then reads them in order. With B = 1 a prefetch is followed at once by its
 * read (no overlap); larger batches put several reads in flight before the first is consumed.
 * Every read is verified.
 */
final class BatchPrefetchRun {
  private BatchPrefetchRun() {}

  /** Reads per second. */
  static double run(Strategy strategy, int readSize, long fileSize, int batch, boolean prefetch,
      long millis, long seed) throws Exception {
    long pages = (fileSize - readSize) / 4096 + 1;
    SplittableRandom random = new SplittableRandom(seed);
    long[] offsets = new long[batch];
    try (Strategy.Reader reader = strategy.newReader(readSize)) {
      long first = random.nextLong(pages) * 4096;
      if (!reader.verifyFully(first)) {
        throw new IllegalStateException(strategy.name() + " returned wrong bytes at " + first);
      }
      long reads = 0;
      long start = System.nanoTime();
      long deadline = start + millis * 1_000_000L;
      do {
        for (int i = 0; i < batch; i++) {
          offsets[i] = random.nextLong(pages) * 4096;
          if (prefetch) {
            reader.prefetch(offsets[i]);
          }
        }
        for (int i = 0; i < batch; i++) {
          if (reader.read(offsets[i]) != Strategy.expectedFingerprint(offsets[i], readSize)) {
            throw new IllegalStateException(strategy.name() + " returned wrong bytes at " + offsets[i]);
          }
        }
        reads += batch;
      } while (System.nanoTime() < deadline);
      return reads / ((System.nanoTime() - start) / 1e9);
    }
  }
}
