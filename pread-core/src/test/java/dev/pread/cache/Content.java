package dev.pread.cache;

import dev.pread.store.TestContent;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import org.apache.lucene.util.Unwrappable;

/**
 * Test files whose every byte is a function of a seed and its offset, so that a read landing in
 * another file, another block, or a block's recycled memory shows as wrong bytes.
 */
final class Content {
  private Content() {}

  /**
   * How long a wait for a condition may take before the test fails instead of hanging: far beyond
   * anything a correct run needs, it only turns a hang into a failure.
   */
  static final long BOUND_NANOS = 120_000_000_000L;

  /** The content's word {@code index}: {@link TestContent#word}, the content of the store tests. */
  static long word(long seed, long index) {
    return TestContent.word(seed, index);
  }

  static byte byteAt(long seed, long position) {
    return TestContent.byteAt(seed, position);
  }

  /** Writes {@code length} bytes of content {@code seed} to {@code dir/name}; returns the real path. */
  static Path write(Path dir, String name, long seed, long length) throws IOException {
    Path path = Unwrappable.unwrapAll(dir).toAbsolutePath().resolve(name);
    byte[] chunk = new byte[1 << 16];
    try (OutputStream out = Files.newOutputStream(path)) {
      for (long p = 0; p < length; ) {
        int n = (int) Math.min(chunk.length, length - p);
        for (int i = 0; i < n; i++) {
          chunk[i] = byteAt(seed, p + i);
        }
        out.write(chunk, 0, n);
        p += n;
      }
    }
    return path;
  }

  /** As {@link #write}, then synced to storage, so that its clean pages can be dropped. */
  static Path writeSynced(Path dir, String name, long seed, long length) throws IOException {
    Path path = write(dir, name, seed, length);
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    return path;
  }

  /** Index of the first byte of {@code b[offset..offset+len)} that differs from the file, or -1. */
  static int firstMismatch(long seed, long position, byte[] b, int offset, int len) {
    for (int i = 0; i < len; i++) {
      if (b[offset + i] != byteAt(seed, position + i)) {
        return i;
      }
    }
    return -1;
  }

  /** Fails with a description if the bytes differ from the file's. */
  static void check(String what, long seed, long position, byte[] b, int offset, int len) {
    int bad = firstMismatch(seed, position, b, offset, len);
    if (bad >= 0) {
      throw new AssertionError(
          String.format(
              Locale.ROOT,
              "%s: wrong byte at file offset %d (read of %d bytes at %d): got %d, want %d",
              what, position + bad, len, position, b[offset + bad], byteAt(seed, position + bad)));
    }
  }

  /**
   * Waits until {@code cache} has no prefetch in flight: a wait for a condition that the prefetch
   * threads make true, bounded so that a bug fails the test instead of hanging it.
   */
  static void awaitPrefetches(BlockCache cache) {
    long deadline = System.nanoTime() + BOUND_NANOS;
    for (long i = 0; cache.stats().prefetchInFlight() != 0; i++) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("prefetches still in flight: " + cache.stats());
      }
      if (i < 1000) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  /** Waits until {@code t} has parked (or ended): it is then blocked where the test expects. */
  static void awaitParked(Thread t) {
    long deadline = System.nanoTime() + BOUND_NANOS;
    for (long i = 0; ; i++) {
      Thread.State s = t.getState();
      if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.TERMINATED) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(t.getName() + " never parked; state " + s);
      }
      Thread.onSpinWait();
      if ((i & 1023) == 0) {
        LockSupport.parkNanos(1); // let it run on a busy machine
      }
    }
  }

  /** This process's open descriptors whose target lies under {@code dir}. */
  static long descriptorsUnder(Path dir) throws IOException {
    Path real = Unwrappable.unwrapAll(dir).toAbsolutePath();
    long n = 0;
    try (java.util.stream.Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          if (Files.readSymbolicLink(fd).startsWith(real)) {
            n++;
          }
        } catch (IOException e) {
          // closed while listed
        }
      }
    }
    return n;
  }

  /** Live threads of the cache's prefetch pools. */
  static List<Thread> prefetchThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("pread-cache-prefetch-") && t.isAlive())
        .toList();
  }
}
