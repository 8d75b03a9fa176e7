package dev.pread.nativeio;

import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A regular file opened write-only, written with positional {@code pwrite(2)} from native memory.
 * It exists for benchmarks and tools that compare write paths; {@code PreadDirectory} writes
 * through Lucene's own outputs.
 *
 * <p><b>Thread-safety:</b> every method may be called from any number of threads at once. Writes
 * take no lock; writes of different threads to overlapping ranges land in an unspecified order.
 * Writes are not interruptible: {@link Thread#interrupt()} neither aborts a write nor closes the
 * file.
 *
 * <p><b>Close:</b> {@link #close()} waits until calls in flight have finished, then closes the
 * descriptor exactly once (the same {@link ReadGuard} protocol as {@link NativeFile}), so a write
 * can never reach a descriptor number the kernel has since given to another file. A call that
 * starts after close begins throws {@link ClosedFileException}. Closing twice is harmless. Close
 * does not {@link #sync()}: data may still be in the page cache only.
 *
 * <p><b>Errors:</b> EINTR and short writes are retried; any other failure throws {@link
 * NativeIOException} naming the path, the operation, the offset and errno, e.g. {@code
 * /data/f: pwrite failed at offset 4096 (length 4096): ENOSPC (No space left on device)}.
 */
public final class NativeOutputFile implements Closeable {
  /** {@code rw-r--r--}, before the process umask. */
  private static final int MODE_0644 = 0644;

  private final Path path;
  private final int fd;
  private final ReadGuard guard = new ReadGuard();

  private NativeOutputFile(Path path, int fd) {
    this.path = path;
    this.fd = fd;
  }

  /**
   * Creates {@code path}, or truncates it to 0 bytes if it exists, and opens it write-only with
   * close-on-exec ({@code O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC}, mode 0644 less the umask).
   *
   * @param path a path of the default file system
   * @throws java.nio.file.NoSuchFileException if its parent directory does not exist
   * @throws java.nio.file.AccessDeniedException if it may not be written
   * @throws NativeIOException on any other failure, e.g. EISDIR for a directory
   * @throws UnsupportedOperationException if {@link NativeAccess#isAvailable()} is false, or the C
   *     library lacks a write-side call
   */
  public static NativeOutputFile create(Path path) throws IOException {
    NativeAccess.ensureAvailable();
    Objects.requireNonNull(path, "path");
    if (path.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException(
          "not a path of the default file system (unwrap it first): " + path);
    }
    try {
      NativeIO.linkWrites();
    } catch (LinkageError e) {
      throw new UnsupportedOperationException("native writes are unavailable: " + e, e);
    }
    Path absolute = path.toAbsolutePath();
    int flags = NativeIO.O_WRONLY | NativeIO.O_CREAT | NativeIO.O_TRUNC | NativeIO.O_CLOEXEC;
    return new NativeOutputFile(absolute, NativeIO.openWithMode(absolute, flags, MODE_0644));
  }

  /** The absolute path this file was opened with. */
  public Path path() {
    return path;
  }

  /** True once {@link #close()} has begun. */
  public boolean isClosed() {
    return guard.isClosed();
  }

  /**
   * Writes all {@code src.byteSize()} bytes of the native segment {@code src} at {@code position},
   * extending the file if the range ends beyond it.
   *
   * @throws IllegalArgumentException if {@code src} is not native memory or the position is
   *     negative
   * @throws ClosedFileException if the file is closed
   */
  public void write(long position, MemorySegment src) throws IOException {
    if (!src.isNative()) {
      throw new IllegalArgumentException("source is not native memory: " + src);
    }
    long count = src.byteSize();
    if (position < 0 || position > Long.MAX_VALUE - count) {
      throw new IllegalArgumentException(
          path + ": invalid write position " + position + " (length " + count + ")");
    }
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(0);
      try {
        long done = 0;
        while (done < count) {
          long n =
              NativeIO.pwrite(scratch.capture, fd, src.asSlice(done), count - done, position + done);
          if (n > 0) {
            done += n;
          } else if (n == 0) {
            // A regular file never does this; looping would spin forever.
            throw new IOException(
                path + ": pwrite wrote 0 bytes at offset " + (position + done)
                    + " (" + (count - done) + " bytes left)");
          } else if (n != -Errno.EINTR) {
            throw new NativeIOException(path, "pwrite", position + done, count - done, (int) -n);
          }
        }
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * Reserves disk blocks for the first {@code length} bytes with {@code fallocate(fd, 0, 0,
   * length)}, and extends the file to {@code length} if it is shorter (new bytes read as zeros).
   * Later writes into the range need no block allocation and cannot fail with ENOSPC. Unlike
   * {@code posix_fallocate}, there is no fallback that writes zeros: a file system without
   * fallocate (some network and FUSE file systems) fails with EOPNOTSUPP. A length of 0 does
   * nothing.
   *
   * @throws NativeIOException if the kernel refuses, e.g. ENOSPC or EOPNOTSUPP
   * @throws ClosedFileException if the file is closed
   */
  public void preallocate(long length) throws IOException {
    if (length < 0) {
      throw new IllegalArgumentException(path + ": invalid preallocation length " + length);
    }
    if (length == 0) {
      return;
    }
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(0);
      try {
        int err;
        while ((err = NativeIO.fallocate(scratch.capture, fd, 0, 0, length)) == Errno.EINTR) {}
        if (err != 0) {
          throw new NativeIOException(path, "fallocate", 0, length, err);
        }
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * Sets the file's size with {@code ftruncate}: bytes beyond {@code length} are dropped; a file
   * extended this way is sparse (no blocks are reserved, new bytes read as zeros).
   *
   * @throws NativeIOException if the kernel refuses
   * @throws ClosedFileException if the file is closed
   */
  public void setLength(long length) throws IOException {
    if (length < 0) {
      throw new IllegalArgumentException(path + ": invalid length " + length);
    }
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(0);
      try {
        int err;
        while ((err = NativeIO.ftruncate(scratch.capture, fd, length)) == Errno.EINTR) {}
        if (err != 0) {
          throw new NativeIOException(
              path, "ftruncate to " + length + " bytes", NativeIOException.NO_OFFSET, -1, err);
        }
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * {@code fsync}: returns once the file's data and metadata are on stable storage.
   *
   * @throws NativeIOException if the kernel reports a failure (e.g. EIO from an earlier write)
   * @throws ClosedFileException if the file is closed
   */
  public void sync() throws IOException {
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(0);
      try {
        int err;
        while ((err = NativeIO.fsync(scratch.capture, fd)) == Errno.EINTR) {}
        if (err != 0) {
          throw new NativeIOException(path, "fsync", NativeIOException.NO_OFFSET, -1, err);
        }
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  private int enter() {
    int cell = guard.enter();
    if (cell < 0) {
      throw new ClosedFileException(path);
    }
    return cell;
  }

  /**
   * Closes the descriptor once calls in flight have finished. Later calls throw {@link
   * ClosedFileException}; calling this again does nothing.
   */
  @Override
  public void close() throws IOException {
    if (guard.close()) {
      NativeIO.close(fd, path);
    }
  }

  @Override
  public String toString() {
    return "NativeOutputFile(" + path + (isClosed() ? ", closed)" : ")");
  }
}
