package dev.pread.store;

import dev.pread.cache.CachedFile;
import java.io.IOException;

/** A {@link CachedFile}, read through its block cache. Thread-safe. */
final class BlockCacheSource implements InputSource {
  private final CachedFile file;

  BlockCacheSource(CachedFile file) {
    this.file = file;
  }

  @Override
  public long size() {
    return file.size();
  }

  @Override
  public boolean isClosed() {
    return file.isClosed();
  }

  @Override
  public int readAtLeast(long position, byte[] dst, int offset, int min, int max) throws IOException {
    return file.readAtLeast(position, dst, offset, min, max);
  }

  @Override
  public void prefetch(long position, long length) {
    file.prefetch(position, length);
  }

  @Override
  public void close() throws IOException {
    file.close();
  }

  @Override
  public String toString() {
    return file.toString();
  }
}
