package dev.pread.bench;

import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;

/**
 * {@code ffi-pread-odirect}: {@code pread(2)} on a descriptor opened with {@code O_DIRECT}, into a
 * per-thread native buffer aligned to 4096 bytes. Reads bypass the page cache, so this measures
 * the device (and the kernel's block layer), not page-cache copies, whatever the cache holds: it is
 * the device ceiling of BENCHMARKING.md, not a warm figure. Read sizes and positions must be
 * multiples of the file system's logical block size, or the kernel answers EINVAL.
 *
 * <p>Thread-safe: the file is shared; each thread reads through its own {@link Reader}.
 */
final class DirectPreadStrategy implements Strategy {
  private final NativeFile file;

  DirectPreadStrategy(Path path) throws IOException {
    this.file = NativeFile.openDirect(path.toAbsolutePath());
  }

  @Override
  public String name() {
    return "ffi-pread-odirect";
  }

  @Override
  public Reader newReader(int readSize) {
    Arena arena = Arena.ofConfined();
    return new NativeSegmentReader(arena.allocate(readSize, 4096)) {
      @Override
      void fill(long position) throws IOException {
        file.read(position, buf);
      }

      @Override
      public void close() {
        arena.close();
      }
    };
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
