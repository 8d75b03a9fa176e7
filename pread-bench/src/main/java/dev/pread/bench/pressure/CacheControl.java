package dev.pread.bench.pressure;

import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Makes a file cold: as root, {@code sync} then {@code echo 3 > /proc/sys/vm/drop_caches};
 * otherwise {@code posix_fadvise(DONTNEED)} on the file, which drops its clean, unmapped pages.
 * Pages mapped by a live mmap are never dropped: close mapped inputs first.
 */
public final class CacheControl {
  private static final Path DROP_CACHES = Path.of("/proc/sys/vm/drop_caches");

  private CacheControl() {}

  /** How {@link #evict} works on this machine, for the report. */
  public static String method() {
    return canDropCaches()
        ? "drop_caches (root: sync; echo 3 > /proc/sys/vm/drop_caches)"
        : "posix_fadvise(POSIX_FADV_DONTNEED) on the file (not root)";
  }

  public static boolean canDropCaches() {
    return Files.isWritable(DROP_CACHES);
  }

  /** Drops {@code file}'s pages from the page cache. */
  public static void evict(Path file) throws IOException {
    if (canDropCaches()) {
      try {
        new ProcessBuilder("sync").inheritIO().start().waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted during sync", e);
      }
      Files.writeString(DROP_CACHES, "3");
    }
    // Also as root: DONTNEED is cheap and covers pages drop_caches skipped while they were dirty.
    try (NativeFile f = NativeFile.open(file.toAbsolutePath())) {
      f.advise(0, 0, Advice.DONTNEED);
    }
  }
}
