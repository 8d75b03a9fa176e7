package dev.pread.bench.raw;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One timed cell: {@code threads} threads read {@code readSize} bytes at random offsets (page-aligned
 * and uniform by default, or from an {@link OffsetPattern}) through their own reader. A warm-up phase is discarded; the measured phase counts reads.
 * Every read's fingerprint is checked, and each thread compares one whole read byte by byte.
 */
public final class RandomReadRun {
  private static final int PHASE_WARMUP = 0;
  private static final int PHASE_MEASURE = 1;
  private static final int PHASE_STOP = 2;

  private volatile int phase;

  /** Reads per second over the measured phase, at uniformly random page-aligned offsets. */
  public static double run(
      Strategy strategy, int threads, int readSize, long fileSize, long warmupMillis,
      long measureMillis, long seed)
      throws Exception {
    return run(strategy, threads, readSize, fileSize, warmupMillis, measureMillis, seed, OffsetPattern.UNIFORM_PAGES);
  }

  /** Reads per second over the measured phase, at offsets drawn from {@code pattern}. */
  public static double run(
      Strategy strategy, int threads, int readSize, long fileSize, long warmupMillis,
      long measureMillis, long seed, OffsetPattern pattern)
      throws Exception {
    return new RandomReadRun().execute(strategy, threads, readSize, fileSize, warmupMillis, measureMillis, seed, pattern);
  }

  private double execute(
      Strategy strategy, int threads, int readSize, long fileSize, long warmupMillis,
      long measureMillis, long seed, OffsetPattern pattern)
      throws Exception {
    long[] counts = new long[threads];
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch ready = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      OffsetPattern.Generator offsets = pattern.forThread(readSize, fileSize, seed * 31 + t);
      Thread w =
          new Thread(
              () -> {
                try (Strategy.Reader reader = strategy.newReader(readSize)) {
                  long first = offsets.next();
                  if (!reader.verifyFully(first)) {
                    throw new IllegalStateException(
                        strategy.name() + " returned wrong bytes at offset " + first);
                  }
                  ready.countDown();
                  long n = 0;
                  int p;
                  while ((p = phase) != PHASE_STOP) {
                    long pos = offsets.next();
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
