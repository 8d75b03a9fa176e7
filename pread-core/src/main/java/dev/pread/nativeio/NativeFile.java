package dev.pread.nativeio;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A regular file opened read-only, read with positional {@code pread(2)}.
 *
 * <p><b>Thread-safety:</b> every method may be called from any number of threads at once. Reads
 * take no lock and write no memory shared with reads of other threads (see {@link ReadGuard}).
 * Reads are not interruptible: {@link Thread#interrupt()} neither aborts a read nor closes the
 * file.
 *
 * <p><b>Close:</b> {@link #close()} waits until reads in flight have finished, then closes the
 * descriptor exactly once. A read that starts after close begins throws {@link
 * ClosedFileException} without touching the descriptor, so a read can never reach a descriptor
 * number the kernel has since given to another file. Closing twice is harmless.
 *
 * <p><b>Errors:</b> EINTR and short reads are retried; a read that reaches end of file early
 * throws {@link EOFException}; any other failure throws {@link NativeIOException} naming the path,
 * the offset and errno.
 *
 * <p><b>O_DIRECT:</b> a read of a file opened with {@link #openDirect} never continues at an
 * unaligned offset: kernels whose direct I/O checks alignment before end of file fail such a read
 * with EINVAL even where it would return 0. A short direct read is end of file where it ends at or
 * beyond the file's size at open, or at an offset that is not a multiple of the direct-I/O
 * alignment (the file has shrunk and ends there); otherwise the rest is read.
 */
public final class NativeFile implements Closeable {
  private final Path path;
  private final int fd;
  private final long size;
  private final boolean direct;
  /** The offset alignment direct reads keep to: the kernel's, and at least 4096. */
  private final long directAlign;
  private final NativeIO.Stat stat;
  private final ReadGuard guard = new ReadGuard();
  /** True while reads drop the pages they bring into the page cache ({@link #dropBehind()}). */
  private volatile boolean dropBehind;

  private static final System.Logger LOG = System.getLogger(NativeFile.class.getName());
  private static final java.util.concurrent.atomic.AtomicBoolean DROP_BEHIND_REFUSED_LOGGED =
      new java.util.concurrent.atomic.AtomicBoolean();

  private NativeFile(Path path, int fd, NativeIO.Stat stat, boolean direct) {
    this.path = path;
    this.fd = fd;
    this.size = stat.size();
    this.stat = stat;
    this.direct = direct;
    this.directAlign = Math.max(4096, stat.directOffsetAlignment());
  }

  /**
   * From now on, reads through this descriptor leave no page of their own in the page cache: the
   * pages the kernel reads for them are dropped once copied ({@code preadv2} with {@code
   * RWF_DONTCACHE}), and pages they find cached stay, as cached as before. For reads that should
   * not evict what other readers keep there, such as a merge's. Where the kernel or file system
   * cannot (Linux before 6.14, or a file system without it: EOPNOTSUPP), or the C library has no
   * {@code preadv2}, reads go on as plain {@code pread} after one log line per JVM; {@link
   * #isDropBehind()} then turns false. Vectored reads ({@link #readInto}) are not affected.
   *
   * @throws IllegalStateException if this file was opened with {@code O_DIRECT}, whose reads never
   *     use the page cache
   */
  public void dropBehind() {
    if (direct) {
      throw new IllegalStateException(path + ": opened with O_DIRECT, its reads bypass the page cache already");
    }
    dropBehind = true;
  }

  /** True while reads drop the pages they bring in (see {@link #dropBehind()}). */
  public boolean isDropBehind() {
    return dropBehind;
  }

  /** Most segments one {@link #readInto} call accepts. */
  public static final int MAX_VECTOR = (int) (NativeIO.AUX_SIZE / NativeIO.IOVEC_SIZE);

  /**
   * Opens {@code path} read-only with close-on-exec.
   *
   * @param path a path of the default file system
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws FileSystemException if it is a directory or not a regular file
   * @throws UnsupportedOperationException if {@link NativeAccess#isAvailable()} is false
   */
  public static NativeFile open(Path path) throws IOException {
    return open(path, false);
  }

  /**
   * Opens {@code path} read-only with {@code O_DIRECT}: reads bypass the page cache. Every read's
   * position, length and (native) destination address must then be aligned to the file system's
   * logical block size, or the kernel fails it with EINVAL; file systems without O_DIRECT (tmpfs)
   * refuse the open with EINVAL.
   *
   * @see #open(Path)
   */
  public static NativeFile openDirect(Path path) throws IOException {
    return open(path, true);
  }

  /**
   * Opens the file this one has open once more, with or without {@code O_DIRECT}, through {@code
   * /proc/self/fd}: it reaches the same file after its path was deleted, renamed or replaced. The
   * new file names this one's path in its messages and is closed independently.
   *
   * @throws ClosedFileException if this file is closed
   * @throws IOException naming this file's path if the open fails (EINVAL for O_DIRECT on a file
   *     system that refuses it)
   */
  public NativeFile reopen(boolean direct) throws IOException {
    int cell = enter(); // this descriptor cannot be closed, and its number reused, meanwhile
    try {
      int flags = NativeIO.O_RDONLY | NativeIO.O_CLOEXEC | (direct ? NativeIO.O_DIRECT : 0);
      int newFd = NativeIO.open(Path.of("/proc/self/fd/" + fd), flags, path);
      return wrap(path, newFd, direct);
    } finally {
      guard.exit(cell);
    }
  }

  private static NativeFile open(Path path, boolean direct) throws IOException {
    NativeAccess.ensureAvailable();
    Objects.requireNonNull(path, "path");
    if (path.getFileSystem() != FileSystems.getDefault()) {
      throw new IllegalArgumentException(
          "not a path of the default file system (unwrap it first): " + path);
    }
    Path absolute = path.toAbsolutePath();
    int flags = NativeIO.O_RDONLY | NativeIO.O_CLOEXEC | (direct ? NativeIO.O_DIRECT : 0);
    return wrap(absolute, NativeIO.open(absolute, flags), direct);
  }

  /** A NativeFile over the open descriptor {@code fd} of {@code absolute}; closes it on failure. */
  private static NativeFile wrap(Path absolute, int fd, boolean direct) throws IOException {
    boolean success = false;
    try {
      NativeIO.Stat stat = NativeIO.fstat(fd, absolute);
      if (stat.isDirectory()) {
        throw new FileSystemException(
            absolute.toString(), null, "is a directory (EISDIR), cannot be read as a file");
      }
      if (!stat.isRegularFile()) {
        throw new FileSystemException(
            absolute.toString(),
            null,
            "not a regular file (mode " + Integer.toOctalString(stat.mode()) + ")");
      }
      NativeFile file = new NativeFile(absolute, fd, stat, direct);
      success = true;
      return file;
    } finally {
      if (!success) {
        try {
          NativeIO.close(fd, absolute);
        } catch (IOException | RuntimeException suppressed) {
          // the first failure is the one to report
        }
      }
    }
  }

  /** The absolute path this file was opened with. */
  public Path path() {
    return path;
  }

  /** The file's size when it was opened. */
  public long size() {
    return size;
  }

  /**
   * The device and inode of the open file, which together identify it while it is open (an inode
   * number may be reused once the file is deleted and no longer open). The inode is -1 where the
   * file system does not report one.
   */
  public long device() {
    return stat.device();
  }

  /** See {@link #device()}. */
  public long inode() {
    return stat.inode();
  }

  /**
   * The alignment {@code O_DIRECT} reads of this file need of their file offset and length (from
   * {@code statx}'s {@code STATX_DIOALIGN}, Linux 6.1+), or 0 where the kernel does not say, or the
   * file system does not support direct I/O for this file.
   */
  public int directOffsetAlignment() {
    return stat.directOffsetAlignment();
  }

  /** The alignment {@code O_DIRECT} reads need of their memory; see {@link #directOffsetAlignment()}. */
  public int directMemoryAlignment() {
    return stat.directMemoryAlignment();
  }

  /** True when opened with {@link #openDirect(Path)}. */
  public boolean isDirect() {
    return direct;
  }

  /** True once {@link #close()} has begun. */
  public boolean isClosed() {
    return guard.isClosed();
  }

  /**
   * Reads exactly {@code length} bytes at {@code position} into {@code dst[offset..]}.
   *
   * @throws EOFException if the file ends before {@code position + length}
   * @throws ClosedFileException if the file is closed
   */
  public void read(long position, byte[] dst, int offset, int length) throws IOException {
    readAtLeast(position, dst, offset, length, length);
  }

  /**
   * Reads at least {@code minLength} and at most {@code maxLength} bytes at {@code position} into
   * {@code dst[offset..]}, stopping before {@code maxLength} only at end of file. A buffered reader
   * asks for more than it needs; if the file has shrunk since it was opened, the bytes that still
   * exist are returned rather than an error.
   *
   * @return the number of bytes read, at least {@code minLength}
   * @throws IllegalArgumentException if {@code minLength > maxLength}
   * @throws EOFException if the file ends before {@code position + minLength}
   * @throws ClosedFileException if the file is closed
   */
  public int readAtLeast(long position, byte[] dst, int offset, int minLength, int maxLength)
      throws IOException {
    Objects.checkFromIndexSize(offset, maxLength, dst.length);
    if (minLength < 0 || minLength > maxLength) {
      throw new IllegalArgumentException(
          path + ": invalid read lengths min=" + minLength + " max=" + maxLength);
    }
    checkPosition(position, maxLength);
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(maxLength);
      try {
        int total = 0;
        while (total < maxLength) {
          int chunk = Math.min(maxLength - total, scratch.capacity());
          int chunkMin = Math.min(chunk, Math.max(0, minLength - total));
          int got = (int) readUpTo(scratch, scratch.data, chunkMin, chunk, position + total);
          MemorySegment.copy(scratch.data, ValueLayout.JAVA_BYTE, 0, dst, offset + total, got);
          total += got;
          if (got < chunk) {
            break; // end of file, after minLength
          }
        }
        return total;
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * Reads exactly {@code dst.byteSize()} bytes at {@code position} into the native segment {@code
   * dst}, with no intermediate copy.
   *
   * @throws IllegalArgumentException if {@code dst} is not native memory
   * @throws EOFException if the file ends before {@code position + dst.byteSize()}
   * @throws ClosedFileException if the file is closed
   */
  public void read(long position, MemorySegment dst) throws IOException {
    if (!dst.isNative()) {
      throw new IllegalArgumentException("destination is not native memory: " + dst);
    }
    checkPosition(position, dst.byteSize());
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(0);
      try {
        readUpTo(scratch, dst, dst.byteSize(), dst.byteSize(), position);
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * Reads the bytes at {@code position} into the native segments {@code dsts[0..count)} one after
   * another, as if they were one buffer, with a single vectored {@code preadv(2)} where the kernel
   * returns everything at once. Stops early only at end of file. On a file opened with {@link
   * #openDirect}, position and every segment's address and length must be aligned, and end of file
   * is where a short read ends at or beyond the file's size at open, or unaligned.
   *
   * @return the number of bytes read: the segments' total, or fewer at end of file
   * @throws IllegalArgumentException if count is not in 1..{@value #MAX_VECTOR} or a segment is
   *     not native memory
   * @throws ClosedFileException if the file is closed
   */
  public long readInto(long position, MemorySegment[] dsts, int count) throws IOException {
    if (count < 1 || count > MAX_VECTOR || count > dsts.length) {
      throw new IllegalArgumentException(path + ": invalid segment count " + count);
    }
    long total = 0;
    for (int i = 0; i < count; i++) {
      if (!dsts[i].isNative()) {
        throw new IllegalArgumentException("destination is not native memory: " + dsts[i]);
      }
      total += dsts[i].byteSize();
    }
    checkPosition(position, total);
    int cell = enter();
    try {
      NativeBuffers.Scratch scratch = NativeBuffers.borrow(1);
      try {
        long done = 0;
        while (done < total) {
          int iovcnt = fillIovecs(scratch.aux, dsts, count, done);
          long want = total - done;
          long fault = Faults.beforeRead(path, position + done, want, direct);
          long n;
          if (fault < 0) {
            n = fault;
          } else if (fault > 0 && fault < want && shortReadLength(fault, segmentAt(dsts, count, done).byteSize()) > 0) {
            // a test asks for a short read: read only the first fault bytes, through pread
            MemorySegment first = segmentAt(dsts, count, done);
            n = NativeIO.pread(scratch.capture, fd, first, shortReadLength(fault, first.byteSize()), position + done);
          } else {
            n = NativeIO.preadv(scratch.capture, fd, scratch.aux, iovcnt, position + done);
          }
          if (n > 0) {
            done += n;
            if (direct && done < total && !directMayContinue(position + done)) {
              return done; // end of file
            }
          } else if (n == 0) {
            return done; // end of file
          } else if (n != -Errno.EINTR) {
            throw new NativeIOException(path, direct ? "preadv (O_DIRECT)" : "preadv", position + done, want, (int) -n);
          }
        }
        return done;
      } finally {
        NativeBuffers.release(scratch);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * The length of an injected short read of at most {@code limit} bytes: at most {@code fault}
   * bytes, and on an O_DIRECT file a whole number of alignment units (as the kernel's own short
   * reads are, short of end of file), since an unaligned O_DIRECT read fails with EINVAL. 0 for no
   * short read.
   */
  private long shortReadLength(long fault, long limit) {
    long n = Math.min(fault, limit);
    if (direct) {
      n -= n % directAlign;
    }
    return n;
  }

  /**
   * Whether a direct read that came back short, ending at {@code end}, may go on there: only at an
   * aligned offset before the file's size at open. A short read that ends at or beyond that size
   * is end of file, and so is one that ends unaligned (the file has shrunk and ends there), and
   * the next read there would be unaligned.
   */
  private boolean directMayContinue(long end) {
    return end < size && end % directAlign == 0;
  }

  /** Writes iovecs for the bytes of {@code dsts} from {@code skip} on; returns how many. */
  private static int fillIovecs(MemorySegment iov, MemorySegment[] dsts, int count, long skip) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      long size = dsts[i].byteSize();
      if (skip >= size) {
        skip -= size;
        continue;
      }
      long base = NativeIO.IOVEC_SIZE * n++;
      iov.set(ValueLayout.ADDRESS, base, dsts[i].asSlice(skip));
      iov.set(ValueLayout.JAVA_LONG, base + 8, size - skip);
      skip = 0;
    }
    return n;
  }

  /** The rest of the segment holding byte {@code skip} of {@code dsts}. */
  private static MemorySegment segmentAt(MemorySegment[] dsts, int count, long skip) {
    for (int i = 0; i < count; i++) {
      if (skip < dsts[i].byteSize()) {
        return dsts[i].asSlice(skip);
      }
      skip -= dsts[i].byteSize();
    }
    throw new AssertionError("offset beyond the segments");
  }

  /**
   * {@code posix_fadvise(fd, offset, length, advice)}. Advice applies to this open file
   * description only (other opens of the same file are not affected), except WILLNEED and DONTNEED,
   * which act on the shared page cache. A length of 0 means "to the end of the file".
   *
   * @throws NativeIOException if the kernel refuses the advice
   * @throws ClosedFileException if the file is closed
   */
  public void advise(long offset, long length, Advice advice) throws IOException {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          path + ": invalid advice range offset=" + offset + " length=" + length);
    }
    int cell = enter();
    try {
      long fault = Faults.before(Faults.Call.ADVISE, path, offset, length);
      int err = fault < 0 ? (int) -fault : NativeIO.fadvise(fd, offset, length, advice.value);
      if (err != 0) {
        throw new NativeIOException(path, "posix_fadvise(" + advice + ")", offset, length, err);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /**
   * How many pages of {@code [offset, offset + length)} are in the page cache, by {@code
   * cachestat(2)}: starts no I/O, never blocks. Returns -1 where the kernel has no cachestat (before
   * Linux 6.5) or forbids it.
   *
   * @throws ClosedFileException if the file is closed
   */
  public long cachedPages(long offset, long length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          path + ": invalid range offset=" + offset + " length=" + length);
    }
    if (!cachestatSupported) {
      return -1;
    }
    int cell = enter();
    try {
      NativeBuffers.Scratch s = NativeBuffers.borrow(1);
      try {
        long n = NativeIO.cachestat(s.capture, s.aux, fd, offset, length);
        if (n >= 0) {
          return n;
        }
        cachestatSupported = false; // ENOSYS, EPERM (seccomp) or EOPNOTSUPP: stop asking
        return -1;
      } catch (LinkageError e) {
        cachestatSupported = false;
        return -1;
      } finally {
        NativeBuffers.release(s);
      }
    } finally {
      guard.exit(cell);
    }
  }

  /** Cleared once the kernel refuses cachestat; a benign race. */
  private static boolean cachestatSupported = true;

  private void checkPosition(long position, long length) {
    if (position < 0 || position > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          path + ": invalid read position " + position + " (length " + length + ")");
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
   * pread until {@code count} bytes are in {@code buf}, or end of file once at least {@code min}
   * are; retries EINTR and short reads (a direct one only where {@link #directMayContinue}).
   *
   * @return the bytes read: {@code count}, or fewer (at least {@code min}) at end of file
   */
  private long readUpTo(NativeBuffers.Scratch scratch, MemorySegment buf, long min, long count, long position)
      throws IOException {
    MemorySegment capture = scratch.capture;
    long done = 0;
    MemorySegment target = buf;
    while (done < count) {
      long want = count - done;
      // 0 in production; a test may make this pread fail or come back short.
      long fault = Faults.beforeRead(path, position + done, want, direct);
      long ask = fault > 0 && shortReadLength(fault, want) > 0 ? shortReadLength(fault, want) : want;
      long n = fault < 0 ? fault : pread(scratch, target, ask, position + done);
      if (n > 0) {
        done += n;
        target = buf.asSlice(done);
        if (!direct || done == count || directMayContinue(position + done)) {
          continue;
        }
      }
      if (n >= 0) {
        // end of file
        if (done >= min) {
          return done;
        }
        throw new EOFException(
            path
                + ": read past EOF at offset "
                + (position + done)
                + " ("
                + (min - done)
                + " more bytes wanted; size at open was "
                + size
                + ")");
      } else if (n != -Errno.EINTR) {
        throw new NativeIOException(path, "pread", position + done, count - done, (int) -n);
      }
    }
    return done;
  }

  /** One pread, or one that drops the pages it brings in while {@link #dropBehind} holds. */
  private long pread(NativeBuffers.Scratch scratch, MemorySegment buf, long count, long position) {
    if (dropBehind) {
      long n;
      try {
        n = NativeIO.preadDropBehind(scratch.capture, scratch.aux, fd, buf, count, position);
      } catch (LinkageError e) {
        n = -Errno.EOPNOTSUPP;
      }
      if (n != -Errno.EOPNOTSUPP) {
        return n;
      }
      dropBehind = false;
      if (DROP_BEHIND_REFUSED_LOGGED.compareAndSet(false, true)) {
        LOG.log(System.Logger.Level.INFO, "reads that should drop the pages they bring in keep them: the kernel or"
            + " the C library refused preadv2 with RWF_DONTCACHE (Linux 6.14 and later, on file systems that"
            + " support it) for " + path + "; logged once");
      }
    }
    return NativeIO.pread(scratch.capture, fd, buf, count, position);
  }

  /**
   * Closes the descriptor once reads in flight have finished. Later reads throw {@link
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
    return "NativeFile(" + path + (isClosed() ? ", closed)" : ")");
  }
}
