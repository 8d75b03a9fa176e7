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
   * A refill is a copy from the cache, and a random small read pays for every byte a refill
   * copies beyond what it needs, so refills after a jump start small; sequential reads (merges,
   * read-once inputs) still grow them to the buffer's size, one copy per refill.
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
