package dev.pread.nativeio;

/**
 * The calling thread's I/O priority ({@code ioprio_set(2)}), for reads that should yield the disk
 * to others and for reads that others should yield it to.
 *
 * <p><b>Idle.</b> A read made in the idle class is served by the kernel's I/O scheduler only when no
 * read of a higher class waits (mq-deadline and BFQ; with the {@code none} scheduler the class
 * changes nothing), and mq-deadline serves it anyway once it has waited {@code prio_aging_expire}
 * (10 s by default). The idle class needs no privilege.
 *
 * <p><b>First.</b> A read made at the highest best-effort level ({@link #enterFirst}) is one a
 * query waits on. Only BFQ weighs best-effort levels (a thread at level 0 has twice the weight of
 * one at the default level 4) and it serves each process's queue in turn, not requests in the
 * order they came, so a query's small reads do not wait behind another process's large readahead
 * of a file it streams. mq-deadline and the {@code none} scheduler serve every level alike: there
 * it changes nothing. The level needs no privilege (the real-time class would). A thread in the
 * real-time class (an operator's {@code ionice -c1}, with {@code CAP_SYS_NICE}) keeps it: it is
 * above every best-effort level, and mq-deadline serves it before them. The cost: up to three
 * system calls around each read from storage.
 *
 * <p>Usage: {@code int previous = IoPriority.enterIdle(); long start = System.nanoTime(); try {
 * read } finally { IoPriority.restore(previous, start); }}. Where the kernel or the platform
 * refuses (not Linux x86_64 or aarch64, a seccomp filter), {@link #enterIdle} returns {@link
 * #UNCHANGED} once and every later call returns it without a system call, and reads keep the
 * thread's priority.
 *
 * <p><b>Starvation.</b> While reads of higher classes keep the disk busy, an idle read may wait
 * long. A read that took more than {@value #MAX_IDLE_MILLIS} ms in the idle class stops {@link
 * #enterIdle} from entering it, JVM-wide, for the next {@value #BACKOFF_MILLIS} ms: work that
 * reads in the idle class (a merge) keeps a share of the disk however busy it is.
 *
 * <p>Thread-safe: each call acts on the calling thread only.
 */
public final class IoPriority {
  /** What {@link #enterIdle} returns when it left the priority as it was. */
  public static final int UNCHANGED = -1;

  /** {@code IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)}: class 3 in the top bits of 16. */
  static final int IDLE = 3 << 13;

  /** {@code IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 0)}: class 2, level 0, the highest best-effort level. */
  public static final int FIRST = 2 << 13;

  /** {@code IOPRIO_CLASS_RT}: the real-time class, above every best-effort level. */
  static final int REALTIME_CLASS = 1;

  /**
   * {@code IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 7)}: the lowest real-time level, for a query's reads
   * where {@link #REALTIME_PROPERTY} asks for the real-time class.
   */
  public static final int REALTIME = (REALTIME_CLASS << 13) | 7;

  /**
   * The system property that puts the reads a query waits on ({@link #enterFirst}) in the real-time
   * class instead of at best-effort level 0: {@value}{@code =true}. Read once, when this class is
   * loaded.
   */
  public static final String REALTIME_PROPERTY = "dev.pread.io.realtime";

  /** The class of a priority value: its top bits of 16. */
  static int classOf(int value) {
    return value >>> 13;
  }

  /** An idle read slower than this ends idle reads for {@link #BACKOFF_MILLIS}. */
  static final long MAX_IDLE_MILLIS = 200;

  /** How long reads keep their thread's class after an idle read was too slow. */
  static final long BACKOFF_MILLIS = 5000;

  /** Cleared once the kernel refuses; a benign race. */
  private static boolean supported = NativeAccess.isAvailable();

  /**
   * Whether {@link #enterFirst} tries the real-time class ({@link #REALTIME_PROPERTY}); cleared, with
   * one log line, once the kernel refuses it (no {@code CAP_SYS_NICE}). A benign race. Tests set it.
   */
  static volatile boolean realtime = Boolean.getBoolean(REALTIME_PROPERTY);

  private static final System.Logger LOG = System.getLogger(IoPriority.class.getName());

  /** {@link System#nanoTime()} until which {@link #enterIdle} leaves the class alone; benign races. */
  private static volatile long backoffUntil = System.nanoTime();

  private IoPriority() {}

  /**
   * Puts the calling thread at the highest best-effort level for a read a query waits on, unless it
   * is in the real-time class, which is above that level and stays; give the result to {@link
   * #restore(int)} when the read is done. With {@link #REALTIME_PROPERTY} set, puts it in the
   * real-time class ({@link #REALTIME}) instead, where the kernel allows it.
   *
   * <p>The real-time class is the one mq-deadline serves before every best-effort read, so a
   * query's miss does not wait behind the readahead of another process streaming a file; BFQ gives
   * best-effort level 0 most of that without privilege. The trade-off: it needs {@code
   * CAP_SYS_NICE}, and while queries keep the disk busy every other process's reads on it wait, up
   * to the scheduler's aging limit (10 s for mq-deadline). Where the kernel refuses it, one log line
   * says so and reads go at best-effort level 0.
   *
   * @return the priority to give back ({@link #FIRST} itself if the thread was at that level or in
   *     the real-time class already: nothing to give back), or {@link #UNCHANGED} if the kernel
   *     refuses
   */
  public static int enterFirst() {
    if (!supported) {
      return UNCHANGED;
    }
    if (realtime) {
      int previous = enter(REALTIME);
      if (previous != UNCHANGED || !supported) {
        return previous;
      }
    }
    return enter(FIRST);
  }

  /**
   * Gives the calling thread back the priority {@link #enterFirst} returned (nothing for {@link
   * #UNCHANGED}, nor for {@link #FIRST}: the thread is there).
   */
  public static void restore(int previous) {
    if (previous != UNCHANGED && previous != FIRST) {
      NativeIO.ioprioSet(previous);
    }
  }

  /**
   * Puts the calling thread in the idle I/O class.
   *
   * @return the priority to give to {@link #restore}, or {@link #UNCHANGED}
   */
  public static int enterIdle() {
    return !supported || System.nanoTime() - backoffUntil < 0 ? UNCHANGED : enter(IDLE);
  }

  /**
   * Sets the calling thread's priority to {@code value} unless it has it already or, for a query's
   * read ({@link #FIRST}, {@link #REALTIME}), is in the real-time class or at level 0.
   *
   * @return the priority before ({@link #FIRST} if a query's read left it as it was, {@code value}
   *     if it had it), or {@link #UNCHANGED} if the kernel refuses: for {@link #REALTIME} that class
   *     only (the property is turned off), else every priority, after which no call changes any
   */
  private static int enter(int value) {
    try {
      int previous = NativeIO.ioprioGet();
      if (previous < 0) {
        supported = false;
        return UNCHANGED;
      }
      if (value != IDLE && (classOf(previous) == REALTIME_CLASS || previous == FIRST)) {
        // a query's read on a thread in the real-time class (an outer read's, or an operator's) or
        // at level 0 already: not lowered, nothing to give back
        return FIRST;
      }
      if (previous == value) {
        return previous;
      }
      if (NativeIO.ioprioSet(value)) {
        return previous;
      }
      if (value == REALTIME) {
        if (realtime) {
          realtime = false;
          LOG.log(System.Logger.Level.WARNING, REALTIME_PROPERTY + " is set, but the kernel refuses the real-time"
              + " I/O class (it needs CAP_SYS_NICE): a query's reads go at best-effort level 0 instead");
        }
        return UNCHANGED; // level 0 is tried next
      }
      supported = false;
      return UNCHANGED;
    } catch (LinkageError e) {
      supported = false;
      return UNCHANGED;
    }
  }

  /**
   * Gives the calling thread back the priority {@link #enterIdle} returned (nothing for {@link
   * #UNCHANGED}), after a read that began at {@code startNanos} ({@link System#nanoTime()}): if it
   * was made in the idle class and took more than {@value #MAX_IDLE_MILLIS} ms, idle reads stop for
   * {@value #BACKOFF_MILLIS} ms.
   */
  public static void restore(int previous, long startNanos) {
    if (previous != UNCHANGED) {
      NativeIO.ioprioSet(previous);
      long now = System.nanoTime();
      if (now - startNanos > MAX_IDLE_MILLIS * 1_000_000L) {
        backoffUntil = now + BACKOFF_MILLIS * 1_000_000L;
      }
    }
  }

  /** True while idle reads are held off after a slow one. */
  public static boolean backingOff() {
    return System.nanoTime() - backoffUntil < 0;
  }

  /** Ends a backoff now (for tests). */
  static void endBackoff() {
    backoffUntil = System.nanoTime();
  }

  /** The calling thread's I/O priority value, or -1 where it cannot be read. */
  public static int current() {
    try {
      return supported ? NativeIO.ioprioGet() : -1;
    } catch (LinkageError e) {
      return -1;
    }
  }
}
