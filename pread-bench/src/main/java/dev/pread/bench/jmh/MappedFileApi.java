package dev.pread.bench.jmh;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code mmap}: the whole file mapped as one {@link MemorySegment} ({@link FileChannel#map} in a
 * confined arena, unmapped at the end of the pass). A write copies chunk by chunk from the content
 * into the mapping; {@code sync} is {@link MemorySegment#force()} (msync) and then {@code
 * force(true)} for the metadata. A read sums straight from the mapping. Mapping a region beyond
 * the end of the file extends the file first, so for mmap {@code growing} amounts to {@code
 * setlength}: the file cannot grow while it is written.
 *
 * <p>Not thread-safe: one per thread.
 */
final class MappedFileApi implements WholeFileApi {
  private final int chunkSize;

  MappedFileApi(int chunkSize) {
    this.chunkSize = chunkSize;
  }

  @Override
  public void write(Path file, MemorySegment content, Allocation allocation, boolean sync)
      throws IOException {
    long size = content.byteSize();
    allocation.prepare(file, size);
    try (FileChannel ch =
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Arena arena = Arena.ofConfined()) {
      MemorySegment map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
      for (long pos = 0; pos < size; pos += chunkSize) {
        MemorySegment.copy(content, pos, map, pos, chunkSize);
      }
      if (sync) {
        map.force();
        ch.force(true);
      }
    }
  }

  @Override
  public long readSum(Path file, long size) throws IOException {
    long sum = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        Arena arena = Arena.ofConfined()) {
      MemorySegment map = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
      for (long pos = 0; pos < size; pos += chunkSize) {
        sum += LongSum.of(map, pos, chunkSize);
      }
    }
    return sum;
  }
}
