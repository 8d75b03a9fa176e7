package dev.pread.nativeio;

import java.nio.file.Path;

/**
 * Fault-injection seam, for tests only. It lets a test make chosen system calls of the read path
 * fail (or, for {@code pread}, return fewer bytes than asked), so that the real retry and error
 * paths run. Nothing in production sets {@link #injector}: then each guarded call costs one read
 * of a static field that is null.
 *
 * <p>Consulted before: {@code open} and {@code statx} in {@link NativeIO#open}/{@link
 * NativeIO#fstat} (inside their EINTR loops), every {@code pread} of {@link NativeFile}'s read
 * loop, {@code posix_fadvise} in {@link NativeFile#advise}, and {@code close} in {@link
 * NativeIO#close}.
 *
 * <p>Package-private; tests reach it through a bridge class in the test sources.
 */
final class Faults {
  /** The calls a fault can be injected into. */
  enum Call {
    OPEN,
    STATX,
    PREAD,
    CLOSE,
    ADVISE
  }

  /** Decides the fate of one call. Implementations must be thread-safe. */
  interface Injector {
    /**
     * Called before {@code call} is made for {@code path}.
     *
     * @param offset the file offset of a {@code pread} or {@code posix_fadvise}, else -1
     * @param count the bytes a {@code pread} asks for or a {@code posix_fadvise} covers, else 0
     * @param direct true for a {@code pread} of a file opened with {@code O_DIRECT}, else false
     * @return 0 to make the real call unchanged; {@code -errno} to fail the call with that errno
     *     without making it (for {@code close}, the real close is made and then reported as
     *     failed, as Linux releases the descriptor even when close fails); for {@code pread}, a
     *     positive n below {@code count} makes the real call ask for n bytes only (a short read)
     */
    long decide(Call call, Path path, long offset, long count, boolean direct);
  }

  /** The installed injector; null (no faults) unless a test installed one. */
  static volatile Injector injector;

  private Faults() {}

  /** The decision for one call other than a read: 0 (no fault) when no injector is installed. */
  static long before(Call call, Path path, long offset, long count) {
    Injector i = injector;
    return i == null ? 0 : i.decide(call, path, offset, count, false);
  }

  /** The decision for one {@code pread}: 0 (no fault) when no injector is installed. */
  static long beforeRead(Path path, long offset, long count, boolean direct) {
    Injector i = injector;
    return i == null ? 0 : i.decide(Call.PREAD, path, offset, count, direct);
  }
}
