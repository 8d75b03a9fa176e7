package dev.pread.bench.jmh;

import dev.pread.nativeio.NativeFile;
import dev.pread.nativeio.NativeOutputFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * {@code ffi}: {@code pwrite(2)} through {@link NativeOutputFile} and {@code pread(2)} through
 * {@link NativeFile}, with one native buffer aligned to 4096 bytes. The allocation is applied on
 * the descriptor itself ({@code ftruncate} or {@code fallocate} after {@code O_TRUNC}); {@code
 * sync} is {@code fsync}.
 *
 * <p>Not thread-safe: one per thread.
 */
final class FfiApi implements WholeFileApi {
  private final Arena arena = Arena.ofShared();
  private final MemorySegment chunk;

  FfiApi(int chunkSize) {
    chunk = arena.allocate(chunkSize, 4096);
  }

  @Override
  public void write(Path file, MemorySegment content, Allocation allocation, boolean sync)
      throws IOException {
    long size = content.byteSize();
    try (NativeOutputFile out = NativeOutputFile.create(file.toAbsolutePath())) {
      allocation.apply(out, size);
      long n = chunk.byteSize();
      for (long pos = 0; pos < size; pos += n) {
        MemorySegment.copy(content, pos, chunk, 0, n);
        out.write(pos, chunk);
      }
      if (sync) {
        out.sync();
      }
    }
  }

  @Override
  public long readSum(Path file, long size) throws IOException {
    long sum = 0;
    try (NativeFile in = NativeFile.open(file.toAbsolutePath())) {
      long n = chunk.byteSize();
      for (long pos = 0; pos < size; pos += n) {
        in.read(pos, chunk);
        sum += LongSum.of(chunk, 0, n);
      }
    }
    return sum;
  }

  @Override
  public void close() {
    arena.close();
  }
}
