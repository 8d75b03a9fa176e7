package dev.pread.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One timed cell: {@code threads} threads read {@code readSize} bytes at random page-aligned
 * offsets through their own reader. A warm-up phase is discarded; the measured phase counts reads.
 * Every read's fingerprint is checked, and each thread compares one whole read byte by byte.
 */
final class RandomReadRun {
  private static final int PHASE_WARMUP = 0;
  private static final int PHASE_MEASURE = 1;
  private static final int PHASE_STOP = 2;

  private volatile int phase;

  /** Reads per second over the measured phase. */
  static double run(
      Strategy strategy, int threads, int readSize, long fileSize, long warmupMillis,
      long measureMillis, long seed)
      throws Exception {
    return new RandomReadRun().execute(strategy, threads, readSize, fileSize, warmupMillis, measureMillis, seed);
  }

  private double execute(
      Strategy strategy, int threads, int readSize, long fileSize, long warmupMillis,
      long measureMillis, long seed)
      throws Exception {
    long pages = (fileSize - readSize) / 4096 + 1;
    long[] counts = new long[threads];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      SplittableRandom random = new SplittableRandom(seed * 31 + t);
      Thread w =
          new Thread(
              () -> {
                try (Strategy.Reader reader = strategy.newReader(readSize)) {
                  long first = random.nextLong(pages) * 4096;
                  if (!reader.verifyFully(first)) {
                    throw new IllegalStateException(
                        strategy.name() + " returned wrong bytes at offset " + first);
                  }
                  ready.countDown();
                  long n = 0;
                  int p;
                  while ((p = phase) != PHASE_STOP) {
                    long pos = random.nextLong(pages) * 4096;
                    if (reader.read(pos) != Strategy.expectedFingerprint(pos, readSize)) {
                      throw new IllegalStateException(
                          strategy.name() + " returned wrong bytes at offset " + pos);
                    }
                    if (p == PHASE_MEASURE) {
                      n++;
                    }
                  }
                  counts[id] = n;
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                  ready.countDown();
                }
              },
              "bench-" + strategy.name() + "-" + t);
      workers.add(w);
      w.start();
    }
    ready.await();
    Thread.sleep(warmupMillis);
    phase = PHASE_MEASURE;
    long start = System.nanoTime();
    Thread.sleep(measureMillis);
    phase = PHASE_STOP;
    long elapsed = System.nanoTime() - start;
    for (Thread w : workers) {
      w.join();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(strategy.name() + " failed", failure.get());
    }
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    return total / (elapsed / 1e9);
  }
}
