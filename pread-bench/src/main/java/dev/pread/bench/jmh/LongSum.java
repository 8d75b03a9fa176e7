package dev.pread.bench.jmh;

import dev.pread.bench.raw.DataFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The checksum of the sequential benchmarks: the wrapping sum of a range's little-endian longs.
 * Zeros, a short read, a skipped or repeated chunk all change it, because the content's words are
 * all different ({@link DataFile#word}).
 *
 * <p>Thread-safe: stateless.
 */
final class LongSum {
  static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private LongSum() {}

  /** Sum of the longs in {@code seg[offset, offset + length)}; length is a multiple of 8. */
  static long of(MemorySegment seg, long offset, long length) {
    long sum = 0;
    for (long i = 0; i < length; i += 8) {
      sum += seg.get(LE_LONG, offset + i);
    }
    return sum;
  }

  /** The sum a file of {@code size} bytes of {@link DataFile} content must have. */
  static long expected(long size) {
    long sum = 0;
    for (long w = 0, words = size >>> 3; w < words; w++) {
      sum += DataFile.word(w);
    }
    return sum;
  }

  /** {@code size} bytes of {@link DataFile} content in native memory of {@code arena}. */
  static MemorySegment content(Arena arena, long size) {
    MemorySegment seg = arena.allocate(size, 4096);
    for (long w = 0, words = size >>> 3; w < words; w++) {
      seg.set(LE_LONG, w << 3, DataFile.word(w));
    }
    return seg;
  }
}
