package dev.pread.bench.raw;

import static dev.pread.bench.raw.StrategyRegistry.FFI_PREAD;
import static dev.pread.bench.raw.StrategyRegistry.FFI_PREAD_ODIRECT;

import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Path;

/**
 * {@code ffi-pread}: {@code pread(2)} through FFM straight into a per-thread native buffer, with no
 * Lucene input, no heap copy and no bounce buffer: the floor of the pread approach.
 *
 * <p>{@code ffi-pread-odirect}: the same on a descriptor opened with {@code O_DIRECT}, into a
 * buffer aligned to 4096 bytes. Reads bypass the page cache, so this measures the device (and the
 * kernel's block layer) whatever the cache holds: the device's ceiling, which the report gives as a
 * reference row, not a warm figure. Read sizes and positions must be multiples of the logical block size, or the kernel
 * answers EINVAL.
 *
 * <p>Thread-safe: the file is shared; each thread reads through its own {@link Reader}.
 */
public final class RawPreadStrategy implements Strategy {
  private final NativeFile file;

  public RawPreadStrategy(Path path, boolean direct) throws IOException {
    Path p = path.toAbsolutePath();
    this.file = direct ? NativeFile.openDirect(p) : NativeFile.open(p);
  }

  @Override
  public String name() {
    return file.isDirect() ? FFI_PREAD_ODIRECT : FFI_PREAD;
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
