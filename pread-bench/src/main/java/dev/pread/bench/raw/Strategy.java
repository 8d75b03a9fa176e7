package dev.pread.bench.raw;

import dev.pread.cache.BlockCache;
import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;

/**
 * One way of reading the data file. A strategy opens the file once; each benchmark thread reads
 * through a {@link Reader} of its own (a clone, or a per-thread native buffer).
 */
public interface Strategy extends Closeable {
  /** Opens a strategy by the name a cell carries. */
  interface Opener {
    Strategy open(String name) throws IOException;
  }

  String name();

  /** A reader for one thread, reading {@code readSize} bytes at a time. */
  Reader newReader(int readSize) throws IOException;

  /** The block cache this strategy reads through ({@code dir-cached}), if any. */
  default Optional<BlockCache> cache() {
    return Optional.empty();
  }

  /**
   * Brings all {@code fileSize} bytes into the strategy's own cache, if it has one, checking every
   * byte: what "warm" means for a strategy the page cache does not serve. Default: nothing.
   */
  default void preload(long fileSize) throws IOException {}

  /** Not thread-safe: one per thread. */
  interface Reader extends AutoCloseable {
    /**
     * Reads {@code readSize} bytes at {@code position} and returns {@link #fingerprint} of what it
     * read, for cheap verification of every read.
     */
    long read(long position) throws IOException;

    /** Hints that {@code readSize} bytes at {@code position} will be read soon; default: nothing. */
    default void prefetch(long position) throws IOException {}

    /** Reads at {@code position} and compares every byte with the file's content. */
    boolean verifyFully(long position) throws IOException;

    @Override
    default void close() {}
  }

  /** The first and last little-endian longs of a read, combined. */
  static long fingerprint(long first, long last) {
    return first ^ Long.rotateLeft(last, 17);
  }

  /** The fingerprint a read of {@code length} bytes at an 8-aligned position must return. */
  static long expectedFingerprint(long position, int length) {
    return fingerprint(DataFile.expectedAt(position), DataFile.expectedAt(position + length - 8));
  }
}
