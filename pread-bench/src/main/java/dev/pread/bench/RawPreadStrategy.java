package dev.pread.bench;

import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The floor of the pread approach: {@code pread(2)} through FFM straight into a per-thread native
 * buffer, with no Lucene input, no heap copy and no bounce buffer.
 */
final class RawPreadStrategy implements Strategy {
  private static final ValueLayout.OfLong LE_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

  private final NativeFile file;

  RawPreadStrategy(Path path) throws IOException {
    this.file = NativeFile.open(path.toAbsolutePath());
  }

  @Override
  public String name() {
    return "ffi-pread";
  }

  @Override
  public Reader newReader(int readSize) {
    Arena arena = Arena.ofConfined();
    MemorySegment buf = arena.allocate(readSize, 4096);
    return new Reader() {
      @Override
      public long read(long position) throws IOException {
        file.read(position, buf);
        return Strategy.fingerprint(buf.get(LE_LONG, 0), buf.get(LE_LONG, readSize - 8));
      }

      @Override
      public boolean verifyFully(long position) throws IOException {
        read(position);
        for (int i = 0; i < readSize; i += 8) {
          if (buf.get(LE_LONG, i) != DataFile.expectedAt(position + i)) {
            return false;
          }
        }
        return true;
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
