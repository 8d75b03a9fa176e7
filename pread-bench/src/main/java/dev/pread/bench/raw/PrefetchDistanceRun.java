package dev.pread.bench.raw;

import dev.pread.bench.report.Stats;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A stream of random 8 KiB reads where {@code posix_fadvise(WILLNEED)} is issued for the read D
 * positions ahead (D = 0: no advice), one thread. Meant for a file larger than the memory the
 * process may use. Reports reads/s and the latency of each read in power-of-two microsecond
 * buckets.
 */
public final class PrefetchDistanceRun {
  static final int READ_SIZE = 8192;
  private static final ValueLayout.OfLong LE =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  /** Result for one distance; bucket i counts reads that took [2^i, 2^(i+1)) microseconds. */
  public record Result(int distance, double readsPerSecond, long reads, long[] latencyBuckets, long p50Micros, long p99Micros) {}

  private PrefetchDistanceRun() {}

  static Result run(Path file, long fileSize, int distance, double seconds, long seed) throws Exception {
    long blocks = fileSize / READ_SIZE;
    // A ring of upcoming offsets: the stream's future is known D reads ahead.
    int ring = Integer.highestOneBit(Math.max(1, distance) * 2 - 1) << 1;
    long[] upcoming = new long[ring];
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < ring; i++) {
      upcoming[i] = random.nextLong(blocks) * READ_SIZE;
    }
    long[] buckets = new long[40];
    long reads = 0;
    try (NativeFile f = NativeFile.open(file.toAbsolutePath());
        Arena arena = Arena.ofConfined()) {
      MemorySegment buf = arena.allocate(READ_SIZE, 4096);
      for (int i = 0; i < distance; i++) {
        f.advise(upcoming[i & (ring - 1)], READ_SIZE, Advice.WILLNEED);
      }
      long start = System.nanoTime();
      long deadline = start + (long) (seconds * 1e9);
      for (long i = 0; ; i++) {
        long pos = upcoming[(int) (i & (ring - 1))];
        if (distance > 0) {
          // The read D ahead of this one: generate it, advise it.
          long ahead = random.nextLong(blocks) * READ_SIZE;
          upcoming[(int) ((i + distance) & (ring - 1))] = ahead;
          f.advise(ahead, READ_SIZE, Advice.WILLNEED);
        } else {
          upcoming[(int) ((i + 1) & (ring - 1))] = random.nextLong(blocks) * READ_SIZE;
        }
        long t0 = System.nanoTime();
        f.read(pos, buf);
        long micros = (System.nanoTime() - t0) / 1000;
        buckets[64 - Long.numberOfLeadingZeros(Math.max(1, micros)) - 1]++;
        if (buf.get(LE, 0) != DataFile.expectedAt(pos) || buf.get(LE, READ_SIZE - 8) != DataFile.expectedAt(pos + READ_SIZE - 8)) {
          throw new IllegalStateException("prefetch run read wrong bytes at " + pos);
        }
        reads++;
        if ((reads & 63) == 0 && System.nanoTime() > deadline) {
          double elapsed = (System.nanoTime() - start) / 1e9;
          return new Result(distance, reads / elapsed, reads, buckets, Stats.bucketPercentile(buckets, reads, 0.5), Stats.bucketPercentile(buckets, reads, 0.99));
        }
      }
    }
  }
}
