package dev.pread.nativeio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Read-only memory mappings of whole files, and {@code madvise(2)} advice on them.
 *
 * <p>A mapping is made with {@link FileChannel#map(FileChannel.MapMode, long, long, Arena)}; the
 * channel is closed at once (the mapping does not need it) and the mapping lives until its arena
 * closes. Advice is a hint: failures are reported as {@code false}, never thrown.
 *
 * <p>Thread-safe: stateless.
 */
public final class MappedFiles {
  /** The page size mappings are aligned to for advice. */
  public static final long PAGE = 4096;

  /** The span of a huge page-cache folio, and the alignment of the reads of {@link #populate}. */
  public static final long HUGE = 2L << 20;

  private static final boolean HUGE_FAULTS = kernelAtLeast(System.getProperty("os.version", ""), 5, 18);

  private MappedFiles() {}

  /**
   * True if this kernel reads a faulting page of a mapping advised {@link MapAdvice#HUGEPAGE} as
   * part of one aligned 2 MiB folio (Linux 5.18 and later). Older kernels ignore the advice for
   * files, and a mapping advised {@link MapAdvice#RANDOM} as well would then read page by page.
   */
  public static boolean hugeFaults() {
    return HUGE_FAULTS && NativeAccess.isAvailable();
  }

  /** True if a Linux release string such as {@code 6.18.4-generic} is at least {@code major.minor}. */
  static boolean kernelAtLeast(String release, int major, int minor) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)").matcher(release);
    if (!m.find()) {
      return false;
    }
    try {
      int a = Integer.parseInt(m.group(1));
      int b = Integer.parseInt(m.group(2));
      return a > major || (a == major && b >= minor);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** What {@link #advise} can ask of the kernel. */
  public enum MapAdvice {
    /** The kernel's default: readahead around faults. */
    NORMAL(NativeIO.MADV_NORMAL),
    /** No readahead: a fault reads the faulting page only. */
    RANDOM(NativeIO.MADV_RANDOM),
    /** Start reading the range into the page cache without waiting. */
    WILLNEED(NativeIO.MADV_WILLNEED),
    /**
     * Large folios: a fault that reads from storage reads the aligned 2 MiB around it into one
     * page-cache folio (Linux 5.18 and later, with transparent huge pages built in; see {@link
     * #hugeFaults}), which a mapping can then map with one page-table entry.
     */
    HUGEPAGE(NativeIO.MADV_HUGEPAGE);

    final int value;

    MapAdvice(int value) {
      this.value = value;
    }
  }

  /**
   * Maps the first {@code size} bytes of {@code path} read-only into {@code arena}.
   *
   * @throws IOException naming the path if the file cannot be opened or mapped
   */
  public static MemorySegment map(Path path, long size, Arena arena) throws IOException {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      return channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
    }
  }

  /**
   * Advises the pages of {@code mapping} that hold bytes {@code [offset, offset + length)}.
   *
   * @return true if the kernel took the advice; false if it refused, the range is empty, native
   *     access is off, or the mapping was closed
   */
  public static boolean advise(MemorySegment mapping, long offset, long length, MapAdvice advice) {
    if (length <= 0 || !NativeAccess.isAvailable() || !mapping.scope().isAlive()) {
      return false;
    }
    long address = mapping.address() + offset;
    long start = address & -PAGE;
    long end = address + length;
    try (Arena call = Arena.ofConfined()) {
      return NativeIO.madvise(NativeIO.allocateCapture(call), start, end - start, advice.value) == 0;
    }
  }

  /**
   * Reads the pages of {@code mapping} that hold bytes {@code [offset, offset + length)} into the
   * page cache and maps them ({@code MADV_POPULATE_READ}, Linux 5.14 and later), waiting for the
   * reads. How much a fault reads around a missing page follows the mapping's advice.
   *
   * @param path the mapped file, named in errors
   * @return true once the pages are cached; false if the kernel does not know the call or refuses
   *     it for this mapping ({@code EINVAL}), or native access is off
   * @throws IOException naming the path, the range and errno if a read fails, or the range lies
   *     past the file's end (the file shrank): {@code EFAULT}
   * @throws IllegalStateException if the mapping's arena was closed
   */
  public static boolean populate(MemorySegment mapping, Path path, long offset, long length) throws IOException {
    if (!NativeAccess.isAvailable()) {
      return false;
    }
    java.util.Objects.checkFromIndexSize(offset, length, mapping.byteSize());
    if (length == 0) {
      return true;
    }
    if (!mapping.scope().isAlive()) {
      throw new IllegalStateException("the mapping of " + path + " was closed");
    }
    long address = mapping.address() + offset;
    long start = address & -PAGE;
    long end = address + length;
    try (Arena call = Arena.ofConfined()) {
      MemorySegment capture = NativeIO.allocateCapture(call);
      while (true) {
        int rc = NativeIO.madvise(capture, start, end - start, NativeIO.MADV_POPULATE_READ);
        if (rc == 0) {
          return true;
        }
        if (rc == -Errno.EINVAL) {
          return false;
        }
        if (rc != -Errno.EINTR && rc != -Errno.EAGAIN) {
          throw new NativeIOException(path, "madvise(MADV_POPULATE_READ)", offset, length, -rc);
        }
      }
    }
  }
}
