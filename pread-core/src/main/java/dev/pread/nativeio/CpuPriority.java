package dev.pread.nativeio;

/**
 * The calling thread's CPU priority: its nice value ({@code setpriority(2)}, which on Linux belongs
 * to a thread, not to its process), for work that should yield the CPU to other threads of the
 * process: background merges beside queries.
 *
 * <p>A thread at nice 10 gets about a tenth of the CPU time of a thread at nice 0 on a core they
 * both want; on an idle core it runs at full speed. Raising a thread's nice value needs no
 * privilege; lowering it again needs {@code CAP_SYS_NICE} or a {@code RLIMIT_NICE} that allows it,
 * which processes rarely have. So {@link #yieldTo} is one-way: call it only on threads that end
 * with the work that should yield, never on a thread that goes back to other work.
 *
 * <p>Where the kernel or the platform refuses (not Linux x86_64 or aarch64, a seccomp filter, no
 * native access), {@link #yieldTo} returns false once and every later call returns false without
 * a system call.
 *
 * <p>Thread-safe: each call acts on the calling thread only.
 */
public final class CpuPriority {
  /** The largest nice value: the lowest priority. */
  public static final int MAX_NICE = 19;

  /** Cleared once the kernel refuses; a benign race. */
  private static boolean supported = NativeAccess.isAvailable();

  private CpuPriority() {}

  /**
   * Lowers the calling thread's CPU priority to nice value {@code nice}, for the rest of the
   * thread's life, unless it is that low already.
   *
   * @param nice 1 to {@value #MAX_NICE}
   * @return true if the thread's nice value is {@code nice} or more now
   * @throws IllegalArgumentException if {@code nice} is out of range
   */
  public static boolean yieldTo(int nice) {
    if (nice < 1 || nice > MAX_NICE) {
      throw new IllegalArgumentException("nice value must be 1 to " + MAX_NICE + ": " + nice);
    }
    if (!supported) {
      return false;
    }
    try {
      int now = NativeIO.niceGet();
      if (now != Integer.MIN_VALUE && (now >= nice || NativeIO.niceSet(nice))) {
        return true;
      }
    } catch (LinkageError e) {
      // as refused
    }
    supported = false;
    return false;
  }

  /**
   * The calling thread's nice value, -20 to {@value #MAX_NICE}, or {@link Integer#MIN_VALUE} if it
   * cannot be read.
   */
  public static int current() {
    if (!NativeAccess.isAvailable()) {
      return Integer.MIN_VALUE;
    }
    try {
      return NativeIO.niceGet();
    } catch (LinkageError e) {
      return Integer.MIN_VALUE;
    }
  }
}
