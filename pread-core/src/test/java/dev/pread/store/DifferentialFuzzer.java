package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeIOException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.FlushInfo;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.MergeInfo;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.store.SingleInstanceLockFactory;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.Unwrappable;

/**
 * Differential fuzzer: a seeded random sequence of writes, deletes, opens, clones, slices,
 * random-access slices, seeks, every read method of {@link IndexInput} and {@link
 * RandomAccessInput}, prefetches and closes, run call by call against a {@link PreadDirectory} and
 * a {@link ByteBuffersDirectory} (the reference). Each call's result must be equal: the value
 * read (arrays compared whole, padding included, so a write outside the asked range is caught),
 * the file pointer afterwards, or the kind of exception. A mismatch fails with the seed and the
 * last operations.
 *
 * <p>Where the two directories legitimately differ, the fuzzer normalises, as follows:
 *
 * <ul>
 *   <li>Closing an original: reading any of its clones or slices must throw {@link
 *       AlreadyClosedException} from ours (Lucene's contract); ByteBuffersDirectory's clones keep
 *       working, so the reference is not asked.
 *   <li>Positional ({@link RandomAccessInput}) reads on a full input may move our file pointer, as
 *       {@code BufferedIndexInput}'s do; the reference's does not. After such a read our pointer
 *       is set back to the reference's.
 *   <li>After a call that threw on both sides, both pointers are set back to where they were: the
 *       position of a failed read is unspecified.
 *   <li>{@code prefetch} of a range outside the input: ours throws {@link
 *       IllegalArgumentException}, the reference ignores it (IndexInput's default).
 *   <li>A positional read at a negative position: ours must throw {@link
 *       IllegalArgumentException}; ByteBuffersDirectory's slices return bytes from before their
 *       start, so the reference is not asked. One past the end: ByteBuffersDirectory's
 *       random-access slices throw {@link IndexOutOfBoundsException}, which counts as the {@link
 *       EOFException} that MMapDirectory, BufferedIndexInput and ours throw.
 *   <li>A sequential read of fixed-size values past the end: ByteBuffersDataInput may throw {@link
 *       IndexOutOfBoundsException} (from {@code ByteBuffer.getInt}); it counts as {@link
 *       EOFException} when the call could really have crossed the end.
 *   <li>Closing a clone or slice: a no-op on ours, which must stay usable; ByteBuffersDirectory's
 *       would really close, and Lucene never closes clones, so the reference's is not closed.
 *   <li>A negative seek: ByteBuffersDirectory accepts it; ours must refuse it with {@link
 *       IllegalArgumentException} (as MMapDirectory does) and not move.
 *   <li>A negative position or length may fail as {@link IllegalArgumentException} on one side and
 *       {@link IndexOutOfBoundsException} on the other: both are "bad argument". A read into a range
 *       outside its array may fail as "bad argument" or as end of file, whichever is checked first.
 * </ul>
 *
 * <p>With a {@link FaultInjection}, injected EINTR and short reads must change nothing. An injected
 * error must surface from ours as {@link NativeIOException} naming the path, the call, the offset
 * (for reads) and the errno; then the same call, made again at the same position with injection
 * suspended, must give the reference's result. Single-threaded; reproducible by seed.
 *
 * <p>Given a {@link BlockCache}, "ours" is a {@link CachedPreadDirectory} reading through it (a
 * cache of a few blocks makes every read evict): the same calls must give the same results, merge
 * and read-once inputs read around the cache, and read errors name {@code preadv}. With faults
 * injected, its prefetch is off: prefetch threads would draw from the injector's seeded random
 * numbers and make a run irreproducible.
 *
 * <p>Given an {@link AdaptiveRegime}, "ours" is an {@link AdaptiveDirectory} following it: in
 * {@link AdaptiveRegime.Mode#ALTERNATE} every open, clone, slice and prefetch moves every input to
 * the next read path (the mapping, the regime's block cache, the page cache with {@code pread}), so
 * that one handle's reads go through all three. Read errors then name {@code preadv} (the cache) or
 * {@code pread} (the page cache). With faults injected its prefetch calls are not made, for the
 * reason above (its cache has no switch for them).
 */
final class DifferentialFuzzer implements AutoCloseable {
  /** Which faults to inject. */
  enum FaultMode {
    NONE,
    /** EINTR and short reads: must be invisible. */
    TRANSPARENT,
    /** Transparent faults plus errors in pread, open, statx and close. */
    ERRORS
  }

  /** Figures of one or more runs. */
  static final class Stats {
    long ops;
    long comparedCalls;
    long readCalls;
    long bytesCompared;
    long exceptionsMatched;
    long closedChecks;
    final Map<String, Long> byOp = new TreeMap<>();
    /** By "CALL/KIND", e.g. "PREAD/EINTR". */
    final Map<String, Long> faultsInjected = new TreeMap<>();
    /**
     * Error faults (by "CALL/KIND") that surfaced as a NativeIOException naming path, call, offset
     * and errno, after which the same call, made again, matched the reference.
     */
    final Map<String, Long> errorsSurfacedThenCorrect = new TreeMap<>();
    /** Calls with at least one transparent fault whose result still matched the reference. */
    long callsWithTransparentFaults;

    void add(Stats o) {
      ops += o.ops;
      comparedCalls += o.comparedCalls;
      readCalls += o.readCalls;
      bytesCompared += o.bytesCompared;
      exceptionsMatched += o.exceptionsMatched;
      closedChecks += o.closedChecks;
      callsWithTransparentFaults += o.callsWithTransparentFaults;
      o.byOp.forEach((k, v) -> byOp.merge(k, v, Long::sum));
      o.faultsInjected.forEach((k, v) -> faultsInjected.merge(k, v, Long::sum));
      o.errorsSurfacedThenCorrect.forEach((k, v) -> errorsSurfacedThenCorrect.merge(k, v, Long::sum));
    }

    @Override
    public String toString() {
      return String.format(
          "%d ops, %d calls compared (%d reads, %d bytes), %d exceptions matched, %d closed-input"
              + " checks; faults injected %s; calls with transparent faults that matched %d;"
              + " errors surfaced then re-read correctly %s",
          ops, comparedCalls, readCalls, bytesCompared, exceptionsMatched, closedChecks,
          faultsInjected, callsWithTransparentFaults, errorsSurfacedThenCorrect);
    }
  }

  private static final int MAX_FILES = 10;
  private static final int MAX_ORIGINALS = 8;
  private static final int MAX_HANDLES = 48;
  private static final int LOG_TAIL = 60;

  private final long seed;
  private final Random r;
  private final Path realRoot;
  private final FSDirectory ours;
  /** The thread making the calls: faults injected on other threads (prefetch) are not its calls'. */
  private final Thread caller = Thread.currentThread();
  private final ByteBuffersDirectory ref;
  private final FaultInjection faults;
  private final FaultMode mode;
  private final Stats stats = new Stats();

  private final List<String> files = new ArrayList<>();
  private final List<Handle> handles = new ArrayList<>();
  private final ArrayDeque<String> log = new ArrayDeque<>();
  private int fileCounter;
  private int handleCounter;

  /** Faults injected during the current call. */
  private final List<FaultInjection.Injected> stepFaults = new ArrayList<>();

  private static final class Handle {
    final int id;
    final IndexInput ours;
    final IndexInput ref;
    /** Non-null for random-access slices (then ours and ref are null). */
    final RandomAccessInput raOurs;
    final RandomAccessInput raRef;
    final Handle root;
    final String file;
    final String what;
    /** Length, taken from the reference when made (a closed reference may refuse length()). */
    final long length;
    boolean closed; // on originals

    Handle(int id, IndexInput ours, IndexInput ref, RandomAccessInput raOurs, RandomAccessInput raRef,
        Handle root, String file, String what) {
      this.id = id;
      this.ours = ours;
      this.ref = ref;
      this.raOurs = raOurs;
      this.raRef = raRef;
      this.root = root == null ? this : root;
      this.file = file;
      this.what = what;
      this.length = raRef != null ? raRef.length() : ref.length();
    }

    boolean dead() {
      return root.closed;
    }

    boolean isRandomAccess() {
      return raOurs != null;
    }

    long length() {
      return length;
    }

    @Override
    public String toString() {
      return "h" + id;
    }
  }

  /** A call made on both sides; returns a comparable value. */
  @FunctionalInterface
  private interface SeqCall {
    Object apply(IndexInput in) throws IOException;
  }

  @FunctionalInterface
  private interface RaCall {
    Object apply(RandomAccessInput in) throws IOException;
  }

  /** A value or an exception. */
  private record Outcome(Object value, Throwable error) {
    String describe() {
      return error != null ? kindOf(error) + "(" + error.getClass().getSimpleName() + ")" : show(value);
    }
  }

  /**
   * @param root a test directory (may be wrapped by Lucene's test file systems); ours lives there
   * @param faults an injector installed for {@code root}, or null for {@link FaultMode#NONE}
   */
  DifferentialFuzzer(long seed, Path root, FaultInjection faults, FaultMode mode) throws IOException {
    this(seed, root, faults, mode, null, null);
  }

  /**
   * @param cache null for a {@link PreadDirectory}; else ours is a {@link CachedPreadDirectory}
   *     reading through this cache (which the fuzzer does not close)
   */
  DifferentialFuzzer(long seed, Path root, FaultInjection faults, FaultMode mode, BlockCache cache)
      throws IOException {
    this(seed, root, faults, mode, cache, null);
  }

  /**
   * @param cache null unless ours is a {@link CachedPreadDirectory} reading through this cache
   *     (which the fuzzer does not close)
   * @param regime null unless ours is an {@link AdaptiveDirectory} following this regime (which
   *     closes its cache when the directory closes)
   */
  DifferentialFuzzer(
      long seed, Path root, FaultInjection faults, FaultMode mode, BlockCache cache, AdaptiveRegime regime)
      throws IOException {
    this.seed = seed;
    this.r = new Random(seed);
    this.realRoot = Unwrappable.unwrapAll(root).toAbsolutePath();
    this.mode = mode;
    this.faults = faults;
    int bufferSize =
        switch (r.nextInt(4)) {
          case 0 -> PreadDirectory.DEFAULT_BUFFER_SIZE;
          case 1 -> PreadDirectory.MIN_BUFFER_SIZE + r.nextInt(200);
          default -> PreadDirectory.MIN_BUFFER_SIZE + r.nextInt(40_000);
        };
    if (regime != null) {
      if (!dev.pread.nativeio.NativeAccess.isAvailable()) {
        throw new IllegalStateException("AdaptiveDirectory has no block cache or pread path without native access in this JVM");
      }
      this.ours = new AdaptiveDirectory(root, FSLockFactory.getDefault(), regime);
    } else if (cache == null) {
      PreadDirectory pread = new PreadDirectory(root, FSLockFactory.getDefault(), bufferSize);
      if (!pread.isNativePread()) {
        pread.close();
        throw new IllegalStateException("PreadDirectory is not reading natively in this JVM");
      }
      this.ours = pread;
    } else {
      CachedPreadDirectory cached = new CachedPreadDirectory(root, FSLockFactory.getDefault(), cache);
      if (!cached.isCached()) {
        cached.close();
        throw new IllegalStateException("CachedPreadDirectory is not reading through its cache in this JVM");
      }
      cached.setPrefetch(mode == FaultMode.NONE);
      this.ours = cached;
    }
    BiFunction<String, ByteBuffersDataOutput, IndexInput> layout =
        switch (r.nextInt(3)) {
          case 0 -> ByteBuffersDirectory.OUTPUT_AS_MANY_BUFFERS;
          case 1 -> ByteBuffersDirectory.OUTPUT_AS_ONE_BUFFER;
          default -> ByteBuffersDirectory.OUTPUT_AS_BYTE_ARRAY;
        };
    this.ref = new ByteBuffersDirectory(new SingleInstanceLockFactory(), ByteBuffersDataOutput::new, layout);
    if (mode != FaultMode.NONE) {
      Objects.requireNonNull(faults, "faults");
      long fs = r.nextLong();
      faults.clearRules();
      faults.random(Call.PREAD, 0.25, fs, Kind.EINTR, Kind.SHORT_READ);
      faults.random(Call.OPEN, 0.2, fs + 1, Kind.EINTR);
      faults.random(Call.STATX, 0.2, fs + 2, Kind.EINTR);
      if (mode == FaultMode.ERRORS) {
        faults.random(Call.PREAD, 0.03, fs + 3, Kind.EIO, Kind.EAGAIN, Kind.ENOMEM, Kind.EBADF);
        faults.random(Call.OPEN, 0.04, fs + 4, Kind.EIO, Kind.ENOMEM, Kind.EMFILE);
        faults.random(Call.STATX, 0.03, fs + 5, Kind.EIO, Kind.ENOMEM);
        faults.random(Call.CLOSE, 0.08, fs + 6, Kind.EIO);
      }
      faults.setListener(this::recordFault);
    }
    note("start seed=0x" + Long.toHexString(seed) + " bufferSize=" + bufferSize + " mode=" + mode + " directory=" + ours);
  }

  private static final StackWalker OPTIONAL_OPEN = StackWalker.getInstance();

  /** A frame of the block cache's open of the buffered descriptor it copies page-cache misses with. */
  private static boolean optionalOpen(StackWalker.StackFrame f) {
    return f.getClassName().equals("dev.pread.cache.FileBlocks") && f.getMethodName().equals("buffered");
  }

  /** Where the first error fault of the current step was injected: the cause of a failure that it was swallowed. */
  private Throwable errorFaultSite;

  private void recordFault(FaultInjection.Injected f) {
    if (!f.kind().isTransparent() && OPTIONAL_OPEN.walk(frames -> frames.anyMatch(DifferentialFuzzer::optionalOpen))) {
      // The block cache opening a buffered descriptor to copy misses from the page cache: an
      // optimisation, not the caller's call. It declines (misses read storage) and the read must
      // still match, which the comparison checks.
      stats.faultsInjected.merge("declined " + f.call() + "/" + f.kind(), 1L, Long::sum);
      return;
    }
    if (!f.kind().isTransparent() && Thread.currentThread() == caller && errorFaultSite == null) {
      errorFaultSite = new Throwable("where " + f.call() + "/" + f.kind() + " was injected");
    }
    if (Thread.currentThread() != caller) {
      stats.faultsInjected.merge("async " + f.call() + "/" + f.kind(), 1L, Long::sum);
      return;
    }
    synchronized (stepFaults) {
      stepFaults.add(f);
    }
    stats.faultsInjected.merge(f.call() + "/" + f.kind(), 1L, Long::sum);
  }

  /** Runs until {@code maxOps} operations are done or {@code deadlineNanos} (System.nanoTime) passes. */
  Stats run(long maxOps, long deadlineNanos) throws IOException {
    while (stats.ops < maxOps && System.nanoTime() - deadlineNanos < 0) {
      step();
      stats.ops++;
    }
    return stats;
  }

  Stats stats() {
    return stats;
  }

  /** Closes every input and both directories; fails if a descriptor under the directory is left. */
  @Override
  public void close() throws IOException {
    if (faults != null) {
      faults.setEnabled(false);
      faults.setListener(null);
    }
    List<Object> toClose = new ArrayList<>();
    for (Handle h : handles) {
      if (h.root == h && !h.closed) {
        h.closed = true;
        toClose.add(h.ours);
        toClose.add(h.ref);
      }
    }
    IOUtils.close(toClose.toArray(new java.io.Closeable[0]));
    long left = OpenDescriptors.under(realRoot);
    IOUtils.close(ours, ref);
    if (left != 0) {
      throw failure("descriptors left open under " + realRoot + ": " + left);
    }
    if (faults != null) {
      faults.setEnabled(true);
    }
  }

  // ---- the operations ----

  private void step() throws IOException {
    synchronized (stepFaults) {
      stepFaults.clear();
    }
    errorFaultSite = null;
    chooseAndRun();
    synchronized (stepFaults) {
      for (FaultInjection.Injected f : stepFaults) {
        if (!f.kind().isTransparent()) {
          throw failure("an injected " + f.call() + "/" + f.kind() + " at offset " + f.offset() + " did not surface as an exception",
              errorFaultSite);
        }
      }
      if (!stepFaults.isEmpty()) {
        stats.callsWithTransparentFaults++;
      }
    }
  }

  private void chooseAndRun() throws IOException {
    if (files.isEmpty()) {
      write();
      return;
    }
    if (liveOriginals() == 0) {
      open();
      return;
    }
    int p = r.nextInt(100);
    if (p < 3) {
      if (files.size() >= MAX_FILES) {
        delete();
      } else {
        write();
      }
    } else if (p < 4) {
      delete();
    } else if (p < 9) {
      if (liveOriginals() >= MAX_ORIGINALS) {
        closeOne(randomOriginal());
      } else {
        open();
      }
    } else if (p < 11) {
      closeOne(randomHandle());
    } else if (p < 15) {
      cloneOne(randomHandle());
    } else if (p < 20) {
      sliceOne(randomHandle(), false);
    } else if (p < 23) {
      sliceOne(randomHandle(), true);
    } else if (p < 30) {
      seekOne(randomHandle());
    } else if (p < 93) {
      readOne(randomHandle());
    } else if (p < 97) {
      prefetchOne(randomHandle());
    } else if (p < 98) {
      openMissing();
    } else {
      lengthAndPointer(randomHandle());
    }
    if (handles.size() > MAX_HANDLES) {
      forgetSome();
    }
  }

  private void write() throws IOException {
    String name = "f" + (fileCounter++);
    int length =
        switch (r.nextInt(20)) {
          case 0 -> 0;
          case 1, 2, 3, 4 -> 1 + r.nextInt(100);
          case 5, 6, 7, 8, 9, 10, 11, 12, 13 -> 100 + r.nextInt(20_000);
          default -> 20_000 + r.nextInt(180_000);
        };
    byte[] content = new byte[length];
    r.nextBytes(content);
    // Stretches of small bytes, so that variable-length ints and strings end early.
    for (int i = 0; i < length; ) {
      int run = Math.min(length - i, 1 + r.nextInt(64));
      if (r.nextInt(3) == 0) {
        for (int k = 0; k < run; k++) {
          content[i + k] &= 0x3F;
        }
      }
      i += run;
    }
    try (IndexOutput a = ours.createOutput(name, IOContext.DEFAULT);
        IndexOutput b = ref.createOutput(name, IOContext.DEFAULT)) {
      for (int i = 0; i < length; ) {
        int chunk = Math.min(length - i, 1 + r.nextInt(r.nextBoolean() ? 16 : 70_000));
        if (chunk == 1) {
          a.writeByte(content[i]);
          b.writeByte(content[i]);
        } else {
          a.writeBytes(content, i, chunk);
          b.writeBytes(content, i, chunk);
        }
        i += chunk;
      }
    }
    files.add(name);
    count("write");
    note("write " + name + " length=" + length);
    if (ours instanceof AdaptiveDirectory && r.nextBoolean()) {
      evict(name);
    }
  }

  /**
   * Drops the file's pages from the page cache (synced first, so that they are clean): the
   * adaptive directory's block cache copies misses from the page cache while it holds them, and
   * reads storage with {@code O_DIRECT} for those it does not. No faults meanwhile: not a call of ours.
   */
  private void evict(String name) throws IOException {
    if (faults != null) {
      faults.setEnabled(false);
    }
    try {
      ours.sync(List.of(name));
      PageCacheFiles.drop(realRoot.resolve(name));
    } finally {
      if (faults != null) {
        faults.setEnabled(true);
      }
    }
    count("evict");
  }

  /** Deletes a file; inputs open on it keep reading it (POSIX semantics; ByteBuffers keeps its buffers). */
  private void delete() throws IOException {
    if (files.size() < 2) {
      return;
    }
    String name = files.remove(r.nextInt(files.size()));
    ours.deleteFile(name);
    ref.deleteFile(name);
    count("delete");
    note("delete " + name);
  }

  private IOContext randomContext() {
    return switch (r.nextInt(6)) {
      case 0 -> IOContext.READONCE;
      case 1 -> IOContext.merge(new MergeInfo(1, 1, false, 1));
      case 2 -> IOContext.flush(new FlushInfo(1, 1));
      case 3 -> IOContext.DEFAULT.withHints(DataAccessHint.RANDOM);
      case 4 -> IOContext.DEFAULT.withHints(DataAccessHint.SEQUENTIAL);
      default -> IOContext.DEFAULT;
    };
  }

  private void open() throws IOException {
    String name = files.get(r.nextInt(files.size()));
    IOContext context = randomContext();
    IndexInput b = ref.openInput(name, context);
    IndexInput a;
    try {
      a = ours.openInput(name, context);
    } catch (NativeIOException e) {
      FaultInjection.Injected f = errorFault();
      if (f == null) {
        IOUtils.closeWhileHandlingException(b);
        throw failure("open " + name + " failed without an injected fault", e);
      }
      checkMessage(e, f, name);
      // The failed open must not leak its descriptor; opening again (no faults) works.
      faults.setEnabled(false);
      try {
        a = ours.openInput(name, context);
      } finally {
        faults.setEnabled(true);
      }
      surfaced(f);
      note("open " + name + " failed under " + f.call() + "/" + f.kind() + ", reopened");
    }
    Handle h = new Handle(handleCounter++, a, b, null, null, null, name, "open(" + name + ")");
    handles.add(h);
    count("open");
    note(h + " = open " + name + " " + context);
  }

  private void openMissing() throws IOException {
    String name = "missing" + r.nextInt(3);
    Outcome a = outcome(() -> ours.openInput(name, IOContext.DEFAULT));
    Outcome b = outcome(() -> ref.openInput(name, IOContext.DEFAULT));
    FaultInjection.Injected f = errorFault();
    if (f != null && a.error instanceof NativeIOException e) {
      checkMessage(e, f, name);
      faults.setEnabled(false);
      try {
        a = outcome(() -> ours.openInput(name, IOContext.DEFAULT));
      } finally {
        faults.setEnabled(true);
      }
      surfaced(f);
    }
    closeIfInput(a);
    closeIfInput(b);
    compare("openInput(" + name + ")", a, b);
    count("openMissing");
  }

  private static void closeIfInput(Outcome o) throws IOException {
    if (o.value instanceof IndexInput in) {
      in.close();
    }
  }

  private void closeOne(Handle h) throws IOException {
    if (h.isRandomAccess()) {
      return; // random-access slices have no close
    }
    if (h.root != h) {
      // Closing a clone or slice does nothing on ours, and Lucene never does it; the reference's
      // clone would really close, so it is not asked.
      h.ours.close();
      count("closeClone");
      note("close " + h + " (clone/slice, no-op)");
      return;
    }
    boolean wasClosed = h.closed;
    h.closed = true;
    h.ref.close();
    try {
      h.ours.close();
    } catch (NativeIOException e) {
      FaultInjection.Injected f = errorFault();
      if (f == null || f.call() != Call.CLOSE) {
        throw failure("close of " + h + " failed without an injected fault", e);
      }
      checkMessage(e, f, h.file);
      surfaced(f);
      note("close " + h + " reported " + f.kind() + "; the input is closed anyway");
      return;
    }
    count(wasClosed ? "closeAgain" : "close");
    note("close " + h);
  }

  private void cloneOne(Handle h) throws IOException {
    if (h.isRandomAccess()) {
      return;
    }
    if (h.dead()) {
      expectClosed(h, "clone", () -> h.ours.clone());
      return;
    }
    IndexInput a = h.ours.clone();
    IndexInput b = h.ref.clone();
    Handle c = new Handle(handleCounter++, a, b, null, null, h.root, h.file, "clone(" + h + ")");
    handles.add(c);
    count("clone");
    note(c + " = clone " + h + " at " + b.getFilePointer());
    comparePointers(c, "clone");
  }

  private void sliceOne(Handle h, boolean randomAccess) throws IOException {
    if (h.isRandomAccess()) {
      return;
    }
    long length = h.length();
    long offset;
    long sliceLength;
    if (r.nextInt(20) == 0) {
      // Bad bounds: negative, or past the end.
      offset = r.nextBoolean() ? -1 - r.nextInt(10) : r.nextLong(length + 2);
      sliceLength = r.nextBoolean() ? length - offset + 1 + r.nextInt(10) : -1 - r.nextInt(5);
    } else {
      offset = length == 0 ? 0 : r.nextLong(length + 1);
      sliceLength = length - offset == 0 ? 0 : r.nextLong(length - offset + 1);
    }
    String what = (randomAccess ? "randomAccessSlice(" : "slice(") + h + "," + offset + "," + sliceLength + ")";
    if (h.dead()) {
      expectClosed(h, what, () -> randomAccess ? h.ours.randomAccessSlice(offset, sliceLength) : h.ours.slice("s", offset, sliceLength));
      return;
    }
    Outcome a = outcome(() -> randomAccess ? h.ours.randomAccessSlice(offset, sliceLength) : h.ours.slice("s", offset, sliceLength));
    Outcome b = outcome(() -> randomAccess ? h.ref.randomAccessSlice(offset, sliceLength) : h.ref.slice("s", offset, sliceLength));
    compare(what, new Outcome(null, a.error), new Outcome(null, b.error)); // inputs are compared by use
    count(randomAccess ? "randomAccessSlice" : "slice");
    if (a.error == null) {
      Handle s =
          randomAccess
              ? new Handle(handleCounter++, null, null, (RandomAccessInput) a.value, (RandomAccessInput) b.value, h.root, h.file, what)
              : new Handle(handleCounter++, (IndexInput) a.value, (IndexInput) b.value, null, null, h.root, h.file, what);
      handles.add(s);
      note(s + " = " + what);
      if (s.length() != (randomAccess ? s.raOurs.length() : s.ours.length())) {
        throw failure("length of " + s + ": ours " + (randomAccess ? s.raOurs.length() : s.ours.length()) + " reference " + s.length());
      }
    } else {
      note(what + " -> " + a.describe());
    }
  }

  private long randomPosition(long length) {
    return switch (r.nextInt(10)) {
      case 0 -> Math.max(0, length - r.nextInt(12)); // near the end
      case 1 -> length + r.nextInt(5); // at or past the end
      case 2 -> r.nextInt(3) == 0 ? -1 - r.nextInt(4) : 0; // negative (rarely), or 0
      default -> length == 0 ? 0 : r.nextLong(length);
    };
  }

  private void seekOne(Handle h) throws IOException {
    if (h.isRandomAccess()) {
      return;
    }
    long pos = randomPosition(h.length());
    String what = "seek(" + pos + ")";
    if (pos < 0 && !h.dead()) {
      // Normalisation: ByteBuffersDirectory accepts a negative seek (and fails later reads); ours,
      // like MMapDirectory, refuses it with IllegalArgumentException and keeps its position.
      long before = h.ours.getFilePointer();
      Outcome a = outcome(() -> {
        h.ours.seek(pos);
        return null;
      });
      if (!(a.error instanceof IllegalArgumentException) || h.ours.getFilePointer() != before) {
        throw failure(what + " on " + h + ": expected IllegalArgumentException and no move, got " + a.describe(), a.error);
      }
      stats.exceptionsMatched++;
      count("seek.negative");
      note(what + " on " + h + " -> iae");
      return;
    }
    sequential(h, what, in -> {
      in.seek(pos);
      return null;
    }, false, 0);
  }

  private void lengthAndPointer(Handle h) throws IOException {
    if (h.isRandomAccess()) {
      if (h.raOurs.length() != h.length()) {
        throw failure("length of " + h + ": ours " + h.raOurs.length() + " reference " + h.length());
      }
    } else {
      if (h.ours.length() != h.length()) {
        throw failure("length of " + h + ": ours " + h.ours.length() + " reference " + h.length());
      }
      if (!h.dead()) {
        comparePointers(h, "length/getFilePointer");
      }
    }
    count("length");
  }

  private void prefetchOne(Handle h) throws IOException {
    if (ours instanceof AdaptiveDirectory && mode != FaultMode.NONE) {
      return; // its cache's prefetch threads would draw faults from the seeded injector (see the class comment)
    }
    long length = h.length();
    boolean bad = r.nextInt(10) == 0;
    long offset;
    long len;
    if (bad) {
      offset = r.nextBoolean() ? -1 - r.nextInt(3) : r.nextLong(length + 1);
      len = r.nextBoolean() ? -1 : length - offset + 1 + r.nextInt(100);
    } else {
      offset = length == 0 ? 0 : r.nextLong(length + 1);
      len = length - offset == 0 ? 0 : r.nextLong(length - offset + 1);
    }
    String what = "prefetch(" + offset + "," + len + ") on " + h;
    if (h.dead()) {
      expectClosed(h, what, () -> {
        if (h.isRandomAccess()) {
          h.raOurs.prefetch(offset, len);
        } else {
          h.ours.prefetch(offset, len);
        }
        return null;
      });
      return;
    }
    Outcome a = outcome(() -> {
      if (h.isRandomAccess()) {
        h.raOurs.prefetch(offset, len);
      } else {
        h.ours.prefetch(offset, len);
      }
      return null;
    });
    count("prefetch");
    if (bad) {
      // Normalisation: the reference's prefetch is IndexInput's no-op and checks nothing.
      if (!(a.error instanceof IllegalArgumentException)) {
        throw failure(what + ": expected IllegalArgumentException, got " + a.describe(), a.error);
      }
      stats.exceptionsMatched++;
      note(what + " -> iae");
      return;
    }
    if (a.error != null) {
      throw failure(what + " threw", a.error);
    }
    note(what);
    if (!h.isRandomAccess()) {
      comparePointers(h, what);
    }
  }

  // ---- reads ----

  private void readOne(Handle h) throws IOException {
    if (h.isRandomAccess() || r.nextInt(4) == 0) {
      randomAccessRead(h);
    } else {
      sequentialRead(h);
    }
  }

  /** Padding around destination arrays; filled identically on both sides and compared. */
  private byte[] paddedBytes(int offset, int len, int pad, long fill) {
    byte[] b = new byte[Math.max(0, offset + len + pad)];
    new Random(fill).nextBytes(b);
    return b;
  }

  private int readLength(int max) {
    return switch (r.nextInt(8)) {
      case 0 -> 0;
      case 1, 2, 3 -> 1 + r.nextInt(Math.min(max, 64));
      case 4, 5 -> 1 + r.nextInt(Math.min(max, 5_000));
      default -> 1 + r.nextInt(max);
    };
  }

  @SuppressWarnings("deprecation") // readGroupVInt is deprecated in Lucene 10 but still callable
  private void sequentialRead(Handle h) throws IOException {
    long fill = r.nextLong();
    int pad = r.nextInt(16);
    int kind = r.nextInt(19);
    String what;
    SeqCall call;
    boolean lenient = false;
    long maxBytes = Long.MAX_VALUE; // the most bytes the call can read
    switch (kind) {
      case 0 -> {
        what = "readByte";
        call = IndexInput::readByte;
      }
      case 1 -> {
        what = "readShort";
        maxBytes = 2;
        call = IndexInput::readShort;
      }
      case 2 -> {
        what = "readInt";
        maxBytes = 4;
        call = IndexInput::readInt;
      }
      case 3 -> {
        what = "readLong";
        maxBytes = 8;
        call = IndexInput::readLong;
      }
      case 4 -> {
        what = "readVInt";
        call = IndexInput::readVInt;
      }
      case 5 -> {
        what = "readVLong";
        call = IndexInput::readVLong;
      }
      case 6 -> {
        what = "readZInt";
        call = IndexInput::readZInt;
      }
      case 7 -> {
        what = "readZLong";
        call = IndexInput::readZLong;
      }
      case 8, 9, 10, 11 -> {
        int len = readLength(100_000);
        int off = r.nextInt(8);
        boolean useBuffer = r.nextBoolean();
        boolean four = kind == 11;
        what = "readBytes(off=" + off + ",len=" + len + (four ? ",useBuffer=" + useBuffer : "") + ")";
        maxBytes = len;
        call = in -> {
          byte[] b = paddedBytes(off, len, pad, fill);
          if (four) {
            in.readBytes(b, off, len, useBuffer);
          } else {
            in.readBytes(b, off, len);
          }
          return b;
        };
      }
      case 12 -> {
        // Bad arguments: a range outside the array, or a negative length.
        int len = r.nextInt(40) - 5;
        int off = r.nextInt(20) - 4;
        int size = r.nextInt(30);
        what = "readBytes(byte[" + size + "],off=" + off + ",len=" + len + ")";
        // Which check fails first (array bounds or end of file) is not specified.
        lenient = off < 0 || len < 0 || off + len > size;
        call = in -> {
          byte[] b = new byte[size];
          in.readBytes(b, off, len);
          return b;
        };
      }
      case 13 -> {
        int count = readLength(3_000) / 8;
        int off = r.nextInt(4);
        what = "readLongs(count=" + count + ")";
        maxBytes = 8L * count;
        call = in -> {
          long[] d = new long[off + count + pad];
          Arrays.fill(d, fill);
          in.readLongs(d, off, count);
          return d;
        };
      }
      case 14 -> {
        int count = readLength(3_000) / 4;
        int off = r.nextInt(4);
        what = "readInts(count=" + count + ")";
        maxBytes = 4L * count;
        call = in -> {
          int[] d = new int[off + count + pad];
          Arrays.fill(d, (int) fill);
          in.readInts(d, off, count);
          return d;
        };
      }
      case 15 -> {
        int count = readLength(3_000) / 4;
        int off = r.nextInt(4);
        what = "readFloats(count=" + count + ")";
        maxBytes = 4L * count;
        call = in -> {
          float[] d = new float[off + count + pad];
          Arrays.fill(d, (float) fill);
          in.readFloats(d, off, count);
          return d;
        };
      }
      case 16 -> {
        int off = r.nextInt(4);
        what = "readGroupVInt";
        call = in -> {
          int[] d = new int[off + 4 + pad];
          in.readGroupVInt(d, off);
          return d;
        };
      }
      case 17 -> {
        long n = r.nextInt(10) == 0 ? -1 - r.nextInt(3) : r.nextInt(r.nextBoolean() ? 16 : 50_000);
        what = "skipBytes(" + n + ")";
        if (n < 0 && h.dead()) {
          return; // IndexInput.skipBytes (Lucene's) checks its argument before anything else
        }
        call = in -> {
          in.skipBytes(n);
          return null;
        };
      }
      default -> {
        // readString reads a vInt length then allocates it: only where the reference says the
        // length is sane, so that garbage cannot ask for gigabytes.
        if (!h.dead() && !saneStringAhead(h.ref)) {
          count("readString-skipped");
          return;
        }
        what = "readString";
        call = IndexInput::readString;
      }
    }
    sequential(h, what, call, lenient, maxBytes);
    stats.readCalls++;
  }

  private static boolean saneStringAhead(IndexInput in) {
    try {
      IndexInput peek = in.clone();
      int len = peek.readVInt();
      return len >= 0 && len <= peek.length() - peek.getFilePointer();
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private void randomAccessRead(Handle h) throws IOException {
    long length = h.length();
    long pos = randomPosition(length);
    long fill = r.nextLong();
    int pad = r.nextInt(16);
    String what;
    RaCall call;
    int size; // bytes the call reads
    switch (r.nextInt(5)) {
      case 0 -> {
        size = 1;
        what = "readByte(" + pos + ")";
        call = in -> in.readByte(pos);
      }
      case 1 -> {
        size = 2;
        what = "readShort(" + pos + ")";
        call = in -> in.readShort(pos);
      }
      case 2 -> {
        size = 4;
        what = "readInt(" + pos + ")";
        call = in -> in.readInt(pos);
      }
      case 3 -> {
        size = 8;
        what = "readLong(" + pos + ")";
        call = in -> in.readLong(pos);
      }
      default -> {
        int len = readLength(100_000);
        int off = r.nextInt(8);
        size = len;
        what = "readBytes(" + pos + ",off=" + off + ",len=" + len + ")";
        call = in -> {
          byte[] b = paddedBytes(off, len, pad, fill);
          in.readBytes(pos, b, off, len);
          return b;
        };
      }
    }
    stats.readCalls++;
    String full = "ra." + what + " on " + h;
    RandomAccessInput a = h.isRandomAccess() ? h.raOurs : (RandomAccessInput) h.ours;
    RandomAccessInput b = h.isRandomAccess() ? h.raRef : (RandomAccessInput) h.ref;
    if (h.dead()) {
      expectClosed(h, full, () -> call.apply(a));
      return;
    }
    long refPointer = h.isRandomAccess() ? 0 : h.ref.getFilePointer();
    if (pos < 0) {
      // Normalisation: a negative position must fail on ours. ByteBuffersDirectory's slices read
      // before their start instead (they return bytes of the enclosing file), so it is not asked.
      Outcome oa = outcome(() -> call.apply(a));
      if (!(oa.error instanceof IllegalArgumentException)) {
        throw failure(full + ": expected IllegalArgumentException for a negative position, got " + oa.describe(), oa.error);
      }
      stats.exceptionsMatched++;
      count("ra.negative");
      note(full + " -> iae");
      if (!h.isRandomAccess()) {
        h.ours.seek(refPointer);
      }
      return;
    }
    Outcome oa = outcome(() -> call.apply(a));
    Outcome ob = outcome(() -> call.apply(b));
    if (ob.error instanceof IndexOutOfBoundsException && pos >= 0 && size > length - pos) {
      // Normalisation: ByteBuffersDirectory's random-access slices fail a positional read past
      // the end with IndexOutOfBoundsException; MMapDirectory and BufferedIndexInput (and ours)
      // throw EOFException.
      ob = new Outcome(null, new EOFException("reference: " + ob.error));
    }
    if (ob.error == null && size == 0 && pos > length && oa.error instanceof EOFException) {
      // Normalisation: ByteBuffersDirectory reads nothing past the end without a look at the
      // position; MMapDirectory (MemorySegment.copy) and ours may refuse the position with EOFException.
      ob = new Outcome(null, new EOFException("reference: nothing read at " + pos + " past the end " + length));
    }
    oa = recoverFromFault(full, h, oa, ob, () -> {
      if (!h.isRandomAccess()) {
        h.ours.seek(refPointer);
      }
      return call.apply(a);
    });
    compare(full, oa, ob);
    count("ra." + what.substring(0, what.indexOf('(')));
    if (!h.isRandomAccess()) {
      // Normalisation: a positional read may move our pointer (as BufferedIndexInput's does).
      h.ours.seek(h.ref.getFilePointer());
    }
  }

  /** Runs a sequential call on both sides and compares results and pointers. */
  private void sequential(Handle h, String what, SeqCall call, boolean lenient, long maxBytes)
      throws IOException {
    String full = what + " on " + h;
    if (h.dead()) {
      expectClosed(h, full, () -> call.apply(h.ours));
      return;
    }
    long before = h.ref.getFilePointer();
    if (h.ours.getFilePointer() != before) {
      throw failure("pointer of " + h + " before " + what + ": ours " + h.ours.getFilePointer() + " reference " + before);
    }
    Outcome a = outcome(() -> call.apply(h.ours));
    Outcome b = outcome(() -> call.apply(h.ref));
    a = recoverFromFault(full, h, a, b, () -> {
      h.ours.seek(before);
      return call.apply(h.ours);
    });
    if (!lenient
        && a.error instanceof EOFException
        && b.error instanceof IndexOutOfBoundsException
        && h.length() - before < maxBytes) {
      // Normalisation: ByteBuffersDataInput.readInt/readLong/... fail a read past the end of
      // the data with IndexOutOfBoundsException (from ByteBuffer.getInt) instead of EOFException.
      b = new Outcome(null, new EOFException("reference: " + b.error));
    }
    if (lenient && a.error != null && b.error != null) {
      String ka = kindOf(a.error);
      String kb = kindOf(b.error);
      if ((ka.equals("badarg") || ka.equals("eof")) && (kb.equals("badarg") || kb.equals("eof"))) {
        b = new Outcome(null, a.error);
      }
    } else if (lenient && a.error != null && b.error == null && kindOf(a.error).equals("badarg")) {
      // Normalisation: ByteBuffersDataInput reads nothing for a negative length or offset and
      // does not complain; ours refuses the bad range, as MemorySegment.copy does.
      b = new Outcome(null, a.error);
    }
    if (lenient && a.error == null) {
      throw failure(full + ": a bad array range was read without an exception, result " + a.describe());
    }
    compare(full, a, b);
    String name = what.contains("(") ? what.substring(0, what.indexOf('(')) : what;
    count(name);
    if (a.error != null) {
      // Both threw: where a failed call leaves the pointer is unspecified; go back.
      h.ours.seek(before);
      h.ref.seek(before);
    } else {
      comparePointers(h, full);
    }
  }

  /**
   * If our call failed because of an injected error: checks the exception, then makes the call
   * again with injection suspended and returns that outcome (to be compared with the reference).
   */
  private Outcome recoverFromFault(String what, Handle h, Outcome a, Outcome b, SeqRetry retry) {
    FaultInjection.Injected f = errorFault();
    if (f == null) {
      return a;
    }
    if (a.error == null) {
      throw failure(what + ": an injected " + f.call() + "/" + f.kind() + " at offset " + f.offset() + " was swallowed; result "
          + a.describe() + " reference " + b.describe(), errorFaultSite);
    }
    if (!(a.error instanceof NativeIOException e)) {
      throw failure(what + ": an injected " + f.kind() + " surfaced as " + a.error, a.error);
    }
    checkMessage(e, f, h.file);
    faults.setEnabled(false);
    try {
      Outcome again = outcome(retry::apply);
      surfaced(f);
      note(what + " failed under " + f.kind() + " at offset " + f.offset() + "; again: " + again.describe());
      return again;
    } finally {
      faults.setEnabled(true);
    }
  }

  @FunctionalInterface
  private interface SeqRetry {
    Object apply() throws IOException;
  }

  /** The first error (non-transparent) fault injected in this step, or null. */
  private FaultInjection.Injected errorFault() {
    synchronized (stepFaults) {
      for (FaultInjection.Injected f : stepFaults) {
        if (!f.kind().isTransparent()) {
          return f;
        }
      }
      return null;
    }
  }

  private void surfaced(FaultInjection.Injected f) {
    stats.errorsSurfacedThenCorrect.merge(f.call() + "/" + f.kind(), 1L, Long::sum);
    synchronized (stepFaults) {
      stepFaults.clear();
    }
  }

  /** The message must name the path, the call, the offset (for pread) and the errno. */
  private void checkMessage(NativeIOException e, FaultInjection.Injected f, String file) {
    String m = e.getMessage();
    String op =
        switch (f.call()) {
          case OPEN -> "open";
          case STATX -> "statx";
          case PREAD -> ours instanceof CachedPreadDirectory ? "preadv" : "pread"; // a cache reads blocks vectored
          case CLOSE -> "close";
        };
    // An adaptive input reads the block cache (preadv) or the page cache (pread), whichever its path is now.
    String or = ours instanceof AdaptiveDirectory && f.call() == Call.PREAD ? "preadv" : op;
    boolean ok =
        m.contains(realRoot.resolve(file).toString())
            && (m.contains(op + " failed") || m.contains(op + " (O_DIRECT) failed")
                || m.contains(or + " failed") || m.contains(or + " (O_DIRECT) failed"))
            && m.contains(f.kind().name())
            && e.errno() == f.kind().errno
            && (f.call() != Call.PREAD || (m.contains("offset " + f.offset()) && e.offset() == f.offset()));
    if (!ok) {
      throw failure("message of an injected " + f.call() + "/" + f.kind() + " (offset " + f.offset() + ") does not name path, call, offset and errno: " + m, e);
    }
  }

  // ---- comparison ----

  @FunctionalInterface
  private interface Thrower {
    Object call() throws IOException;
  }

  private static Outcome outcome(Thrower t) {
    try {
      return new Outcome(t.call(), null);
    } catch (IOException | RuntimeException e) {
      return new Outcome(null, e);
    }
  }

  private void expectClosed(Handle h, String what, Thrower t) {
    Outcome a = outcome(t);
    if (!(a.error instanceof AlreadyClosedException)) {
      throw failure(what + " on " + h + " after its original was closed: expected AlreadyClosedException, got " + a.describe(), a.error);
    }
    stats.closedChecks++;
    count("closedCheck");
    note(what + " on closed " + h + " -> closed");
  }

  static String kindOf(Throwable e) {
    if (e instanceof AlreadyClosedException) {
      return "closed";
    }
    if (e instanceof EOFException) {
      return "eof";
    }
    if (e instanceof NoSuchFileException || e instanceof FileNotFoundException) {
      return "nofile";
    }
    if (e instanceof IllegalArgumentException || e instanceof IndexOutOfBoundsException) {
      return "badarg";
    }
    if (e instanceof NativeIOException n) {
      return "native(" + n.errno() + ")";
    }
    return e.getClass().getName();
  }

  private void compare(String what, Outcome a, Outcome b) {
    stats.comparedCalls++;
    if (a.error != null || b.error != null) {
      if (a.error == null || b.error == null || !kindOf(a.error).equals(kindOf(b.error))) {
        throw failure(what + ": ours " + a.describe() + ", reference " + b.describe(), a.error != null ? a.error : b.error);
      }
      stats.exceptionsMatched++;
      note(what + " -> " + a.describe() + " (both)");
      return;
    }
    if (!Objects.deepEquals(a.value, b.value)) {
      String detail = a.value instanceof byte[] x && b.value instanceof byte[] y ? " first difference at index " + Arrays.mismatch(x, y) : "";
      throw failure(what + ": ours " + show(a.value) + ", reference " + show(b.value) + detail);
    }
    stats.bytesCompared += bytesOf(b.value);
    note(what + " -> " + show(a.value));
  }

  private static long bytesOf(Object v) {
    return switch (v) {
      case null -> 0;
      case byte[] b -> b.length;
      case long[] l -> 8L * l.length;
      case int[] i -> 4L * i.length;
      case float[] f -> 4L * f.length;
      case Long l -> 8;
      case Integer i -> 4;
      case Short s -> 2;
      case Byte b -> 1;
      case String s -> s.length();
      default -> 0;
    };
  }

  private void comparePointers(Handle h, String what) {
    long a = h.ours.getFilePointer();
    long b = h.ref.getFilePointer();
    if (a != b) {
      throw failure("file pointer after " + what + ": ours " + a + ", reference " + b);
    }
  }

  private static String show(Object v) {
    return switch (v) {
      case null -> "ok";
      case byte[] b -> "byte[" + b.length + "]#" + Arrays.hashCode(b);
      case long[] l -> "long[" + l.length + "]#" + Arrays.hashCode(l);
      case int[] i -> "int[" + i.length + "]#" + Arrays.hashCode(i);
      case float[] f -> "float[" + f.length + "]#" + Arrays.hashCode(f);
      case String s -> "string(" + s.length() + ")";
      case IndexInput in -> "input";
      default -> String.valueOf(v);
    };
  }

  // ---- bookkeeping ----

  private long liveOriginals() {
    return handles.stream().filter(h -> h.root == h && !h.closed).count();
  }

  private Handle randomOriginal() {
    List<Handle> live = handles.stream().filter(h -> h.root == h && !h.closed).toList();
    return live.get(r.nextInt(live.size()));
  }

  /** Mostly a handle whose original is open; sometimes any handle, to exercise closed ones. */
  private Handle randomHandle() {
    if (r.nextInt(10) == 0) {
      return handles.get(r.nextInt(handles.size()));
    }
    List<Handle> live = handles.stream().filter(h -> !h.dead()).toList();
    return live.isEmpty() ? handles.get(r.nextInt(handles.size())) : live.get(r.nextInt(live.size()));
  }

  /** Forgets clones and slices (Lucene never closes them) and closed originals. */
  private void forgetSome() {
    for (int i = 0; i < 8 && handles.size() > MAX_HANDLES / 2; i++) {
      int k = r.nextInt(handles.size());
      Handle h = handles.get(k);
      if (h.root != h || h.closed) {
        handles.remove(k);
      }
    }
  }

  private void count(String op) {
    stats.byOp.merge(op, 1L, Long::sum);
  }

  private void note(String s) {
    if (log.size() == LOG_TAIL) {
      log.removeFirst();
    }
    log.addLast("#" + stats.ops + " " + s);
  }

  private AssertionError failure(String message) {
    return failure(message, null);
  }

  private AssertionError failure(String message, Throwable cause) {
    StringBuilder sb = new StringBuilder();
    sb.append("differential fuzz mismatch (seed=0x").append(Long.toHexString(seed))
        .append(", mode=").append(mode).append(", op #").append(stats.ops).append("): ")
        .append(message).append("\nlast operations:\n");
    for (String s : log) {
      sb.append("  ").append(s).append('\n');
    }
    sb.append("reproduce: -Dpread.fuzz.seed=0x").append(Long.toHexString(seed));
    AssertionError e = new AssertionError(sb.toString(), cause);
    if (errorFaultSite != null && errorFaultSite != cause) {
      e.addSuppressed(errorFaultSite);
    }
    return e;
  }

}
