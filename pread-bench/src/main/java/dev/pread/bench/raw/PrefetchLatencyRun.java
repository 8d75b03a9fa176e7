package dev.pread.bench.raw;

import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP;

import dev.pread.bench.pressure.CacheControl;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NoLockFactory;

/**
 * Cold prefetch latency: the time from a prefetch call to having the last byte of a cold 16 KiB
 * block, with optional simulated work (a busy wait) between the two. Each sample reads a block in
 * its own 8 MiB region of a freshly evicted file, so that readahead of one sample cannot warm
 * another. "Wait" is what the reader still waited after its work: with a prefetch that hides the
 * disk, it falls to zero once the work is longer than the device's latency.
 */
public final class PrefetchLatencyRun {
  static final int BLOCK = 16384;
  private static final long REGION = 8L << 20;

  public record Result(String strategy, long delayMicros, int samples, double medianWaitMicros, double p90WaitMicros) {}

  private PrefetchLatencyRun() {}

  public static Result run(String strategy, Path file, long fileSize, long delayMicros, int samples, long seed)
      throws Exception {
    long regions = fileSize / REGION;
    int n = (int) Math.min(samples, regions);
    long[] waits = new long[n];
    SplittableRandom random = new SplittableRandom(seed);
    long[] order = new long[(int) regions];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    for (int i = order.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      long t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    CacheControl.evict(file);
    // "ffi-pread[+prefetch]": NativeFile with posix_fadvise(WILLNEED);
    // "dir-mmap[+prefetch]": MMapDirectory's input with its madvise prefetch.
    boolean mmap = strategy.startsWith(DIR_MMAP);
    boolean prefetch = strategy.endsWith("+prefetch");
    try (MMapDirectory dir = new MMapDirectory(file.toAbsolutePath().getParent(), NoLockFactory.INSTANCE);
        IndexInput mapped = mmap ? dir.openInput(file.getFileName().toString(), IOContext.DEFAULT) : null;
        NativeFile nf = mmap ? null : NativeFile.open(file.toAbsolutePath());
        Arena arena = Arena.ofConfined()) {
      MemorySegment buf = arena.allocate(BLOCK, 4096);
      byte[] heap = new byte[BLOCK];
      for (int s = 0; s < n; s++) {
        long pos = order[s] * REGION + (random.nextLong(REGION - BLOCK) & ~4095L);
        long t0 = System.nanoTime();
        if (prefetch) {
          if (mmap) {
            mapped.prefetch(pos, BLOCK);
          } else {
            nf.advise(pos, BLOCK, Advice.WILLNEED);
          }
        }
        long workEnd = t0 + delayMicros * 1000;
        while (System.nanoTime() < workEnd) {
          Thread.onSpinWait();
        }
        long t1 = System.nanoTime();
        if (mmap) {
          mapped.seek(pos);
          mapped.readBytes(heap, 0, BLOCK);
          if ((long) org.apache.lucene.util.BitUtil.VH_LE_LONG.get(heap, BLOCK - 8) != DataFile.expectedAt(pos + BLOCK - 8)) {
            throw new IllegalStateException("wrong bytes at " + pos);
          }
        } else {
          nf.read(pos, buf);
          if (buf.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), BLOCK - 8)
              != DataFile.expectedAt(pos + BLOCK - 8)) {
            throw new IllegalStateException("wrong bytes at " + pos);
          }
        }
        waits[s] = (System.nanoTime() - Math.max(t1, workEnd)) / 1000;
      }
    }
    Arrays.sort(waits);
    return new Result(strategy, delayMicros, n, waits[n / 2], waits[(int) (n * 0.9)]);
  }
}
