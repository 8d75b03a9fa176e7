package dev.pread.nativeio;

/** {@code posix_fadvise} advice values (Linux). */
public enum Advice {
  /** No special treatment: the kernel's default readahead. */
  NORMAL(NativeIO.POSIX_FADV_NORMAL),
  /** Random access: readahead off for this open file description. */
  RANDOM(NativeIO.POSIX_FADV_RANDOM),
  /** Sequential access: readahead window doubled for this open file description. */
  SEQUENTIAL(NativeIO.POSIX_FADV_SEQUENTIAL),
  /** Start reading the range into the page cache now, without waiting. */
  WILLNEED(NativeIO.POSIX_FADV_WILLNEED),
  /** Drop the range's clean pages from the page cache. */
  DONTNEED(NativeIO.POSIX_FADV_DONTNEED);

  final int value;

  Advice(int value) {
    this.value = value;
  }
}
