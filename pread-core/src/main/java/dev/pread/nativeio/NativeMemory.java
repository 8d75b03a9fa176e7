package dev.pread.nativeio;

import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Anonymous memory mapped with {@code mmap(2)}, for large buffers that should be backed by
 * transparent huge pages.
 *
 * <p>Memory from {@code malloc} (which {@link Arena#allocate} uses) is zeroed at once, so every page
 * is committed as a 4 KiB page before anyone could ask for huge pages, and large random-access
 * buffers then pay a TLB miss on almost every access. A mapping from here is aligned to 2 MiB and
 * advised {@code MADV_HUGEPAGE} before it is touched; the kernel commits memory only as pages are
 * first written, zero-filled, in 2 MiB pages where it can.
 *
 * <p>Thread-safe: stateless.
 */
public final class NativeMemory {
  /** The huge page size on x86_64 and aarch64 with 4 KiB pages. */
  public static final long HUGE_PAGE = 2L << 20;

  private static final Path ANONYMOUS = Path.of("[anonymous memory]");

  /** Mappings made and not yet unmapped (for tests: a mapping nobody will unmap shows here). */
  private static final AtomicLong LIVE = new AtomicLong();

  private NativeMemory() {}

  /**
   * Maps {@code length} bytes of zero-filled memory, 2 MiB-aligned when {@code length} is at least
   * 2 MiB (else page-aligned), advised for huge pages; it is unmapped when {@code arena} closes.
   * Nothing is committed until written. If the kernel refuses the huge-page advice (transparent
   * huge pages disabled), the memory is used with normal pages.
   *
   * @throws UncheckedIOException wrapping a {@link NativeIOException} (e.g. ENOMEM) if mmap fails
   * @throws IllegalStateException if {@code arena} is closed (the memory is unmapped again)
   * @throws UnsupportedOperationException if {@link NativeAccess#isAvailable()} is false
   */
  public static MemorySegment mapAnonymous(long length, Arena arena) {
    NativeAccess.ensureAvailable();
    if (length <= 0) {
      throw new IllegalArgumentException("length must be positive (got " + length + ")");
    }
    boolean huge = length >= HUGE_PAGE;
    long mapped = huge ? length + HUGE_PAGE : length;
    try (Arena call = Arena.ofConfined()) {
      MemorySegment capture = NativeIO.allocateCapture(call);
      long base = NativeIO.mmapAnonymous(capture, mapped);
      if (base < 0) {
        throw new UncheckedIOException(
            new NativeIOException(ANONYMOUS, "mmap", NativeIOException.NO_OFFSET, -1, (int) -base));
      }
      LIVE.incrementAndGet();
      boolean registered = false;
      try {
        long start = huge ? (base + HUGE_PAGE - 1) & -HUGE_PAGE : base;
        if (huge) {
          NativeIO.madvise(capture, start, length, NativeIO.MADV_HUGEPAGE); // a hint: failure is fine
        }
        MemorySegment segment =
            MemorySegment.ofAddress(start)
                .reinterpret(
                    length,
                    arena,
                    s -> {
                      try (Arena unmap = Arena.ofConfined()) {
                        unmap(NativeIO.allocateCapture(unmap), base, mapped);
                      }
                    });
        registered = true;
        return segment;
      } finally {
        if (!registered) {
          // The arena refused the cleanup (it is closed, or closing): nobody else will unmap this.
          unmap(capture, base, mapped);
        }
      }
    }
  }

  /**
   * Gives the memory of {@code segment}, a part of a mapping made by {@link #mapAnonymous} whose
   * start and size are multiples of the page size, back to the kernel ({@code
   * MADV_DONTNEED}): the mapping stays, and reads from it then see zeros until it is written again,
   * which commits memory anew. Readers racing with this read zeros, never unmapped memory.
   *
   * @throws IllegalArgumentException if the segment is not page-aligned
   * @throws java.io.UncheckedIOException if the kernel refuses, naming the errno
   */
  public static void discard(MemorySegment segment) {
    NativeAccess.ensureAvailable();
    if ((segment.address() & 4095) != 0 || (segment.byteSize() & 4095) != 0) {
      throw new IllegalArgumentException("discard needs a page-aligned segment (address " + segment.address()
          + ", size " + segment.byteSize() + ")");
    }
    try (Arena call = Arena.ofConfined()) {
      MemorySegment capture = NativeIO.allocateCapture(call);
      int rc = NativeIO.madvise(capture, segment.address(), segment.byteSize(), NativeIO.MADV_DONTNEED);
      if (rc != 0) {
        throw new UncheckedIOException(
            new NativeIOException(ANONYMOUS, "madvise(MADV_DONTNEED)", NativeIOException.NO_OFFSET, -1, -rc));
      }
    }
  }

  private static void unmap(MemorySegment capture, long base, long length) {
    NativeIO.munmap(capture, base, length);
    LIVE.decrementAndGet();
  }

  /** Mappings made by {@link #mapAnonymous} and not yet unmapped. */
  static long liveMappings() {
    return LIVE.get();
  }
}
