package dev.pread.nativeio;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The FFM bindings: the only class of this project that touches {@link Linker}. Each method is a
 * thin wrapper over one C library call; retry loops, lifetime and buffers live elsewhere.
 *
 * <p>Loading this class links the read-side downcalls, which are restricted methods: callers check
 * {@link NativeAccess#isAvailable()} first. The write-side calls ({@code open} with a mode, {@code
 * pwrite}, {@code fallocate}, {@code ftruncate}, {@code fsync}) are linked on first use, by {@link
 * #linkWrites()}, so that they cannot make the read path unavailable. Thread-safe: stateless.
 *
 * <p>{@link #open}, {@link #fstat} and {@link #close} ask {@link Faults} before each call, so that
 * tests can make them fail; in production that is one read of a null static field.
 */
final class NativeIO {
  // Flag values for Linux on x86_64 and aarch64 (asm-generic where the two agree).
  static final int O_RDONLY = 0;
  static final int O_WRONLY = 01;
  static final int O_CREAT = 0100;
  static final int O_TRUNC = 01000;
  static final int O_CLOEXEC = 0x80000;
  /** The two platforms whose constants and system call numbers this class knows. */
  private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));
  private static final boolean X86_64 =
      "amd64".equals(System.getProperty("os.arch")) || "x86_64".equals(System.getProperty("os.arch"));

  /** O_DIRECT differs: 040000 on x86_64, 0200000 on aarch64. */
  static final int O_DIRECT = AARCH64 ? 0x10000 : 0x4000;



  static final int POSIX_FADV_NORMAL = 0;
  static final int POSIX_FADV_RANDOM = 1;
  static final int POSIX_FADV_SEQUENTIAL = 2;
  static final int POSIX_FADV_WILLNEED = 3;
  static final int POSIX_FADV_DONTNEED = 4;

  private static final int AT_EMPTY_PATH = 0x1000;
  private static final int STATX_TYPE = 0x1;
  private static final int STATX_MODE = 0x2;
  private static final int STATX_SIZE = 0x200;
  private static final int STATX_INO = 0x100;
  private static final int STATX_DIOALIGN = 0x2000;
  /** struct statx is 256 bytes with the same layout on every architecture. */
  private static final long STATX_SIZEOF = 256;
  private static final long STX_MASK_OFFSET = 0;
  private static final long STX_BLKSIZE_OFFSET = 4;
  private static final long STX_MODE_OFFSET = 28;
  private static final long STX_INO_OFFSET = 32;
  private static final long STX_SIZE_OFFSET = 40;
  private static final long STX_DEV_MAJOR_OFFSET = 136;
  private static final long STX_DEV_MINOR_OFFSET = 140;
  private static final long STX_DIO_MEM_ALIGN_OFFSET = 152;
  private static final long STX_DIO_OFFSET_ALIGN_OFFSET = 156;

  /** Bytes of one {@code struct iovec}: a base pointer and a length. */
  static final long IOVEC_SIZE = 16;

  static final int S_IFMT = 0170000;
  static final int S_IFDIR = 0040000;
  static final int S_IFREG = 0100000;

  private static final long NO_OFFSET = NativeIOException.NO_OFFSET;

  private static final Linker LINKER = Linker.nativeLinker();
  private static final SymbolLookup LIBC = LINKER.defaultLookup();
  private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
  private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO =
      CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

  /** Bytes a caller must provide for the errno capture segment of {@link #pread}. */
  static final long CAPTURE_SIZE = CAPTURE_LAYOUT.byteSize();

  /** Alignment of the errno capture segment. */
  static final long CAPTURE_ALIGNMENT = CAPTURE_LAYOUT.byteAlignment();

  private static final MethodHandle OPEN =
      downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
  private static final MethodHandle CLOSE =
      downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), CAPTURE_ERRNO);
  private static final MethodHandle PREAD =
      downcall(
          "pread",
          FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG),
          CAPTURE_ERRNO);
  private static final MethodHandle PREADV =
      downcall(
          "preadv",
          FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG),
          CAPTURE_ERRNO);
  private static final MethodHandle STATX =
      downcall(
          "statx",
          FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS),
          CAPTURE_ERRNO);
  private static final MethodHandle POSIX_FADVISE =
      downcall(
          "posix_fadvise", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
  private static final MethodHandle STRERROR =
      downcall("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

  /**
   * Anonymous memory calls ({@code mmap}, {@code munmap}, {@code madvise}) for the block cache,
   * linked on first use like {@link WriteCalls}.
   */
  private static final class MemoryCalls {
    static final MethodHandle MMAP =
        downcallCapturingErrno(
            "mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    static final MethodHandle MUNMAP =
        downcallCapturingErrno("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle MADVISE =
        downcallCapturingErrno("madvise", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));

    private MemoryCalls() {}
  }

  static final int PROT_READ_WRITE = 0x1 | 0x2;
  static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
  static final int MADV_NORMAL = 0;
  static final int MADV_RANDOM = 1;
  static final int MADV_WILLNEED = 3;
  static final int MADV_DONTNEED = 4;
  static final int MADV_HUGEPAGE = 14;

  /**
   * {@code mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)}.
   *
   * @return the address, or {@code -errno} on failure
   */
  static long mmapAnonymous(MemorySegment capture, long length) {
    try {
      MemorySegment p =
          (MemorySegment)
              MemoryCalls.MMAP.invokeExact(
                  capture, MemorySegment.NULL, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
      return p.address() == -1L ? -errno(capture) : p.address();
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** {@code munmap(address, length)}: 0, or {@code -errno}. */
  static int munmap(MemorySegment capture, long address, long length) {
    try {
      int rc = (int) MemoryCalls.MUNMAP.invokeExact(capture, MemorySegment.ofAddress(address), length);
      return rc == 0 ? 0 : -errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** {@code madvise(address, length, advice)}: 0, or {@code -errno}. */
  static int madvise(MemorySegment capture, long address, long length, int advice) {
    try {
      int rc = (int) MemoryCalls.MADVISE.invokeExact(capture, MemorySegment.ofAddress(address), length, advice);
      return rc == 0 ? 0 : -errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * The write-side downcalls, linked when this holder is first used. It builds its handles through
   * {@link #downcallCapturingErrno} and {@link #downcallVariadicCapturingErrno}, so {@link Linker}
   * is still touched only by {@code NativeIO}'s own methods.
   */
  private static final class WriteCalls {
    /** {@code int open(const char *path, int flags, ...)}: the mode is the first variadic argument. */
    static final MethodHandle OPEN_WITH_MODE =
        downcallVariadicCapturingErrno(
            "open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), 2);
    static final MethodHandle PWRITE =
        downcallCapturingErrno(
            "pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    static final MethodHandle FALLOCATE =
        downcallCapturingErrno(
            "fallocate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG));
    static final MethodHandle FTRUNCATE =
        downcallCapturingErrno("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    static final MethodHandle FSYNC =
        downcallCapturingErrno("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private WriteCalls() {}

    static void link() {}
  }

  /**
   * {@code cachestat(2)} (Linux 6.5+) through {@code long syscall(long number, ...)}: glibc has no
   * wrapper yet. Linked on first use, so a missing symbol cannot switch off the read path.
   */
  private static final class CacheStatCall {
    /** The system call number, the same on x86_64 and aarch64 (the generic table). */
    static final long SYS_CACHESTAT = 451;

    static final MethodHandle SYSCALL =
        downcallVariadicCapturingErrno(
            "syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG),
            1);

    private CacheStatCall() {}
  }

  /**
   * A thread's priorities through {@code long syscall(long number, ...)} with three arguments:
   * {@code ioprio_get(2)} and {@code ioprio_set(2)}, which glibc does not wrap, and {@code
   * getpriority(2)} and {@code setpriority(2)}, whose raw {@code getpriority} returns {@code 20 -
   * nice}, never negative, so that -1 means an error (the C library's wrapper returns the nice
   * value, of which -1 is one). Linked on first use; the numbers are known for x86_64 and aarch64
   * only.
   */
  private static final class ThreadCalls {
    static final long SYS_IOPRIO_GET = X86_64 ? 252 : AARCH64 ? 31 : -1;
    static final long SYS_IOPRIO_SET = X86_64 ? 251 : AARCH64 ? 30 : -1;
    static final long SYS_GETPRIORITY = X86_64 ? 140 : AARCH64 ? 141 : -1;
    static final long SYS_SETPRIORITY = X86_64 ? 141 : AARCH64 ? 140 : -1;

    static final MethodHandle SYSCALL =
        downcall(
            "syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));

    private ThreadCalls() {}

    /** {@code syscall(number, a, b, c)}; -1 without a call if {@code number} is unknown here. */
    static long call(long number, long a, long b, long c) {
      if (number < 0) {
        return -1;
      }
      try {
        return (long) SYSCALL.invokeExact(number, a, b, c);
      } catch (LinkageError e) {
        throw e;
      } catch (Throwable t) {
        throw new AssertionError(t);
      }
    }
  }

  /** {@code PRIO_PROCESS}: with id 0, the calling thread (on Linux the nice value is a thread's). */
  private static final long PRIO_PROCESS = 0;

  /**
   * The calling thread's nice value ({@code getpriority(PRIO_PROCESS, 0)}), -20 to 19.
   *
   * @return the nice value, or {@link Integer#MIN_VALUE} if the kernel or this platform cannot say
   * @throws LinkageError if the C library has no {@code syscall}
   */
  static int niceGet() {
    long r = ThreadCalls.call(ThreadCalls.SYS_GETPRIORITY, PRIO_PROCESS, 0L, 0L);
    return r < 1 || r > 40 ? Integer.MIN_VALUE : (int) (20 - r);
  }

  /**
   * Sets the calling thread's nice value ({@code setpriority(PRIO_PROCESS, 0, nice)}). Raising it
   * needs no privilege; lowering it needs {@code CAP_SYS_NICE} or a {@code RLIMIT_NICE} that allows it.
   *
   * @return true if the kernel took it
   * @throws LinkageError if the C library has no {@code syscall}
   */
  static boolean niceSet(int nice) {
    return ThreadCalls.call(ThreadCalls.SYS_SETPRIORITY, PRIO_PROCESS, 0L, nice) == 0;
  }

  /** {@code IOPRIO_WHO_PROCESS}: with id 0, the calling thread. */
  private static final long IOPRIO_WHO_PROCESS = 1;

  /**
   * The calling thread's I/O priority ({@code ioprio_get(IOPRIO_WHO_PROCESS, 0)}).
   *
   * @return the priority value, or -1 if the kernel or this platform cannot say
   * @throws LinkageError if the C library has no {@code syscall}
   */
  static int ioprioGet() {
    return (int) ThreadCalls.call(ThreadCalls.SYS_IOPRIO_GET, IOPRIO_WHO_PROCESS, 0L, 0L);
  }

  /**
   * Sets the calling thread's I/O priority ({@code ioprio_set(IOPRIO_WHO_PROCESS, 0, value)}).
   *
   * @return true if the kernel took it
   * @throws LinkageError if the C library has no {@code syscall}
   */
  static boolean ioprioSet(int value) {
    return ThreadCalls.call(ThreadCalls.SYS_IOPRIO_SET, IOPRIO_WHO_PROCESS, 0L, value) == 0;
  }

  /**
   * Bytes of the auxiliary native segment of a {@link NativeBuffers} scratch: a cachestat range and
   * result, or up to 64 iovecs for {@link #preadv}.
   */
  static final long AUX_SIZE = 64 * IOVEC_SIZE;

  /** Paths are passed to the kernel in the JVM's file-name encoding. */
  private static final Charset PATH_CHARSET = pathCharset();

  private NativeIO() {}

  private static MethodHandle downcall(
      String name, FunctionDescriptor descriptor, Linker.Option... options) {
    MemorySegment symbol =
        LIBC.find(name)
            .orElseThrow(() -> new UnsatisfiedLinkError("C library has no symbol " + name));
    return LINKER.downcallHandle(symbol, descriptor, options);
  }

  private static MethodHandle downcallCapturingErrno(String name, FunctionDescriptor descriptor) {
    return downcall(name, descriptor, CAPTURE_ERRNO);
  }

  private static MethodHandle downcallVariadicCapturingErrno(
      String name, FunctionDescriptor descriptor, int firstVariadicArg) {
    return downcall(
        name, descriptor, Linker.Option.firstVariadicArg(firstVariadicArg), CAPTURE_ERRNO);
  }

  private static Charset pathCharset() {
    String name = System.getProperty("sun.jnu.encoding");
    try {
      return name == null ? StandardCharsets.UTF_8 : Charset.forName(name);
    } catch (IllegalArgumentException e) {
      return StandardCharsets.UTF_8;
    }
  }

  /** Forces linking, so that a missing symbol surfaces in {@link NativeAccess}'s check. */
  static void link() {}

  /**
   * Links the write-side calls now.
   *
   * @throws LinkageError if the C library lacks one of them (or native access is refused)
   */
  static void linkWrites() {
    WriteCalls.link();
  }

  /** Allocates an errno capture segment in {@code arena}. */
  static MemorySegment allocateCapture(Arena arena) {
    return arena.allocate(CAPTURE_LAYOUT);
  }

  /** The errno a captured call left in {@code capture}. */
  static int errno(MemorySegment capture) {
    return (int) ERRNO.get(capture, 0L);
  }

  /**
   * {@code open(path, flags)}, retried on EINTR.
   *
   * @return the file descriptor
   * @throws NoSuchFileException on ENOENT, {@link AccessDeniedException} on EACCES/EPERM, {@link
   *     NativeIOException} otherwise; each names the path and errno
   */
  static int open(Path path, int flags) throws IOException {
    return open(path, flags, path);
  }

  /** As {@link #open(Path, int)}, naming {@code shownPath} in errors (and to fault injection). */
  static int open(Path path, int flags, Path shownPath) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment capture = allocateCapture(arena);
      MemorySegment cPath = cString(arena, path);
      while (true) {
        long fault = Faults.before(Faults.Call.OPEN, shownPath, NO_OFFSET, 0);
        int fd = fault < 0 ? -1 : (int) OPEN.invokeExact(capture, cPath, flags);
        if (fd >= 0) {
          return fd;
        }
        int errno = fault < 0 ? (int) -fault : errno(capture);
        if (errno != Errno.EINTR) {
          throw openFailure(shownPath, errno);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * {@code open(path, flags, mode)}, retried on EINTR: the form that may create the file ({@code
   * O_CREAT}). Linked on first use (see {@link #linkWrites()}).
   *
   * @return the file descriptor
   * @throws NoSuchFileException on ENOENT, {@link AccessDeniedException} on EACCES/EPERM, {@link
   *     NativeIOException} otherwise; each names the path and errno
   */
  static int openWithMode(Path path, int flags, int mode) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment capture = allocateCapture(arena);
      MemorySegment cPath = cString(arena, path);
      while (true) {
        int fd = (int) WriteCalls.OPEN_WITH_MODE.invokeExact(capture, cPath, flags, mode);
        if (fd >= 0) {
          return fd;
        }
        int errno = errno(capture);
        if (errno != Errno.EINTR) {
          throw openFailure(path, errno);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  private static IOException openFailure(Path path, int errno) {
    String reason = "open failed: " + NativeIOException.describe(errno);
    return switch (errno) {
      case Errno.ENOENT -> new NoSuchFileException(path.toString(), null, reason);
      case Errno.EACCES, Errno.EPERM -> new AccessDeniedException(path.toString(), null, reason);
      default -> new NativeIOException(path, "open", NativeIOException.NO_OFFSET, -1, errno);
    };
  }

  private static MemorySegment cString(Arena arena, Path path) throws FileSystemException {
    String s = path.toString();
    if (s.indexOf('\0') >= 0) {
      throw new FileSystemException(s, null, "path contains a NUL character");
    }
    byte[] bytes = s.getBytes(PATH_CHARSET);
    MemorySegment seg = arena.allocate(bytes.length + 1L);
    MemorySegment.copy(bytes, 0, seg, ValueLayout.JAVA_BYTE, 0, bytes.length);
    return seg;
  }

  /**
   * File type, mode, size and preferred I/O block size of an open descriptor; its device and inode
   * (which identify the file while it is open); and the alignment {@code O_DIRECT} needs of a
   * read's memory and file offset, 0 where the kernel or file system does not say.
   */
  record Stat(
      int mode,
      long size,
      int blockSize,
      long device,
      long inode,
      int directMemoryAlignment,
      int directOffsetAlignment) {
    boolean isDirectory() {
      return (mode & S_IFMT) == S_IFDIR;
    }

    boolean isRegularFile() {
      return (mode & S_IFMT) == S_IFREG;
    }
  }

  /** {@code statx(fd, "", AT_EMPTY_PATH, ...)}: the attributes of an open file. */
  static Stat fstat(int fd, Path path) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment capture = allocateCapture(arena);
      MemorySegment empty = arena.allocate(1);
      MemorySegment buf = arena.allocate(STATX_SIZEOF, 8);
      int mask = STATX_TYPE | STATX_MODE | STATX_SIZE | STATX_INO | STATX_DIOALIGN;
      while (true) {
        long fault = Faults.before(Faults.Call.STATX, path, NO_OFFSET, 0);
        int rc = fault < 0 ? -1 : (int) STATX.invokeExact(capture, fd, empty, AT_EMPTY_PATH, mask, buf);
        if (rc == 0) {
          break;
        }
        int errno = fault < 0 ? (int) -fault : errno(capture);
        if (errno != Errno.EINTR) {
          throw new NativeIOException(path, "statx", NativeIOException.NO_OFFSET, -1, errno);
        }
      }
      int got = buf.get(ValueLayout.JAVA_INT, STX_MASK_OFFSET);
      if ((got & (STATX_TYPE | STATX_SIZE)) != (STATX_TYPE | STATX_SIZE)) {
        throw new IOException(path + ": statx did not report the file type and size");
      }
      int mode = Short.toUnsignedInt(buf.get(ValueLayout.JAVA_SHORT, STX_MODE_OFFSET));
      long size = buf.get(ValueLayout.JAVA_LONG, STX_SIZE_OFFSET);
      int blockSize = buf.get(ValueLayout.JAVA_INT, STX_BLKSIZE_OFFSET);
      long inode = (got & STATX_INO) != 0 ? buf.get(ValueLayout.JAVA_LONG, STX_INO_OFFSET) : -1;
      long device =
          ((long) buf.get(ValueLayout.JAVA_INT, STX_DEV_MAJOR_OFFSET) << 32)
              | Integer.toUnsignedLong(buf.get(ValueLayout.JAVA_INT, STX_DEV_MINOR_OFFSET));
      boolean dio = (got & STATX_DIOALIGN) != 0;
      int memAlign = dio ? buf.get(ValueLayout.JAVA_INT, STX_DIO_MEM_ALIGN_OFFSET) : 0;
      int offsetAlign = dio ? buf.get(ValueLayout.JAVA_INT, STX_DIO_OFFSET_ALIGN_OFFSET) : 0;
      return new Stat(mode, size, blockSize, device, inode, memAlign, offsetAlign);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * {@code close(fd)}. Not retried on EINTR: Linux releases the descriptor before it reports
   * EINTR, and a retry could close a descriptor another thread has just been given.
   */
  static void close(int fd, Path path) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment capture = allocateCapture(arena);
      long fault = Faults.before(Faults.Call.CLOSE, path, NO_OFFSET, 0);
      int rc = (int) CLOSE.invokeExact(capture, fd);
      if (rc != 0 || fault < 0) {
        int errno = fault < 0 ? (int) -fault : errno(capture);
        if (errno != Errno.EINTR) {
          throw new NativeIOException(path, "close", NativeIOException.NO_OFFSET, -1, errno);
        }
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * One {@code pread(fd, buf, count, offset)} call, not retried.
   *
   * @param capture an errno capture segment of at least {@link #CAPTURE_SIZE} bytes
   * @return the number of bytes read (0 at end of file), or {@code -errno} on failure
   */
  static long pread(MemorySegment capture, int fd, MemorySegment buf, long count, long offset) {
    try {
      long n = (long) PREAD.invokeExact(capture, fd, buf, count, offset);
      return n >= 0 ? n : -errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * One {@code preadv(fd, iov, iovcnt, offset)} call, not retried.
   *
   * @param iov {@code iovcnt} iovec structures ({@link #IOVEC_SIZE} bytes each)
   * @return the number of bytes read (0 at end of file), or {@code -errno} on failure
   */
  static long preadv(MemorySegment capture, int fd, MemorySegment iov, int iovcnt, long offset) {
    try {
      long n = (long) PREADV.invokeExact(capture, fd, iov, iovcnt, offset);
      return n >= 0 ? n : -errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** {@code preadv2}'s flag: pages the read brings into the page cache are dropped once copied. */
  static final int RWF_DONTCACHE = 0x80;

  /** Linked at first use: a C library without {@code preadv2} (glibc before 2.26) fails only there. */
  private static final class DropBehindCall {
    static final MethodHandle PREADV2 =
        downcall(
            "preadv2",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT),
            CAPTURE_ERRNO);

    private DropBehindCall() {}
  }

  /**
   * One {@code preadv2(fd, iov, 1, offset, RWF_DONTCACHE)} of {@code count} bytes into {@code
   * buf}, not retried: pages the kernel reads for it are dropped from the page cache once copied,
   * pages it found cached stay (Linux 6.14 and later, on file systems that support it; others fail
   * it with EOPNOTSUPP).
   *
   * @param iov {@link #IOVEC_SIZE} bytes of scratch memory for the iovec
   * @return the number of bytes read (0 at end of file), or {@code -errno} on failure
   * @throws LinkageError if the C library has no {@code preadv2}
   */
  static long preadDropBehind(MemorySegment capture, MemorySegment iov, int fd, MemorySegment buf, long count,
      long offset) {
    iov.set(ValueLayout.ADDRESS, 0, buf);
    iov.set(JAVA_LONG, 8, count);
    try {
      long n = (long) DropBehindCall.PREADV2.invokeExact(capture, fd, iov, 1, offset, RWF_DONTCACHE);
      return n >= 0 ? n : -errno(capture);
    } catch (LinkageError e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * One {@code pwrite(fd, buf, count, offset)} call, not retried.
   *
   * @param capture an errno capture segment of at least {@link #CAPTURE_SIZE} bytes
   * @return the number of bytes written, or {@code -errno} on failure
   */
  static long pwrite(MemorySegment capture, int fd, MemorySegment buf, long count, long offset) {
    try {
      long n = (long) WriteCalls.PWRITE.invokeExact(capture, fd, buf, count, offset);
      return n >= 0 ? n : -errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * One {@code fallocate(fd, mode, offset, length)} call, not retried.
   *
   * @return 0, or the errno it failed with
   */
  static int fallocate(MemorySegment capture, int fd, int mode, long offset, long length) {
    try {
      int rc = (int) WriteCalls.FALLOCATE.invokeExact(capture, fd, mode, offset, length);
      return rc == 0 ? 0 : errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * One {@code ftruncate(fd, length)} call, not retried.
   *
   * @return 0, or the errno it failed with
   */
  static int ftruncate(MemorySegment capture, int fd, long length) {
    try {
      int rc = (int) WriteCalls.FTRUNCATE.invokeExact(capture, fd, length);
      return rc == 0 ? 0 : errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * One {@code fsync(fd)} call, not retried.
   *
   * @return 0, or the errno it failed with
   */
  static int fsync(MemorySegment capture, int fd) {
    try {
      int rc = (int) WriteCalls.FSYNC.invokeExact(capture, fd);
      return rc == 0 ? 0 : errno(capture);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * {@code cachestat(fd, &{offset, length}, &stat, 0)}: how many pages of the range are in the page
   * cache. Starts no I/O and never blocks. {@code aux} is a native segment of {@link #AUX_SIZE}
   * bytes for the range and the result.
   *
   * @return the number of cached pages, or {@code -errno} (ENOSYS before Linux 6.5)
   * @throws LinkageError if the C library has no {@code syscall}
   */
  static long cachestat(MemorySegment capture, MemorySegment aux, int fd, long offset, long length) {
    aux.set(JAVA_LONG, 0, offset);
    aux.set(JAVA_LONG, 8, length);
    MemorySegment stat = aux.asSlice(16, 40);
    try {
      long rc =
          (long) CacheStatCall.SYSCALL.invokeExact(capture, CacheStatCall.SYS_CACHESTAT, (long) fd, aux, stat, 0L);
      return rc == 0 ? stat.get(JAVA_LONG, 0) : -errno(capture);
    } catch (LinkageError e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /**
   * {@code posix_fadvise(fd, offset, length, advice)}.
   *
   * @return 0, or the error number (posix_fadvise returns it instead of setting errno)
   */
  static int fadvise(int fd, long offset, long length, int advice) {
    try {
      return (int) POSIX_FADVISE.invokeExact(fd, offset, length, advice);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** The C library's text for {@code errno}. */
  static String strerror(int errno) {
    try {
      MemorySegment p = (MemorySegment) STRERROR.invokeExact(errno);
      if (p.equals(MemorySegment.NULL)) {
        return "unknown error";
      }
      return p.reinterpret(1024).getString(0);
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }
}
