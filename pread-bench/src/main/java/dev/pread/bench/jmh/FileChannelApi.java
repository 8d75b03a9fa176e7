package dev.pread.bench.jmh;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code filechannel}: {@link FileChannel#write(ByteBuffer)} and {@link FileChannel#read(ByteBuffer)}
 * (relative, front to back) with one direct buffer; {@code sync} is {@code force(true)}.
 *
 * <p>Not thread-safe: one per thread.
 */
final class FileChannelApi implements WholeFileApi {
  private final ByteBuffer chunk;
  private final MemorySegment chunkView;

  FileChannelApi(int chunkSize) {
    chunk = ByteBuffer.allocateDirect(chunkSize);
    chunkView = MemorySegment.ofBuffer(chunk);
  }

  @Override
  public void write(Path file, MemorySegment content, Allocation allocation, boolean sync)
      throws IOException {
    allocation.prepare(file, content.byteSize());
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      int n = chunk.capacity();
      for (long pos = 0, size = content.byteSize(); pos < size; pos += n) {
        MemorySegment.copy(content, pos, chunkView, 0, n);
        chunk.clear();
        while (chunk.hasRemaining()) {
          ch.write(chunk);
        }
      }
      if (sync) {
        ch.force(true);
      }
    }
  }

  @Override
  public long readSum(Path file, long size) throws IOException {
    long sum = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      int n = chunk.capacity();
      for (long pos = 0; pos < size; pos += n) {
        chunk.clear();
        while (chunk.hasRemaining()) {
          if (ch.read(chunk) < 0) {
            throw new EOFException(file + ": ended at offset " + (pos + chunk.position()));
          }
        }
        sum += LongSum.of(chunkView, 0, n);
      }
    }
    return sum;
  }
}
