package dev.pread.bench.jmh;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * {@code raf}: {@link RandomAccessFile#write(byte[], int, int)} and {@link
 * RandomAccessFile#readFully(byte[], int, int)} with one page-sized (by default) heap array.
 *
 * <p>Not thread-safe: one per thread.
 */
final class RafApi implements WholeFileApi {
  private final byte[] chunk;
  private final MemorySegment chunkView;

  RafApi(int chunkSize) {
    chunk = new byte[chunkSize];
    chunkView = MemorySegment.ofArray(chunk);
  }

  @Override
  public void write(Path file, MemorySegment content, Allocation allocation, boolean sync)
      throws IOException {
    allocation.prepare(file, content.byteSize());
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      int n = chunk.length;
      for (long pos = 0, size = content.byteSize(); pos < size; pos += n) {
        MemorySegment.copy(content, ValueLayout.JAVA_BYTE, pos, chunk, 0, n);
        raf.write(chunk, 0, n);
      }
      if (sync) {
        raf.getFD().sync();
      }
    }
  }

  @Override
  public long readSum(Path file, long size) throws IOException {
    long sum = 0;
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      int n = chunk.length;
      for (long pos = 0; pos < size; pos += n) {
        raf.readFully(chunk, 0, n);
        sum += LongSum.of(chunkView, 0, n);
      }
    }
    return sum;
  }
}
