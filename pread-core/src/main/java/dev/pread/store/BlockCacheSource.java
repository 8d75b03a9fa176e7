package dev.pread.store;

import dev.pread.cache.CachedFile;
import java.io.IOException;

/** A {@link CachedFile}, read through its block cache. Thread-safe. */
final class BlockCacheSource implements InputSource {
  private final CachedFile file;

  BlockCacheSource(CachedFile file) {
    this.file = file;
  }

  /**
   * A refill is a copy from the cache: a random 8-byte read that copied 1 KiB cost about 4x one
   * that copied 64 bytes (measured, see the README), so refills after a jump are small.
   */
  static final int MIN_REFILL = 128;

  @Override
  public int minRefill() {
    return MIN_REFILL;
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
