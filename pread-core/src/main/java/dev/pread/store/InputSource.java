package dev.pread.store;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;

/**
 * Where a {@link PreadIndexInput} gets its bytes: a file read through the page cache ({@link
 * PageCacheSource}) or through a block cache of our own ({@link BlockCacheSource}). One source is
 * shared by an input and all its clones and slices; positions are absolute file offsets.
 *
 * <p>Implementations are thread-safe. After {@link #close()} begins, reads throw an {@link
 * IllegalStateException} ({@code ClosedFileException} or {@code AlreadyClosedException}) and never
 * return bytes of another file.
 */
interface InputSource extends Closeable {
  /**
   * Bytes a buffered input reads after a jump (doubling while reads stay sequential): large enough
   * to amortize what a refill costs, small enough not to copy much for a random read.
   */
  int minRefill();

  /**
   * True if each refill is a system call that may wait for storage (the page cache), so that a
   * buffered input sizes its first refill after a jump from the runs it has seen ({@link
   * RunLengths}); false where a refill is a copy (a block cache, which loads its blocks on its own).
   */
  default boolean refillIsSystemCall() {
    return false;
  }

  /** The file's length when it was opened. */
  long size();

  /** True once {@link #close()} has begun. */
  boolean isClosed();

  /**
   * Reads at least {@code min} and at most {@code max} bytes at {@code position} into {@code
   * dst[offset..]}, stopping before {@code max} only at end of file.
   *
   * @return the number of bytes read
   * @throws EOFException if the file ends before {@code position + min}
   */
  int readAtLeast(long position, byte[] dst, int offset, int min, int max) throws IOException;

  /**
   * Starts loading {@code [position, position + length)} without waiting for it: a hint, which
   * may do nothing. The range lies within the file.
   */
  void prefetch(long position, long length) throws IOException;
}
