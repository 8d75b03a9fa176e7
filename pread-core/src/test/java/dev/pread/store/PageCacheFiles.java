package dev.pread.store;

import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Path;

/** Drops a file's pages from the page cache, for tests that need it cold. */
final class PageCacheFiles {
  private PageCacheFiles() {}

  /**
   * Asks the kernel to drop the pages of {@code real} (a real path) until none is cached, a bounded
   * number of times: pages of a file just written may be under writeback, which {@code
   * POSIX_FADV_DONTNEED} skips.
   *
   * @return the pages still cached: 0 if the file is cold; -1 if the kernel cannot tell (no
   *     {@code cachestat(2)}, before Linux 6.5); above 0 where the file system keeps them (tmpfs)
   */
  static long drop(Path real) throws IOException {
    try (NativeFile f = NativeFile.open(real)) {
      long size = Math.max(1, f.size());
      if (f.cachedPages(0, size) < 0) {
        return -1;
      }
      for (int i = 0; i < 10_000 && f.cachedPages(0, size) > 0; i++) {
        f.advise(0, 0, Advice.DONTNEED);
        Thread.yield();
      }
      return f.cachedPages(0, size);
    }
  }
}
