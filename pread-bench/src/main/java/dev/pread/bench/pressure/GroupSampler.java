package dev.pread.bench.pressure;

import java.util.Arrays;

/**
 * Samples this process's memory cgroup on a daemon thread: the memory charged besides page cache
 * (anonymous and kernel memory: {@code usage - file}) and the page cache, every few milliseconds.
 * Gives the highest non-file charge seen (the growth a run needs beyond what it held before) and
 * the mean page cache over a window of time. Start it with {@link #start}, read it after {@link
 * #close}, which stops the thread and waits for it. A cgroup file holding something other than a
 * number fails {@link #start} or, met later, {@link #close} with an {@link IllegalStateException}
 * naming the file.
 */
public final class GroupSampler implements AutoCloseable {
  private final long periodMillis;
  private final Thread thread;
  private volatile boolean stop;
  private long[] times = new long[256];
  private long[] fileBytes = new long[256];
  private long[] nonFileBytes = new long[256];
  private int size;
  private long maxNonFile = -1;
  private final java.util.function.LongSupplier excluded;
  private final CgroupFiles files;
  /** Why the sampling thread stopped early, or null. */
  private volatile RuntimeException failure;

  private GroupSampler(long periodMillis, java.util.function.LongSupplier excluded, CgroupFiles files) {
    this.periodMillis = periodMillis;
    this.excluded = excluded;
    this.files = files;
    this.thread = new Thread(this::loop, "cgroup-sampler");
    thread.setDaemon(true);
  }

  /** Starts sampling every {@code periodMillis}. */
  public static GroupSampler start(long periodMillis) {
    return start(periodMillis, () -> 0);
  }

  /**
   * Starts sampling every {@code periodMillis}; {@code excluded} (read with each sample) is
   * memory to leave out of the non-file charge, such as a block cache's allocated blocks.
   */
  public static GroupSampler start(long periodMillis, java.util.function.LongSupplier excluded) {
    return start(periodMillis, excluded, CgroupFiles.SYSTEM);
  }

  static GroupSampler start(long periodMillis, java.util.function.LongSupplier excluded, CgroupFiles files) {
    GroupSampler s = new GroupSampler(periodMillis, excluded, files);
    s.sample();
    s.thread.start();
    return s;
  }

  /** Memory charged to this process's group besides page cache now, or -1 where unreadable. */
  public static long nonFileBytesNow() {
    long usage = MemoryCgroup.ownUsageBytes();
    long file = MemoryCgroup.ownPageCacheBytes();
    return usage < 0 || file < 0 ? -1 : usage - file;
  }

  private void loop() {
    while (!stop) {
      try {
        Thread.sleep(periodMillis);
      } catch (InterruptedException e) {
        return;
      }
      try {
        sample();
      } catch (RuntimeException e) {
        failure = e;
        return;
      }
    }
  }

  private void sample() {
    long usage = files.ownUsageBytes();
    long file = files.ownPageCacheBytes();
    if (usage < 0 || file < 0) {
      return;
    }
    long nonFile = usage - file - excluded.getAsLong();
    synchronized (this) {
      maxNonFile = Math.max(maxNonFile, nonFile);
      if (size == times.length) {
        times = Arrays.copyOf(times, size * 2);
        fileBytes = Arrays.copyOf(fileBytes, size * 2);
        nonFileBytes = Arrays.copyOf(nonFileBytes, size * 2);
      }
      times[size] = System.nanoTime();
      fileBytes[size] = file;
      nonFileBytes[size] = nonFile;
      size++;
    }
  }

  /** The highest non-file charge sampled (less what was excluded), or -1. */
  public synchronized long maxNonFileBytes() {
    return maxNonFile;
  }

  /** The median of the non-file charges sampled (less what was excluded), or -1 when none. */
  public synchronized long medianNonFileBytes() {
    if (size == 0) {
      return -1;
    }
    long[] sorted = Arrays.copyOf(nonFileBytes, size);
    Arrays.sort(sorted);
    return sorted[size / 2];
  }

  /** Mean page cache of the samples taken in [{@code fromNanos}, {@code toNanos}), or -1 when none. */
  public synchronized long meanFileBytes(long fromNanos, long toNanos) {
    long sum = 0;
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (times[i] >= fromNanos && times[i] < toNanos) {
        sum += fileBytes[i];
        n++;
      }
    }
    return n == 0 ? -1 : sum / n;
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    thread.interrupt();
    thread.join();
    if (failure != null) {
      throw new IllegalStateException("sampling the memory cgroup failed: " + failure.getMessage(), failure);
    }
  }
}
