package dev.pread.nativeio;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.apache.lucene.util.Unwrappable;

/**
 * Test-only bridge to the package-private {@link Faults} seam: installs an injector that makes
 * chosen system calls on files under one directory fail, or come back short, and counts what it
 * injected. One instance may be installed at a time; {@link #close()} removes it.
 *
 * <p>Rules: {@link #failNext} makes the next n matching calls fail with one kind (checked first);
 * {@link #random} makes each matching call fail with a probability, the kind drawn from a list, by
 * a seeded {@link Random} (reproducible when one thread makes the calls); {@link
 * #failUnalignedDirectReads} (checked before both) makes every unaligned {@code O_DIRECT} read fail
 * with EINVAL.
 *
 * <p>It also counts the {@code posix_fadvise} calls made on files under the directory ({@link
 * #adviceCalls()}), so that a test can tell whether advice was given, without waiting to see what
 * the kernel did with it.
 */
public final class FaultInjection implements AutoCloseable {
  /** The calls a fault can be injected into (mirrors {@link Faults.Call}). */
  public enum Call {
    OPEN(Faults.Call.OPEN),
    STATX(Faults.Call.STATX),
    PREAD(Faults.Call.PREAD),
    CLOSE(Faults.Call.CLOSE);

    final Faults.Call call;

    Call(Faults.Call call) {
      this.call = call;
    }

    static Call of(Faults.Call c) {
      return values()[c.ordinal()];
    }
  }

  /** What an injected fault does. */
  public enum Kind {
    /** The call fails with EINTR: must be retried transparently. */
    EINTR(Errno.EINTR),
    /** pread returns fewer bytes than asked: the rest must be read transparently. */
    SHORT_READ(0),
    EIO(Errno.EIO),
    EAGAIN(Errno.EAGAIN),
    ENOMEM(Errno.ENOMEM),
    EBADF(Errno.EBADF),
    EMFILE(Errno.EMFILE),
    /** What open(O_DIRECT) fails with on a file system that refuses direct I/O, and an unaligned O_DIRECT read. */
    EINVAL(Errno.EINVAL);

    /** The errno the call fails with; 0 for a short read. */
    public final int errno;

    Kind(int errno) {
      this.errno = errno;
    }

    /** True for faults the native layer must hide from its callers (EINTR, short reads). */
    public boolean isTransparent() {
      return this == EINTR || this == SHORT_READ;
    }
  }

  /** One injected fault, as reported to a listener. */
  public record Injected(Call call, Kind kind, Path path, long offset, long count) {}

  private record RandomRule(Call call, double rate, Random random, Kind[] kinds) {}

  private static final Object INSTALL_LOCK = new Object();

  private final Path under;
  private final Faults.Injector injector = this::decide;
  private final List<RandomRule> randomRules = new ArrayList<>();
  private final AtomicLongArray counts =
      new AtomicLongArray(Call.values().length * Kind.values().length);
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong directReads = new AtomicLong();
  private volatile int directAlignment;
  private final AtomicLong adviceCalls = new AtomicLong();
  private volatile boolean enabled = true;
  private volatile Consumer<Injected> listener;
  private Call nextCall;
  private Kind nextKind;
  private int nextRemaining;

  private FaultInjection(Path under) {
    this.under = Unwrappable.unwrapAll(under).toAbsolutePath();
  }

  /**
   * Installs an injector for calls on files under {@code dir} (a test path is unwrapped to the
   * real one). Starts with no rules.
   *
   * @throws IllegalStateException if another instance is installed
   */
  public static FaultInjection install(Path dir) {
    FaultInjection f = new FaultInjection(dir);
    synchronized (INSTALL_LOCK) {
      if (Faults.injector != null) {
        throw new IllegalStateException("a fault injector is already installed");
      }
      Faults.injector = f.injector;
    }
    return f;
  }

  /** Each matching call fails with probability {@code rate}, with a kind drawn from {@code kinds}. */
  public synchronized FaultInjection random(Call call, double rate, long seed, Kind... kinds) {
    for (Kind k : kinds) {
      checkApplies(call, k);
    }
    randomRules.add(new RandomRule(call, rate, new Random(seed), kinds.clone()));
    return this;
  }

  /** The next {@code times} calls of {@code call} under the directory fail with {@code kind}. */
  public synchronized FaultInjection failNext(Call call, Kind kind, int times) {
    checkApplies(call, kind);
    nextCall = call;
    nextKind = kind;
    nextRemaining = times;
    return this;
  }

  /**
   * Every {@code pread} of a file opened with {@code O_DIRECT} whose offset or length is not a
   * multiple of {@code alignment} fails with EINVAL without being made, even where it starts at or
   * beyond end of file. Kernels whose file system reads through the generic direct-I/O code (ext4
   * on Linux 4.18, for one) check alignment before end of file and behave so; ext4 with iomap and
   * XFS return 0 at end of file instead. Counted as PREAD/EINVAL.
   *
   * @param alignment a power of two; 0 removes the rule
   */
  public FaultInjection failUnalignedDirectReads(int alignment) {
    if (alignment < 0 || Integer.bitCount(alignment) > 1) {
      throw new IllegalArgumentException("alignment must be 0 or a power of two: " + alignment);
    }
    directAlignment = alignment;
    return this;
  }

  /** Removes every rule; counts are kept. */
  public synchronized void clearRules() {
    randomRules.clear();
    nextRemaining = 0;
    directAlignment = 0;
  }

  /** Suspends ({@code false}) or resumes injection without changing the rules. */
  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /** Called (on the faulted thread) for each fault injected. */
  public void setListener(Consumer<Injected> listener) {
    this.listener = listener;
  }

  private static void checkApplies(Call call, Kind kind) {
    if (kind == Kind.SHORT_READ && call != Call.PREAD) {
      throw new IllegalArgumentException("short reads apply to PREAD only");
    }
  }

  private long decide(Faults.Call c, Path path, long offset, long count, boolean direct) {
    if (!enabled || !path.startsWith(under)) {
      return 0;
    }
    if (c == Faults.Call.ADVISE) {
      adviceCalls.incrementAndGet();
      return 0; // counted only: no fault is injected into posix_fadvise
    }
    Call call = Call.of(c);
    if (direct) {
      directReads.incrementAndGet();
    }
    int align = directAlignment;
    Kind kind = null;
    long shortCount = 0;
    synchronized (this) {
      if (direct && align > 0 && ((offset | count) & (align - 1)) != 0) {
        kind = Kind.EINVAL;
      } else if (nextRemaining > 0 && nextCall == call && (nextKind != Kind.SHORT_READ || count >= 2)) {
        kind = nextKind;
        shortCount = count / 2;
        nextRemaining--;
      } else {
        for (RandomRule rule : randomRules) {
          if (rule.call == call && rule.random.nextDouble() < rule.rate) {
            Kind k = rule.kinds[rule.random.nextInt(rule.kinds.length)];
            if (k == Kind.SHORT_READ) {
              if (count < 2) {
                continue; // one byte cannot come back short
              }
              shortCount = 1 + rule.random.nextLong(count - 1);
            }
            kind = k;
            break;
          }
        }
      }
    }
    if (kind == null) {
      return 0;
    }
    counts.incrementAndGet(call.ordinal() * Kind.values().length + kind.ordinal());
    total.incrementAndGet();
    Consumer<Injected> l = listener;
    if (l != null) {
      l.accept(new Injected(call, kind, path, offset, count));
    }
    return kind == Kind.SHORT_READ ? shortCount : -kind.errno;
  }

  /** Faults of {@code kind} injected into {@code call}. */
  public long injected(Call call, Kind kind) {
    return counts.get(call.ordinal() * Kind.values().length + kind.ordinal());
  }

  /** Faults of {@code kind} injected into any call. */
  public long injected(Kind kind) {
    long n = 0;
    for (Call c : Call.values()) {
      n += injected(c, kind);
    }
    return n;
  }

  /** {@code pread}s of files opened with {@code O_DIRECT} under the directory seen so far (while enabled). */
  public long directReads() {
    return directReads.get();
  }

  /**
   * {@code posix_fadvise} calls made on files under the directory while this instance was
   * installed and enabled (from {@link NativeFile#advise}, whoever the caller); none is faulted.
   */
  public long adviceCalls() {
    return adviceCalls.get();
  }

  /** Every fault injected so far. */
  public long injectedTotal() {
    return total.get();
  }

  /** Faults injected so far, by "CALL/KIND" (e.g. "PREAD/EINTR"), in call and kind order. */
  public Map<String, Long> counts() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Call c : Call.values()) {
      for (Kind k : Kind.values()) {
        long n = injected(c, k);
        if (n > 0) {
          m.put(c + "/" + k, n);
        }
      }
    }
    return m;
  }

  /** "PREAD/EINTR=12 PREAD/SHORT_READ=7 ..." for the kinds injected so far. */
  public String summary() {
    StringBuilder sb = new StringBuilder();
    for (Call c : Call.values()) {
      for (Kind k : Kind.values()) {
        long n = injected(c, k);
        if (n > 0) {
          sb.append(sb.length() == 0 ? "" : " ").append(c).append('/').append(k).append('=').append(n);
        }
      }
    }
    return sb.length() == 0 ? "none" : sb.toString();
  }

  /** Uninstalls the injector. */
  @Override
  public void close() {
    synchronized (INSTALL_LOCK) {
      if (Faults.injector == injector) {
        Faults.injector = null;
      }
    }
  }

  /**
   * Allocates every slot of the native buffer pool now, so that {@link NativeBuffers#liveBuffers()}
   * stays constant afterwards unless a temporary buffer leaks.
   */
  public static void allocateWholeBufferPool() {
    NativeBuffers.Scratch[] all = new NativeBuffers.Scratch[NativeBuffers.slotCount()];
    try {
      for (int i = 0; i < all.length; i++) {
        all[i] = NativeBuffers.borrow(1);
      }
    } finally {
      for (NativeBuffers.Scratch s : all) {
        if (s != null) {
          NativeBuffers.release(s);
        }
      }
    }
  }
}
