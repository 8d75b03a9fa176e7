package dev.pread.store;

import dev.pread.nativeio.Advice;
import dev.pread.nativeio.ClosedFileException;
import dev.pread.nativeio.IoPriority;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A {@link NativeFile} read through the kernel's page cache, as {@link PreadDirectory} reads.
 *
 * <p><b>Prefetch</b> asks the kernel to start reading the page-aligned range ({@code
 * posix_fadvise(WILLNEED)}) and returns without waiting. A {@code cachestat(2)} probe, which starts
 * no I/O, skips the advice when every page is cached, and after a run of such hits most prefetches
 * skip the probe too (see {@link PrefetchBackoff}). A failing advice is logged once and otherwise
 * ignored: prefetch is a hint.
 *
 * <p><b>Priority.</b> Made for a query's reads (with a {@link SlowReads}), a read goes to the disk at
 * the highest best-effort I/O level (or in the real-time class: {@link
 * dev.pread.nativeio.IoPriority#enterFirst}) while recent reads were slow, and at the thread's own
 * otherwise.
 *
 * <p>Thread-safe; closing closes the file once reads in flight have finished.
 */
final class PageCacheSource implements InputSource {
  private static final long PAGE = 4096;
  private static final System.Logger LOG = System.getLogger(PreadIndexInput.class.getName());
  private static final AtomicBoolean ADVICE_FAILURE_LOGGED = new AtomicBoolean();

  private final NativeFile file;
  /** Shared by the input and all its clones and slices. */
  private final PrefetchBackoff backoff = new PrefetchBackoff();
  /** The reads of queries, which go first while the disk is slow ({@link SlowReads}); else null. */
  private final SlowReads slow;

  PageCacheSource(NativeFile file) {
    this(file, null);
  }

  /** As {@link #PageCacheSource(NativeFile)}; with {@code slow}, reads go first while it says so. */
  PageCacheSource(NativeFile file, SlowReads slow) {
    this.file = file;
    this.slow = slow;
  }

  @Override
  public int minRefill() {
    return PreadIndexInput.MIN_REFILL;
  }

  @Override
  public boolean refillIsSystemCall() {
    return true;
  }

  @Override
  public long size() {
    return file.size();
  }

  @Override
  public boolean isClosed() {
    return file.isClosed();
  }

  @Override
  public int readAtLeast(long position, byte[] dst, int offset, int min, int max) throws IOException {
    if (slow == null) {
      return file.readAtLeast(position, dst, offset, min, max);
    }
    long start = System.nanoTime();
    int priority = slow.first(start) ? IoPriority.enterFirst() : IoPriority.UNCHANGED;
    try {
      return file.readAtLeast(position, dst, offset, min, max);
    } finally {
      IoPriority.restore(priority);
      slow.record(start, System.nanoTime());
    }
  }

  @Override
  public void prefetch(long position, long length) throws IOException {
    if (!backoff.shouldProbe()) {
      return;
    }
    long alignedStart = position & -PAGE;
    long alignedEnd = (position + length + PAGE - 1) & -PAGE;
    try {
      // cachestat starts no I/O (a RWF_NOWAIT read probe would start readahead for what it misses).
      if (file.cachedPages(alignedStart, alignedEnd - alignedStart) == (alignedEnd - alignedStart) / PAGE) {
        return;
      }
      backoff.miss();
      file.advise(alignedStart, alignedEnd - alignedStart, Advice.WILLNEED);
    } catch (ClosedFileException e) {
      throw e;
    } catch (IOException e) {
      if (ADVICE_FAILURE_LOGGED.compareAndSet(false, true)) {
        LOG.log(
            System.Logger.Level.WARNING,
            "prefetch advice failed (logged once; prefetch is only a hint): " + e.getMessage());
      }
    }
  }

  @Override
  public void close() throws IOException {
    file.close();
  }

  @Override
  public String toString() {
    return file.toString();
  }
}
