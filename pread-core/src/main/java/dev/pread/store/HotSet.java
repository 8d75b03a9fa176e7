package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.CachedFile;
import dev.pread.nativeio.NativeAccess;
import dev.pread.nativeio.NativeFile;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.util.IOUtils;

/**
 * A directory's hot set: loads the record found at open in the background, and records what is
 * cached periodically and at close. See {@link AdaptiveDirectory} for what it does and costs.
 *
 * <p><b>Threads.</b> Every task runs on {@link HotSetScheduler}'s one thread, under this hot set's
 * lock; a load runs in steps of about {@value #STEP_BYTES} bytes and gives the thread back between
 * them. Nothing here runs on a thread that opens or reads an input, except {@link #noteRead()}
 * (a volatile write).
 *
 * <p><b>When the record is written:</b> every {@value #INTERVAL_PROPERTY} seconds and at close,
 * only once the load at open has finished (a directory closed before that keeps the record it
 * found, which still describes more than the load brought in), only if an input was opened for
 * queries since the directory opened (a directory that only wrote, or never read, leaves the record
 * alone), and only if it changed.
 *
 * <p><b>Errors</b> never reach the directory's user: a record that cannot be read or is invalid is
 * ignored, and failures to record or load are logged at debug level (the first at info).
 *
 * <p>Thread-safe. {@link #close()} stops the load (waiting for its current read), writes the
 * record, closes the block-cache views the load opened, and releases the thread.
 */
final class HotSet implements Closeable {
  /** System property: {@code false} turns hot sets off for directories opened from then on. */
  static final String ENABLED_PROPERTY = "dev.pread.hotset";

  /** System property: seconds between records of an open directory (default 60; 0 for close only). */
  static final String INTERVAL_PROPERTY = "dev.pread.hotset.interval.seconds";

  static final long DEFAULT_INTERVAL_SECONDS = 60;

  /** Bytes a load covers before giving the thread back. */
  static final long STEP_BYTES = 64L << 20;

  private static final System.Logger LOG = System.getLogger(HotSet.class.getName());
  private static volatile boolean failureLogged;

  /** Where a directory's queries read a file now. */
  enum Tier {
    /** The page cache: through mappings, or pread. */
    PAGE_CACHE,
    /** A block cache of the directory's. */
    BLOCK_CACHE
  }

  /** What a hot set needs of its directory. Called on the hot set's thread, and at close. */
  interface Host {
    /** The directory's real path (for the kernel). */
    Path directory();

    /** The directory's files (the record excluded). */
    String[] files() throws IOException;

    /** Where queries read now. */
    Tier tier();

    /** The block cache queries read, created if {@code create} and needed; null if none. */
    BlockCache cache(boolean create) throws IOException;

    /** The most bytes of the directory's files the page cache should hold. */
    long pageCacheBudget();
  }

  private final Host host;
  private final ScheduledExecutorService executor;
  private final ReentrantLock lock = new ReentrantLock();
  private final CompletableFuture<HotSetStats> loaded = new CompletableFuture<>();
  private final Map<String, CachedFile> holds = new ConcurrentHashMap<>();
  private final ScheduledFuture<?> periodic;

  /** Set first thing by close: the load stops at its next piece, queued tasks return at once. */
  private volatile boolean closing;
  private volatile boolean served;
  /** Guarded by lock. */
  private HotSetLoader loader;
  /** True once the load at open has gone through its record (or found none). Guarded by lock. */
  private boolean loadFinished;
  /** The record read at open or last written. Guarded by lock. */
  private HotSetRecord last;

  private volatile long recordedRanges, recordedBytes;
  private volatile HotSetLoader stats;

  /** For tests: runs before each piece of the load, on the hot set's thread, under its lock. */
  volatile Runnable beforePiece;

  /** True unless the system property {@value #ENABLED_PROPERTY} is {@code false} or native access is off. */
  static boolean enabled() {
    return BooleanProperty.read(ENABLED_PROPERTY, true) && NativeAccess.isAvailable();
  }

  static long intervalSeconds() {
    String value = System.getProperty(INTERVAL_PROPERTY);
    if (value == null || value.isBlank()) {
      return DEFAULT_INTERVAL_SECONDS;
    }
    return NumberProperty.parse(INTERVAL_PROPERTY, value, 0, Long.MAX_VALUE, "a number of seconds, 0 or more");
  }

  /** Starts the hot set of {@code host}: its load now, its records every interval. */
  HotSet(Host host) {
    this.host = host;
    long interval = intervalSeconds();
    this.executor = HotSetScheduler.acquire();
    ScheduledFuture<?> p = null;
    try {
      executor.execute(this::start);
      if (interval > 0) {
        p = executor.scheduleWithFixedDelay(this::periodicRecord, interval, interval, TimeUnit.SECONDS);
      }
    } catch (RuntimeException e) {
      HotSetScheduler.release();
      throw e;
    }
    this.periodic = p;
  }

  /** {@code names} without the record's and its temporary file's. */
  static String[] withoutRecord(String[] names) {
    int keep = 0;
    for (String name : names) {
      if (!isRecord(name)) {
        keep++;
      }
    }
    if (keep == names.length) {
      return names;
    }
    String[] out = new String[keep];
    int i = 0;
    for (String name : names) {
      if (!isRecord(name)) {
        out[i++] = name;
      }
    }
    return out;
  }

  static boolean isRecord(String name) {
    return name.equals(HotSetRecord.FILE_NAME) || name.equals(HotSetRecord.TEMP_NAME);
  }

  /** An input was opened for queries: the record may be rewritten from now on. */
  void noteRead() {
    served = true;
  }

  /** Completes with the load's counters when it has finished, stopped at close, or found no record. */
  CompletableFuture<HotSetStats> loaded() {
    return loaded;
  }

  boolean isClosing() {
    return closing;
  }

  /** Reads the record and starts loading it. */
  private void start() {
    lock.lock();
    try {
      if (closing) {
        return;
      }
      HotSetRecord record = null;
      try {
        record = HotSetRecord.read(host.directory());
      } catch (IOException | RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "hot set of {0}: ignoring its record: {1}", host.directory(), e.getMessage());
      }
      if (record == null || record.entries.isEmpty()) {
        last = record;
        finishLoad();
        return;
      }
      last = record;
      recordedRanges = record.ranges();
      recordedBytes = record.bytes();
      loader = new HotSetLoader(host, record, this::hold, this::stopLoading);
      stats = loader;
    } finally {
      lock.unlock();
    }
    loadStep();
  }

  /** Loads one step, and submits the next. */
  private void loadStep() {
    boolean more = false;
    lock.lock();
    try {
      if (closing || loader == null) {
        return;
      }
      more = loader.step(STEP_BYTES);
    } catch (IOException | RuntimeException e) {
      logFailure("loading", e);
    } finally {
      if (!more && !closing && loader != null) {
        finishLoad();
      }
      lock.unlock();
    }
    if (more) {
      try {
        executor.execute(this::loadStep);
      } catch (RejectedExecutionException e) {
        // the scheduler stopped: this directory is closing
      }
    }
  }

  /** True once the load should stop: the directory is closing. */
  private boolean stopLoading() {
    Runnable hook = beforePiece;
    if (hook != null) {
      hook.run();
    }
    return closing;
  }

  /** Ends the load (caller holds the lock): closes its file and completes {@link #loaded()}. */
  private void finishLoad() {
    if (loader != null) {
      try {
        loader.close();
      } catch (IOException | RuntimeException e) {
        logFailure("closing the load of", e);
      }
      loader = null;
    }
    loadFinished = true;
    loaded.complete(stats(false));
  }

  private CachedFile hold(String name, BlockCache cache, NativeFile file) throws IOException {
    CachedFile held = holds.get(name);
    if (held == null || held.isClosed()) {
      held = cache.open(file, true);
      CachedFile previous = holds.put(name, held);
      IOUtils.close(previous);
    }
    return held;
  }

  /** The directory deleted {@code name}: lets its blocks go with the last input reading it. */
  void release(String name) {
    CachedFile held = holds.remove(name);
    if (held != null) {
      IOUtils.closeWhileHandlingException(held);
    }
  }

  private void periodicRecord() {
    try {
      record(false);
    } catch (RuntimeException e) {
      logFailure("recording", e);
    }
  }

  /**
   * Records the hot set now, if the rules of the class comment allow.
   *
   * @param atClose true when called by {@link #close()}; otherwise nothing is recorded once close began
   * @return true if a record was written
   */
  boolean record(boolean atClose) {
    lock.lock();
    try {
      if (!loadFinished || !served || (closing && !atClose)) {
        return false;
      }
      Tier tier = host.tier();
      BlockCache cache = tier == Tier.BLOCK_CACHE ? host.cache(false) : null;
      long budget = tier == Tier.BLOCK_CACHE ? (cache == null ? 0 : cache.budgetBytes()) : host.pageCacheBudget();
      HotSetRecord now = HotSetRecorder.snapshot(host.directory(), host.files(), tier, cache, budget, last);
      if (now == null || now.equals(last)) {
        return false;
      }
      now.write(host.directory());
      last = now;
      recordedRanges = now.ranges();
      recordedBytes = now.bytes();
      return true;
    } catch (IOException | RuntimeException e) {
      logFailure("recording", e);
      return false;
    } finally {
      lock.unlock();
    }
  }

  private void logFailure(String what, Exception e) {
    System.Logger.Level level = failureLogged ? System.Logger.Level.DEBUG : System.Logger.Level.INFO;
    failureLogged = true;
    LOG.log(level, String.format(Locale.ROOT, "hot set of %s: failed %s it: %s", host.directory(), what, e));
  }

  /** The counters now. */
  HotSetStats stats() {
    return stats(!loaded.isDone() && !closing);
  }

  private HotSetStats stats(boolean loading) {
    HotSetLoader l = stats;
    if (l == null) {
      return new HotSetStats(recordedRanges, recordedBytes, 0, 0, 0, 0, 0, 0, loading);
    }
    return new HotSetStats(
        recordedRanges, recordedBytes, l.loadedRanges, l.loadedBytes, l.cachedBytes, l.staleFiles, l.staleBytes,
        l.budgetBytes, loading);
  }

  @Override
  public synchronized void close() throws IOException {
    if (closing) {
      return;
    }
    closing = true;
    if (periodic != null) {
      periodic.cancel(false);
    }
    lock.lock();
    try {
      if (loadFinished) {
        record(true);
      }
      if (loader != null) {
        try {
          loader.close();
        } finally {
          loader = null;
        }
      }
    } finally {
      lock.unlock();
      List<CachedFile> held = new ArrayList<>(holds.values());
      holds.clear();
      try {
        IOUtils.close(held);
      } finally {
        loaded.complete(stats(false));
        HotSetScheduler.release();
      }
    }
  }
}
