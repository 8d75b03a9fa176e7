package dev.pread.bench.raw;

import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * One thread reads random blocks in batches: it calls {@code prefetch} for each of a batch's B
 * offsets, then reads them in order. With B = 1 a prefetch is followed at once by its read (no
 * overlap); larger batches put several reads in flight before the first is consumed. Every read
 * is verified.
 *
 * <p>Offsets come in two kinds. <em>Distinct</em> (the cold regime): reads are aligned to their
 * own size and no block is read twice in a run, so that no read is served by a page an earlier
 * read of the same run brought in; without this a fast strategy warms the file as it goes and
 * reports cache hits as disk reads. Otherwise (warm and pressure): page-aligned offsets drawn
 * with replacement, so that the steady state's hit rate is the regime's own.
 */
final class BatchPrefetchRun {
  private BatchPrefetchRun() {}

  /** Reads per second. */
  static double run(Strategy strategy, int readSize, long fileSize, int batch, boolean prefetch,
      boolean distinct, long millis, long seed) throws Exception {
    return run(strategy, readSize, fileSize, batch, prefetch, distinct, 0, millis, seed);
  }

  /**
   * Reads per second; {@code distinctUnit}: with distinct offsets, the granularity at which no two
   * reads may meet (at least the read size rounded to pages; a block cache's block size when larger,
   * so that no read is served by a block an earlier read of the cell loaded).
   */
  static double run(Strategy strategy, int readSize, long fileSize, int batch, boolean prefetch,
      boolean distinct, long distinctUnit, long millis, long seed) throws Exception {
    Offsets offsets = new Offsets(readSize, distinctUnit, fileSize, distinct, seed);
    long[] pending = new long[batch];
    try (Strategy.Reader reader = strategy.newReader(readSize)) {
      long first = offsets.next();
      if (!reader.verifyFully(first)) {
        throw new IllegalStateException(strategy.name() + " returned wrong bytes at " + first);
      }
      long reads = 0;
      long start = System.nanoTime();
      long deadline = start + millis * 1_000_000L;
      do {
        for (int i = 0; i < batch; i++) {
          pending[i] = offsets.next();
          if (prefetch) {
            reader.prefetch(pending[i]);
          }
        }
        for (int i = 0; i < batch; i++) {
          if (reader.read(pending[i]) != Strategy.expectedFingerprint(pending[i], readSize)) {
            throw new IllegalStateException(strategy.name() + " returned wrong bytes at " + pending[i]);
          }
        }
        reads += batch;
      } while (System.nanoTime() < deadline);
      return reads / ((System.nanoTime() - start) / 1e9);
    }
  }

  /** Random read offsets: page-aligned with replacement, or distinct size-aligned blocks. */
  static final class Offsets {
    private final SplittableRandom random;
    private final long slots;
    private final long unit;
    private final BitSet used;
    private long usedCount;

    Offsets(int readSize, long fileSize, boolean distinct, long seed) {
      this(readSize, 0, fileSize, distinct, seed);
    }

    /** {@code distinctUnit}: see {@link BatchPrefetchRun#run}; 0 for the read size. */
    Offsets(int readSize, long distinctUnit, long fileSize, boolean distinct, long seed) {
      this.random = new SplittableRandom(seed);
      this.unit = distinct ? Math.max((readSize + 4095L) / 4096 * 4096, distinctUnit) : 4096;
      this.slots = distinct ? fileSize / unit : (fileSize - readSize) / 4096 + 1;
      if (slots <= 0 || slots > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("file of " + fileSize + " bytes is not usable for " + readSize + "-byte reads");
      }
      this.used = distinct ? new BitSet((int) slots) : null;
    }

    long next() {
      if (used == null) {
        return random.nextLong(slots) * unit;
      }
      if (usedCount * 2 > slots) {
        throw new IllegalStateException("more than half of the file's " + slots
            + " blocks were read in one cold run; use a larger file or a shorter run");
      }
      int slot;
      do {
        slot = (int) random.nextLong(slots);
      } while (used.get(slot));
      used.set(slot);
      usedCount++;
      return slot * unit;
    }
  }
}
