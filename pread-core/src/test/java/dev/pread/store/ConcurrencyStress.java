package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.nativeio.FaultInjection;
import dev.pread.nativeio.FaultInjection.Call;
import dev.pread.nativeio.FaultInjection.Kind;
import dev.pread.nativeio.NativeBuffers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Predicate;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.Unwrappable;

/**
 * Concurrency stress, bounded in time: reader threads read clones, slices, slices of slices and
 * random-access slices of shared inputs with every read method, and verify every byte against the
 * file's known content (each file has different content, so a read through a reused descriptor is
 * caught). Meanwhile closer threads close the shared inputs under them, open replacements and at
 * once open and close other files so that the kernel hands the freed descriptor numbers out
 * again; readers also open private inputs. Optionally an interrupter interrupts every reader
 * continuously, and EINTR and short reads are injected. Afterwards no descriptor may be left under
 * the directory and the native buffer counters must be back where they started.
 *
 * <p>The run lasts {@link Config#durationMillis}, then goes on until {@link Config#until} holds
 * (e.g. every kind of event a test asserts has happened at least once; see {@link
 * Figures#missing}), but no longer than {@link Config#maxMillis}.
 *
 * <p>With {@link Config#cacheBytes} set, the directory is a {@link CachedPreadDirectory} reading
 * through a shared {@link BlockCache} of that size (a few blocks: every read evicts), some inputs
 * open for merging (reading around the cache), and readers prefetch. With {@link
 * Config#adaptiveCacheBytes} set, it is an {@link AdaptiveDirectory} whose inputs all move to the
 * next read path at every open, clone, slice and prefetch, while other threads read them: a read
 * may find its input on the mapping, the block cache or the page cache, and closes unmap files
 * under readers.
 */
final class ConcurrencyStress {
  /** What to run. */
  static final class Config {
    long seed;
    long durationMillis = 3_000;
    int readers = 3;
    int closers = 1;
    int files = 6;
    boolean interrupts;
    /** Injects EINTR and short reads into pread, open, statx and close (needs the directory to itself). */
    boolean transparentFaults;
    /** Above 0: read through a block cache of this many bytes (CachedPreadDirectory). */
    long cacheBytes;
    /** Block size of that cache. */
    int cacheBlockSize = BlockCache.DEFAULT_BLOCK_SIZE;
    /**
     * Above 0 (and {@link #cacheBytes} 0): an {@link AdaptiveDirectory} that moves every input to
     * the next read path (mapping, block cache of this many bytes, page cache) at every open,
     * clone, slice and prefetch.
     */
    long adaptiveCacheBytes;
    /** After {@link #durationMillis}, the run goes on until this holds (checked every few ms). */
    Predicate<Figures> until = f -> true;
    /** The longest the run may last while {@link #until} does not hold; at least the duration. */
    long maxMillis;
  }

  /** What happened. */
  static final class Figures {
    long millis;
    final AtomicLong reads = new AtomicLong();
    final AtomicLong bytesVerified = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    final AtomicLong closesUnderReaders = new AtomicLong();
    final AtomicLong churnOpens = new AtomicLong();
    final AtomicLong privateOpens = new AtomicLong();
    final AtomicLong alreadyClosedSeen = new AtomicLong();
    final AtomicLong interrupts = new AtomicLong();
    /** Reads started by a reader whose interrupt flag was set. */
    final AtomicLong readsWhileInterrupted = new AtomicLong();
    /** Churn opens that got a descriptor number freed by closing an input under the readers. */
    final AtomicLong descriptorReuses = new AtomicLong();
    /** Verified reads by read method (see {@link #METHODS}). */
    final AtomicLongArray readsByMethod = new AtomicLongArray(METHODS.size());
    /** Verified reads by the kind of input read (see {@link #VIEWS}). */
    final AtomicLongArray readsByView = new AtomicLongArray(VIEWS.size());
    /** While running: the fault injector, whose counts {@link #events()} reads. */
    volatile FaultInjection liveFaults;
    /** While running: the block cache, whose statistics {@link #events()} reads. */
    volatile BlockCache liveCache;
    /** Faults injected, by "CALL/KIND". */
    Map<String, Long> faults = Map.of();
    long fdsUnderBefore;
    long fdsUnderAfter;
    long fdsTotalBefore;
    long fdsTotalAfter;
    long buffersBefore;
    long buffersAfter;
    long bufferBytesBefore;
    long bufferBytesAfter;
    String firstWrong;
    /** The block cache's statistics at the end, or null without a cache. */
    dev.pread.cache.BlockCacheStats cacheStats;

    /**
     * How often each kind of event has happened so far, by name: "read method M" and "read of V"
     * for each of {@link #METHODS} and {@link #VIEWS}, the counters above, the faults injected
     * ("PREAD/EINTR", ...) and, with a cache, "evictions" and "reads around the cache".
     */
    Map<String, Long> events() {
      Map<String, Long> m = new LinkedHashMap<>();
      for (int i = 0; i < METHODS.size(); i++) {
        m.put("read method " + METHODS.get(i), readsByMethod.get(i));
      }
      for (int i = 0; i < VIEWS.size(); i++) {
        m.put("read of " + VIEWS.get(i), readsByView.get(i));
      }
      m.put("closes under readers", closesUnderReaders.get());
      m.put("AlreadyClosedException seen", alreadyClosedSeen.get());
      m.put("churn opens", churnOpens.get());
      m.put("descriptor reuses", descriptorReuses.get());
      m.put("private opens", privateOpens.get());
      m.put("interrupts sent", interrupts.get());
      m.put("reads while interrupted", readsWhileInterrupted.get());
      FaultInjection f = liveFaults;
      m.putAll(f != null ? f.counts() : faults);
      BlockCache c = liveCache;
      dev.pread.cache.BlockCacheStats stats = c != null ? c.stats() : cacheStats;
      if (stats != null) {
        m.put("evictions", stats.evictions());
        m.put("reads around the cache", stats.readAround());
      }
      return m;
    }

    /** The events among {@code required} (names as in {@link #events()}) that have not happened. */
    List<String> missing(List<String> required) {
      Map<String, Long> now = events();
      List<String> missing = new ArrayList<>();
      for (String name : required) {
        if (now.getOrDefault(name, 0L) == 0) {
          missing.add(name);
        }
      }
      return missing;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%.1f s: %,d reads verified (%,d bytes), %d wrong; %,d closes under readers, %,d churn opens,"
              + " %,d private opens, %,d AlreadyClosedException seen, %,d descriptor reuses, %,d interrupts"
              + " (%,d reads started interrupted); faults %s;"
              + " descriptors under the directory %d -> %d (process %d -> %d); native buffers %d -> %d"
              + " (%,d -> %,d bytes)",
          millis / 1000.0, reads.get(), bytesVerified.get(), wrong.get(), closesUnderReaders.get(),
          churnOpens.get(), privateOpens.get(), alreadyClosedSeen.get(), descriptorReuses.get(),
          interrupts.get(), readsWhileInterrupted.get(), faults,
          fdsUnderBefore, fdsUnderAfter, fdsTotalBefore, fdsTotalAfter, buffersBefore, buffersAfter,
          bufferBytesBefore, bufferBytesAfter)
          + (cacheStats == null ? "" : "; cache " + cacheStats);
    }
  }

  private record Current(IndexInput input, int file) {}

  /** The read methods, in the order of {@code readAndVerify}'s cases. */
  static final List<String> METHODS =
      List.of("readLong(pos)", "readInt(pos)", "readByte(pos)", "readShort(pos)", "readBytes(pos)",
          "readBytes (short)", "readBytes (long)", "readLongs", "readByte+readInt");

  /** The kinds of input read. */
  static final List<String> VIEWS =
      List.of("a clone", "a slice", "a slice of a slice", "a random-access slice", "a private input");

  private static final int SLOTS = 3;

  private ConcurrencyStress() {}

  private static long seedOf(long base, int file) {
    return base * 31 + file;
  }

  /**
   * Runs the stress in {@code root} (an empty test directory). Throws on an unexpected exception
   * or a leak; wrong reads are counted in the figures (and described in {@code firstWrong}).
   */
  static Figures run(Path root, Config c) throws Exception {
    Random r = new Random(c.seed);
    Path realRoot = Unwrappable.unwrapAll(root).toAbsolutePath();
    Figures fig = new Figures();
    int bufferSize = r.nextBoolean() ? PreadDirectory.DEFAULT_BUFFER_SIZE : 64 + r.nextInt(20_000);
    long[] lengths = new long[c.files];
    long contentSeed = r.nextLong();
    BlockCache cache =
        c.cacheBytes > 0
            ? BlockCache.builder(c.cacheBytes)
                .blockSize(c.cacheBlockSize)
                .prefetchThreads(1 + r.nextInt(2))
                .maxPrefetchBlocks(1 + r.nextInt(16))
                .name("stress")
                .build()
            : null;
    try (BlockCache closedLast = cache;
        FSDirectory dir =
            cache != null
                ? new CachedPreadDirectory(root, FSLockFactory.getDefault(), cache)
                : c.adaptiveCacheBytes > 0
                    ? new AdaptiveDirectory(root, FSLockFactory.getDefault(),
                        AdaptiveDirectory.regime(AdaptiveRegime.Mode.ALTERNATE, c.adaptiveCacheBytes))
                    : new PreadDirectory(root, FSLockFactory.getDefault(), bufferSize)) {
      if (dir instanceof PreadDirectory p && !p.isNativePread()) {
        throw new IllegalStateException("PreadDirectory is not reading natively");
      }
      if (dir instanceof CachedPreadDirectory cd && !cd.isCached()) {
        throw new IllegalStateException("CachedPreadDirectory is not reading through its cache");
      }
      if (dir instanceof AdaptiveDirectory && !dev.pread.nativeio.NativeAccess.isAvailable()) {
        throw new IllegalStateException("AdaptiveDirectory reads mappings only without native access");
      }
      for (int i = 0; i < c.files; i++) {
        lengths[i] = 64 * 1024 + r.nextInt(960 * 1024);
        TestContent.write(dir, "f" + i, seedOf(contentSeed, i), lengths[i]);
      }
      FaultInjection.allocateWholeBufferPool();
      fig.fdsUnderBefore = OpenDescriptors.under(realRoot);
      fig.fdsTotalBefore = OpenDescriptors.total();
      fig.buffersBefore = NativeBuffers.liveBuffers();
      fig.bufferBytesBefore = NativeBuffers.liveBytes();

      FaultInjection faults = c.transparentFaults ? FaultInjection.install(root) : null;
      fig.liveFaults = faults;
      fig.liveCache = cache;
      try {
        if (faults != null) {
          long fs = r.nextLong();
          faults.random(Call.PREAD, 0.05, fs, Kind.EINTR, Kind.SHORT_READ)
              .random(Call.OPEN, 0.05, fs + 1, Kind.EINTR)
              .random(Call.STATX, 0.05, fs + 2, Kind.EINTR)
              .random(Call.CLOSE, 0.05, fs + 3, Kind.EINTR);
        }
        AtomicReferenceArray<Current> slots = new AtomicReferenceArray<>(SLOTS);
        for (int s = 0; s < SLOTS; s++) {
          int f = r.nextInt(c.files);
          slots.set(s, new Current(dir.openInput("f" + f, IOContext.DEFAULT), f));
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stop = new AtomicBoolean();
        long start = System.nanoTime();
        long deadline = start + c.durationMillis * 1_000_000L;
        long limit = start + Math.max(c.durationMillis, c.maxMillis) * 1_000_000L;
        List<Thread> readers = new ArrayList<>();
        List<Thread> others = new ArrayList<>();
        for (int t = 0; t < c.readers; t++) {
          long ts = r.nextLong();
          readers.add(new Thread(() -> {
            try {
              readLoop(dir, new Random(ts), slots, lengths, contentSeed, stop, fig);
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            } finally {
              Thread.interrupted();
            }
          }, "stress-reader-" + t));
        }
        for (int t = 0; t < c.closers; t++) {
          long ts = r.nextLong();
          others.add(new Thread(() -> {
            try {
              closeLoop(dir, realRoot, new Random(ts), slots, lengths, contentSeed, c.files, stop, fig, failure);
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          }, "stress-closer-" + t));
        }
        if (c.interrupts) {
          others.add(new Thread(() -> {
            // Continuously: no pause between rounds.
            while (!stop.get() && failure.get() == null) {
              for (Thread t : readers) {
                t.interrupt();
              }
              fig.interrupts.addAndGet(readers.size());
            }
          }, "stress-interrupter"));
        }
        readers.forEach(Thread::start);
        others.forEach(Thread::start);
        // Until the duration has passed and the events asked for have happened, or the limit.
        while (failure.get() == null) {
          long now = System.nanoTime();
          if (now - deadline >= 0 && (now - limit >= 0 || c.until.test(fig))) {
            break;
          }
          Thread.sleep(5);
        }
        stop.set(true);
        for (Thread t : readers) {
          t.join();
        }
        for (Thread t : others) {
          t.join();
        }
        fig.millis = (System.nanoTime() - start) / 1_000_000;
        for (int s = 0; s < SLOTS; s++) {
          slots.get(s).input().close();
        }
        if (failure.get() != null) {
          throw new AssertionError("stress failed (seed=0x" + Long.toHexString(c.seed) + ")", failure.get());
        }
      } finally {
        if (faults != null) {
          fig.faults = faults.counts();
          faults.close();
        }
        fig.liveFaults = null;
      }
      fig.fdsUnderAfter = OpenDescriptors.under(realRoot);
      fig.fdsTotalAfter = OpenDescriptors.total();
      fig.buffersAfter = NativeBuffers.liveBuffers();
      fig.bufferBytesAfter = NativeBuffers.liveBytes();
      if (cache != null) {
        fig.cacheStats = cache.stats();
      }
      fig.liveCache = null;
    }
    return fig;
  }

  /** Mostly the default context; with a cache, sometimes a merge's, which reads around it (or, adaptive, maps). */
  private static IOContext context(FSDirectory dir, Random r) {
    return (dir instanceof CachedPreadDirectory || dir instanceof AdaptiveDirectory) && r.nextInt(4) == 0
        ? IOContext.merge(new org.apache.lucene.store.MergeInfo(1, 1, false, 1))
        : IOContext.DEFAULT;
  }

  private static void readLoop(
      FSDirectory dir, Random r, AtomicReferenceArray<Current> slots, long[] lengths,
      long contentSeed, AtomicBoolean stop, Figures fig) throws IOException {
    byte[] b = new byte[40_000];
    long[] longs = new long[512];
    while (!stop.get()) {
      if (r.nextInt(64) == 0) {
        // A private input: opened, read and closed by this thread, among the closers' churn.
        int f = r.nextInt(lengths.length);
        try (IndexInput in = dir.openInput("f" + f, context(dir, r))) {
          fig.privateOpens.incrementAndGet();
          for (int i = 0; i < 4; i++) {
            readAndVerify(in, null, 0, seedOf(contentSeed, f), r, b, longs, fig, 4, "private f" + f);
          }
        }
        continue;
      }
      Current cur = slots.get(r.nextInt(SLOTS));
      long seed = seedOf(contentSeed, cur.file());
      try {
        IndexInput view;
        RandomAccessInput ra = null;
        long base = 0;
        long length = lengths[cur.file()];
        int kind = r.nextInt(4);
        switch (kind) {
          case 0 -> view = cur.input().clone();
          case 1 -> {
            base = r.nextLong(length / 2);
            view = cur.input().slice("s", base, length - base - r.nextLong(length / 4));
          }
          case 2 -> {
            long b1 = r.nextLong(length / 2);
            IndexInput outer = cur.input().slice("s", b1, length - b1);
            long b2 = r.nextLong(outer.length() / 2);
            view = outer.slice("ss", b2, outer.length() - b2);
            base = b1 + b2;
          }
          default -> {
            base = r.nextLong(length / 2);
            ra = cur.input().randomAccessSlice(base, length - base);
            view = null;
          }
        }
        int n = 8 + r.nextInt(56);
        for (int i = 0; i < n; i++) {
          readAndVerify(view, ra, base, seed, r, b, longs, fig, kind, "f" + cur.file());
        }
      } catch (AlreadyClosedException e) {
        fig.alreadyClosedSeen.incrementAndGet();
      }
    }
  }

  /** One read by a random method at a random position of a {@code view} kind, checked byte for byte. */
  private static void readAndVerify(
      IndexInput in, RandomAccessInput ra, long base, long seed, Random r, byte[] b, long[] longs,
      Figures fig, int view, String what) throws IOException {
    if (Thread.currentThread().isInterrupted()) {
      fig.readsWhileInterrupted.incrementAndGet();
    }
    long length = ra != null ? ra.length() : in.length();
    RandomAccessInput pos = ra != null ? ra : (RandomAccessInput) in;
    int method = ra != null ? r.nextInt(5) : r.nextInt(9);
    long p = r.nextLong(Math.max(1, length - 8));
    long bytes;
    boolean ok;
    switch (method) {
      case 0 -> {
        ok = pos.readLong(p) == TestContent.littleEndian(seed, base + p, 8);
        bytes = 8;
      }
      case 1 -> {
        ok = (pos.readInt(p) & 0xFFFFFFFFL) == TestContent.littleEndian(seed, base + p, 4);
        bytes = 4;
      }
      case 2 -> {
        ok = pos.readByte(p) == TestContent.byteAt(seed, base + p);
        bytes = 1;
      }
      case 3 -> {
        ok = (pos.readShort(p) & 0xFFFFL) == TestContent.littleEndian(seed, base + p, 2);
        bytes = 2;
      }
      case 4 -> {
        int len = (int) Math.min(length - p, 1 + r.nextInt(r.nextBoolean() ? 64 : b.length));
        pos.readBytes(p, b, 0, len);
        ok = TestContent.firstMismatch(seed, base + p, b, 0, len) < 0;
        bytes = len;
      }
      case 5, 6 -> {
        int len = (int) Math.min(length - p, method == 5 ? 1 + r.nextInt(100) : 1 + r.nextInt(b.length));
        in.seek(p);
        if (r.nextInt(4) == 0) {
          in.prefetch(p, len);
        }
        in.readBytes(b, 0, len);
        ok = TestContent.firstMismatch(seed, base + p, b, 0, len) < 0;
        bytes = len;
      }
      case 7 -> {
        int count = (int) Math.min((length - p) / 8, 1 + r.nextInt(longs.length));
        in.seek(p);
        in.readLongs(longs, 0, count);
        ok = true;
        for (int k = 0; k < count && ok; k++) {
          ok = longs[k] == TestContent.littleEndian(seed, base + p + 8L * k, 8);
        }
        bytes = 8L * count;
      }
      default -> {
        in.seek(p);
        ok = in.readByte() == TestContent.byteAt(seed, base + p);
        if (ok && p + 5 <= length) {
          ok = (in.readInt() & 0xFFFFFFFFL) == TestContent.littleEndian(seed, base + p + 1, 4);
        }
        bytes = 5;
      }
    }
    fig.reads.incrementAndGet();
    fig.readsByMethod.incrementAndGet(method);
    fig.readsByView.incrementAndGet(view);
    fig.bytesVerified.addAndGet(bytes);
    if (!ok) {
      if (fig.wrong.incrementAndGet() == 1) {
        fig.firstWrong = what + " method " + method + " at " + (base + p);
      }
    }
  }

  private static void closeLoop(
      FSDirectory dir, Path realRoot, Random r, AtomicReferenceArray<Current> slots, long[] lengths,
      long contentSeed, int files, AtomicBoolean stop, Figures fig, AtomicReference<Throwable> failure)
      throws IOException {
    while (!stop.get() && failure.get() == null) {
      // Let the readers get going on the current inputs, then close one under them.
      long until = fig.reads.get() + 50 + r.nextInt(500);
      while (fig.reads.get() < until && !stop.get() && failure.get() == null) {
        Thread.yield();
      }
      int s = r.nextInt(SLOTS);
      int f = r.nextInt(files);
      Current old = slots.getAndSet(s, new Current(dir.openInput("f" + f, context(dir, r)), f));
      Set<Integer> freed = OpenDescriptors.numbersUnder(realRoot);
      old.input().close();
      fig.closesUnderReaders.incrementAndGet();
      // What the close freed (and whatever readers closed meanwhile). Through a block cache the
      // descriptor belongs to the cache's file, not to the input: often nothing.
      freed.removeAll(OpenDescriptors.numbersUnder(realRoot));
      // Churn: these opens take the descriptor numbers just freed.
      int n = r.nextInt(4);
      for (int k = 0; k < n; k++) {
        int other = r.nextInt(files);
        try (IndexInput in = dir.openInput("f" + other, IOContext.DEFAULT)) {
          if (!freed.isEmpty()) {
            Set<Integer> now = OpenDescriptors.numbersUnder(realRoot);
            now.retainAll(freed);
            if (!now.isEmpty()) {
              fig.descriptorReuses.incrementAndGet();
              freed.removeAll(now);
            }
          }
          in.seek(8);
          if (in.readLong() != TestContent.word(seedOf(contentSeed, other), 1)) {
            fig.wrong.incrementAndGet();
          }
        }
        fig.churnOpens.incrementAndGet();
      }
    }
  }
}
