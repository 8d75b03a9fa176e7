package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.CachedFile;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Loads the ranges of a {@link HotSetRecord} into the caches queries read, file by file, the
 * files with the fewest recorded bytes first, one bounded {@link #step} at a time. Queries read
 * every kind of file about as often (a terms index, a norms file and a postings file each a few
 * times a query), so a loaded byte of a small file is more likely to be read soon than one of a
 * large file; and where the budget ends the load (the index no longer fits), the files left out are
 * the largest.
 *
 * <p>Each file is checked first: one that is missing, or whose length or last 8 bytes differ from
 * the record's, is skipped as stale. Where queries read it now ({@link HotSet.Host#tier}, looked
 * at per file) decides how: into the page cache, by reads of up to {@value #PIECE} bytes with
 * {@code POSIX_FADV_RANDOM} (no readahead beyond the range) after a {@code WILLNEED} for the next
 * piece (so the device has the next read queued while this one is copied), skipping pieces that
 * {@code cachestat} finds cached; or into the block cache, with {@link CachedFile#load}, which
 * fills free blocks only. The page cache gets at most {@link HotSet.Host#pageCacheBudget()} bytes
 * (loaded or found cached); the block cache stops taking blocks when it has no free block left.
 * What does not fit is counted, not loaded.
 *
 * <p>Not thread-safe: one thread at a time (the caller serializes steps and close).
 */
final class HotSetLoader implements Closeable {
  /** The largest read into the page cache. */
  static final int PIECE = 4 << 20;

  /** Keeps the block cache's view of a file open until the directory closes or deletes it. */
  interface Holder {
    CachedFile hold(String name, BlockCache cache, NativeFile file) throws IOException;
  }

  private final HotSet.Host host;
  private final HotSetRecord record;
  private final Holder holder;
  private final java.util.function.BooleanSupplier stop;

  long loadedRanges, loadedBytes, cachedBytes, staleFiles, staleBytes, budgetBytes;

  /** Indexes into the record's entries, in loading order. */
  private final int[] order;
  /** Position in {@link #order} of the file loading now. */
  private int entry = -1;
  private int range;
  private long position;
  private NativeFile file;
  private HotSet.Tier tier;
  private CachedFile cached;
  private BlockCache cache;
  private long pageBudget;
  private long pageBytes;
  /** The piece this loader last advised WILLNEED (start, file index): found cached, it was loaded here. */
  private long advised = -1;
  private int advisedEntry = -1;
  private boolean cacheFull;
  private Arena arena;
  private MemorySegment scratch;

  /** @param stop true once loading should stop: {@link #step} returns at the next piece */
  HotSetLoader(HotSet.Host host, HotSetRecord record, Holder holder, java.util.function.BooleanSupplier stop) {
    this.host = host;
    this.record = record;
    this.holder = holder;
    this.stop = stop;
    this.order =
        java.util.stream.IntStream.range(0, record.entries.size())
            .boxed()
            .sorted(java.util.Comparator.comparingLong((Integer i) -> record.entries.get(i).bytes()).thenComparingInt(i -> i))
            .mapToInt(Integer::intValue)
            .toArray();
  }

  /**
   * Loads about {@code maxBytes} (at least one piece, unless the record is done or loading should
   * stop).
   *
   * @return false once every range of the record has been loaded, skipped or left out
   */
  boolean step(long maxBytes) throws IOException {
    long done = 0;
    while (done < maxBytes && !stop.getAsBoolean()) {
      if (file == null && !openNext()) {
        return false;
      }
      done += piece();
    }
    return true;
  }

  /** Opens the next file that is not stale; false at the end of the record. */
  private boolean openNext() throws IOException {
    while (++entry < record.entries.size()) {
      HotSetRecord.Entry e = record.entries.get(order[entry]);
      NativeFile f;
      try {
        f = NativeFile.open(host.directory().resolve(e.name()));
      } catch (IOException | RuntimeException missing) {
        stale(e);
        continue;
      }
      boolean keep = false;
      try {
        if (f.size() != e.length() || !Objects.equals(HotSetRecorder.identity(f), e.identity())) {
          stale(e);
          continue;
        }
        tier = host.tier();
        cache = tier == HotSet.Tier.BLOCK_CACHE ? host.cache(true) : null;
        if (cache == null) {
          tier = HotSet.Tier.PAGE_CACHE;
          pageBudget = host.pageCacheBudget();
          if (pageBytes >= pageBudget) {
            budgetBytes += e.bytes();
            continue;
          }
          try {
            f.advise(0, 0, Advice.RANDOM);
          } catch (IOException advice) {
            // a hint: the reads only go further than the ranges
          }
        } else {
          if (cacheFull || cache.freeBytes() < cache.blockSize()) {
            cacheFull = true;
            budgetBytes += e.bytes();
            continue;
          }
          cached = holder.hold(e.name(), cache, f);
        }
        file = f;
        keep = true;
        range = 0;
        position = e.ranges()[0];
        loadedRanges++;
        return true;
      } finally {
        if (!keep) {
          f.close();
        }
      }
    }
    return false;
  }

  private void stale(HotSetRecord.Entry e) {
    staleFiles++;
    staleBytes += e.bytes();
  }

  /** Loads the next piece of the current range; returns the bytes it covered. */
  private long piece() throws IOException {
    HotSetRecord.Entry e = record.entries.get(order[entry]);
    long[] ranges = e.ranges();
    long end = ranges[2 * range + 1];
    long length = Math.min(PIECE, end - position);
    boolean full;
    if (tier == HotSet.Tier.BLOCK_CACHE) {
      full = cacheFull = cached.isClosed() || cache.freeBytes() < cache.blockSize();
      if (!full) {
        long got = Math.min(length, cached.load(position, length));
        loadedBytes += got;
        cachedBytes += length - got; // cached already, but for a block or two a full cache turned away
      }
    } else {
      long pages = HotSetRecorder.pages(position, length);
      long resident = file.cachedPages(position, length);
      full = pageBytes + length > pageBudget;
      if (!full) {
        pageBytes += length;
        boolean ours = advised == position && advisedEntry == entry;
        if (resident >= pages && !ours) {
          cachedBytes += length;
        } else if (resident >= pages) {
          loadedBytes += length; // brought in by this loader's WILLNEED
        } else {
          boolean sameRange = position + length < end;
          boolean more = sameRange || 2 * range + 2 < ranges.length;
          if (more) {
            long next = sameRange ? position + length : ranges[2 * range + 2];
            long nextLength = Math.min(PIECE, (sameRange ? end : ranges[2 * range + 3]) - next);
            if (file.cachedPages(next, nextLength) < HotSetRecorder.pages(next, nextLength)) {
              file.advise(next, nextLength, Advice.WILLNEED);
              advised = next;
              advisedEntry = entry;
            }
          }
          file.read(position, scratch().asSlice(0, length));
          loadedBytes += length;
        }
      }
    }
    if (full) {
      long rest = end - position;
      for (int r = 2 * range + 2; r < ranges.length; r += 2) {
        rest += ranges[r + 1] - ranges[r];
      }
      budgetBytes += rest;
      closeFile();
      return length;
    }
    position += length;
    if (position >= end) {
      if (2 * ++range < ranges.length) {
        position = ranges[2 * range];
        loadedRanges++;
      } else {
        closeFile();
      }
    }
    return length;
  }

  private MemorySegment scratch() {
    if (scratch == null) {
      arena = Arena.ofShared();
      scratch = arena.allocate(PIECE, 4096);
    }
    return scratch;
  }

  private void closeFile() throws IOException {
    NativeFile f = file;
    file = null;
    cached = null;
    if (f != null) {
      f.close();
    }
  }

  /** Closes the file being loaded and frees the buffer; the held block-cache views are the holder's. */
  @Override
  public void close() throws IOException {
    try {
      closeFile();
    } finally {
      if (arena != null) {
        arena.close();
        arena = null;
        scratch = null;
      }
    }
  }
}

