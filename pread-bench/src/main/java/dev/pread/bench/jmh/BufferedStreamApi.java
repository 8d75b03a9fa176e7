package dev.pread.bench.jmh;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * {@code buffered-stream}: {@link BufferedOutputStream} over a {@link FileOutputStream} and {@link
 * BufferedInputStream} over a {@link FileInputStream}, each with its default 8 KiB buffer, fed
 * {@code chunkSize} bytes at a time. The output stream writes through the descriptor of a {@link
 * RandomAccessFile}, because {@code new FileOutputStream(file)} would truncate away the
 * preallocation.
 *
 * <p>Not thread-safe: one per thread.
 */
final class BufferedStreamApi implements WholeFileApi {
  private final byte[] chunk;
  private final MemorySegment chunkView;

  BufferedStreamApi(int chunkSize) {
    chunk = new byte[chunkSize];
    chunkView = MemorySegment.ofArray(chunk);
  }

  @Override
  public void write(Path file, MemorySegment content, Allocation allocation, boolean sync)
      throws IOException {
    allocation.prepare(file, content.byteSize());
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw");
        OutputStream out = new BufferedOutputStream(new FileOutputStream(raf.getFD()))) {
      int n = chunk.length;
      for (long pos = 0, size = content.byteSize(); pos < size; pos += n) {
        MemorySegment.copy(content, ValueLayout.JAVA_BYTE, pos, chunk, 0, n);
        out.write(chunk, 0, n);
      }
      out.flush();
      if (sync) {
        raf.getFD().sync();
      }
    }
  }

  @Override
  public long readSum(Path file, long size) throws IOException {
    long sum = 0;
    try (InputStream in = new BufferedInputStream(new FileInputStream(file.toFile()))) {
      int n = chunk.length;
      for (long pos = 0; pos < size; pos += n) {
        if (in.readNBytes(chunk, 0, n) != n) {
          throw new EOFException(file + ": ended before offset " + (pos + n));
        }
        sum += LongSum.of(chunkView, 0, n);
      }
    }
    return sum;
  }
}
