package dev.pread.bench.raw;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A {@link Strategy.Reader} whose bytes land in a native segment of its own (a direct buffer or an
 * arena allocation), made when the reader is made, outside any measured code. Subclasses only fill
 * the segment.
 *
 * <p>Not thread-safe: one per thread.
 */
abstract class NativeSegmentReader implements Strategy.Reader {
  static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  final MemorySegment buf;
  final int readSize;

  NativeSegmentReader(MemorySegment buf) {
    this.buf = buf;
    this.readSize = Math.toIntExact(buf.byteSize());
  }

  /** Puts the file's bytes {@code [position, position + readSize)} into {@link #buf}. */
  abstract void fill(long position) throws IOException;

  @Override
  public final long read(long position) throws IOException {
    fill(position);
    return Strategy.fingerprint(buf.get(LE_LONG, 0), buf.get(LE_LONG, readSize - 8));
  }

  @Override
  public final boolean verifyFully(long position) throws IOException {
    fill(position);
    for (int i = 0; i < readSize; i += 8) {
      if (buf.get(LE_LONG, i) != DataFile.expectedAt(position + i)) {
        return false;
      }
    }
    return true;
  }
}
