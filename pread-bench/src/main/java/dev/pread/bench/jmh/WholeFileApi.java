package dev.pread.bench.jmh;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/**
 * One Java API for writing and reading a whole file front to back, {@code chunkSize} bytes at a
 * time. An implementation owns its chunk buffer, allocated when it is made (outside the measured
 * code); opening and closing the file are part of each pass.
 *
 * <p>Every API moves each chunk through its natural buffer: a write copies the chunk from the
 * in-memory content into that buffer, then hands it over; a read fills the buffer, then sums it
 * ({@link LongSum}). mmap has no separate buffer: it copies into, and sums straight from, the
 * mapping.
 *
 * <p>Not thread-safe: one per thread.
 */
interface WholeFileApi extends AutoCloseable {
  List<String> NAMES = List.of("raf", "buffered-stream", "filechannel", "mmap", "ffi");

  /**
   * Writes all of {@code content} to {@code file} from offset 0, {@code allocation} applied first,
   * then {@code fsync}s the file if {@code sync}.
   */
  void write(Path file, MemorySegment content, Allocation allocation, boolean sync)
      throws IOException;

  /** Reads the first {@code size} bytes of {@code file} and returns their {@link LongSum}. */
  long readSum(Path file, long size) throws IOException;

  @Override
  default void close() {}

  static WholeFileApi create(String name, int chunkSize) {
    return switch (name) {
      case "raf" -> new RafApi(chunkSize);
      case "buffered-stream" -> new BufferedStreamApi(chunkSize);
      case "filechannel" -> new FileChannelApi(chunkSize);
      case "mmap" -> new MappedFileApi(chunkSize);
      case "ffi" -> new FfiApi(chunkSize);
      default -> throw new IllegalArgumentException("unknown api '" + name + "'; one of " + NAMES);
    };
  }
}
