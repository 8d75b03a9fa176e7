package dev.pread.store;

import dev.pread.nativeio.IoPriority;
import java.io.IOException;

/**
 * An {@link InputSource} whose reads run with the reading thread in the idle I/O class ({@link
 * IoPriority}), its own class given back after each: for merges and read-once inputs of an {@link
 * AdaptiveDirectory} reading the page cache with {@code pread}, so that the queries' misses do not
 * wait behind them (and a merge kept waiting too long reads at its own class for a while, see
 * {@link IoPriority}). A read the page cache serves costs the two {@code ioprio_set} calls and no
 * wait. Thread-safe, as its source.
 */
final class IdleSource implements InputSource {
  private final InputSource source;

  IdleSource(InputSource source) {
    this.source = source;
  }

  @Override
  public int minRefill() {
    return source.minRefill();
  }

  @Override
  public long size() {
    return source.size();
  }

  @Override
  public boolean isClosed() {
    return source.isClosed();
  }

  @Override
  public int readAtLeast(long position, byte[] dst, int offset, int min, int max) throws IOException {
    int previous = IoPriority.enterIdle();
    long started = System.nanoTime();
    try {
      return source.readAtLeast(position, dst, offset, min, max);
    } finally {
      IoPriority.restore(previous, started);
    }
  }

  @Override
  public void prefetch(long position, long length) throws IOException {
    source.prefetch(position, length); // advice: its readahead runs in the kernel's own context
  }

  @Override
  public void close() throws IOException {
    source.close();
  }

  @Override
  public String toString() {
    return source.toString();
  }
}
