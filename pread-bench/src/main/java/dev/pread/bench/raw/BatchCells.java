package dev.pread.bench.raw;

import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.report.Results;
import java.io.IOException;
import java.util.List;

/**
 * The batched-prefetch cells of one regime, run in rotated rounds into a {@link Results}: for each
 * round, read size, batch size, prefetch mode and strategy, {@link #before} runs (e.g. an
 * eviction), then a fresh strategy (from the opener, by name: a dir-cached one with a fresh cache)
 * reads for {@link #millis} ms ({@link BatchPrefetchRun}). Batch sizes and strategies rotate from
 * round to round, so that none always runs late in a round.
 *
 * <p>Set what differs from the defaults (one read size of 16 KiB, batch size 16, prefetch on,
 * offsets not distinct, one round of 1 s, nothing before a cell), then {@link #run} once. Not
 * thread-safe.
 */
public final class BatchCells {
  /** An action that may fail with an I/O error. */
  public interface IoStep {
    void run() throws IOException;
  }

  private final String regime;
  private final Strategy.Opener opener;
  private final long fileSize;
  private final List<String> strategies;
  private int[] readSizes = {16384};
  private int[] batches = {16};
  private boolean[] prefetchModes = {true};
  private boolean distinct;
  private long distinctUnit;
  private int rounds = 1;
  private long millis = 1000;
  private IoStep before = () -> {};
  private Runnable step = () -> {};

  private BatchCells(String regime, Strategy.Opener opener, long fileSize, List<String> strategies) {
    this.regime = regime;
    this.opener = opener;
    this.fileSize = fileSize;
    this.strategies = List.copyOf(strategies);
  }

  /** Cells of {@code regime} for {@code strategies}, opened by name from {@code opener}, over a file of {@code fileSize} bytes. */
  public static BatchCells of(String regime, Strategy.Opener opener, long fileSize, List<String> strategies) {
    return new BatchCells(regime, opener, fileSize, strategies);
  }

  public BatchCells readSizes(int... sizes) {
    this.readSizes = sizes.clone();
    return this;
  }

  public BatchCells batches(int... sizes) {
    this.batches = sizes.clone();
    return this;
  }

  public BatchCells prefetchModes(boolean... modes) {
    this.prefetchModes = modes.clone();
    return this;
  }

  /**
   * Every read of a cell at a block no other read of it met, at the granularity {@code unit} (0: the
   * read size rounded to pages); see {@link BatchPrefetchRun#run}.
   */
  public BatchCells distinct(long unit) {
    this.distinct = true;
    this.distinctUnit = unit;
    return this;
  }

  public BatchCells rounds(int rounds) {
    this.rounds = rounds;
    return this;
  }

  /** Measured milliseconds per cell. */
  public BatchCells millis(long millis) {
    this.millis = millis;
    return this;
  }

  /** Runs before every cell, before its strategy opens. */
  public BatchCells before(IoStep before) {
    this.before = before;
    return this;
  }

  /** Runs after every cell (progress). */
  public BatchCells step(Runnable step) {
    this.step = step;
    return this;
  }

  /** Adds the cells to {@code r}, each with {@code rounds} empty rounds, and runs them. */
  public void run(Results r) throws Exception {
    r.addBatches(regime, strategies, readSizes, batches, prefetchModes, rounds);
    for (int round = 0; round < rounds; round++) {
      for (int rs : readSizes) {
        for (int j = 0; j < batches.length; j++) {
          int b = batches[(j + round) % batches.length];
          for (boolean p : prefetchModes) {
            for (int k = 0; k < strategies.size(); k++) {
              String s = strategies.get((k + round) % strategies.size());
              before.run();
              try (Strategy strategy = opener.open(s)) {
                Results.Batch cell = r.batch(regime, s, rs, b, p);
                CacheUse.Probe probe = CacheUse.probe(strategy.cache().orElse(null));
                cell.rounds[round] =
                    BatchPrefetchRun.run(strategy, rs, fileSize, b, p, distinct, distinctUnit, millis, 17L * round + b + rs);
                cell.cache = CacheUse.add(cell.cache, probe.done());
              }
              step.run();
            }
          }
        }
      }
    }
  }
}
