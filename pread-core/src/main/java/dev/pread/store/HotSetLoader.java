package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.CachedFile;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.MappedFiles;
import dev.pread.nativeio.MappedFiles.MapAdvice;
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
 * at per file) decides how: into the page cache, in pieces of up to {@value #PIECE} bytes, skipping
 * pieces that {@code cachestat} finds cached; or into the block cache, with {@link CachedFile#load}, which
 * fills free blocks only. The page cache gets at most {@link HotSet.Host#pageCacheBudget()} bytes
 * (loaded or found cached); the block cache stops taking blocks when it has no free block left.
 * What does not fit is counted, not loaded.
 *
 * <p>Into the page cache, the 2 MiB-aligned spans of a range are read through a mapping of the
 * file advised {@code MADV_HUGEPAGE} and {@code MADV_RANDOM}, with {@code MADV_POPULATE_READ}:
 * the kernel reads each span into one huge folio, which the queries' own mappings then map with
 * one page-table entry, as after the kernel's readahead; {@code pread} with {@code
 * POSIX_FADV_RANDOM} would leave 4 KiB folios, each a TLB entry and a minor fault of its own,
 * and queries slower for as long as the pages stay cached. The head and tail of a range
 * around those spans, and every piece where the kernel reads no huge folios for files (before
 * Linux 5.18, or without transparent huge pages), are read with {@code pread} and {@code
 * POSIX_FADV_RANDOM}, after a {@code WILLNEED} for the next piece where no span follows (so the
 * device has the next read queued while this one is copied; a {@code WILLNEED} reads small
 * folios). Either way nothing outside the recorded ranges is read.
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
  /** Of {@link #loadedBytes}, those read into the page cache in huge folios. */
  long hugeBytes;

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
  /** Whether to load aligned 2 MiB spans through a mapping in huge folios; cleared when the kernel refuses. */
  private boolean hugeEnabled = MappedFiles.hugeFaults();
  /** The file's mapping advised HUGEPAGE and RANDOM, while it loads into the page cache; or null. */
  private MemorySegment huge;
  private Arena hugeArena;

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
          mapHuge(f, e);
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

  /**
   * Maps the file for loading its 2 MiB-aligned spans in huge folios, where the kernel reads them
   * so and the file holds such a span; otherwise (or once the kernel refused) every piece is read
   * with {@code pread}.
   */
  private void mapHuge(NativeFile f, HotSetRecord.Entry e) {
    if (!hugeEnabled || e.length() < MappedFiles.HUGE) {
      return;
    }
    Arena a = Arena.ofShared();
    try {
      MemorySegment m = MappedFiles.map(f.path(), e.length(), a);
      if (MappedFiles.advise(m, 0, e.length(), MapAdvice.HUGEPAGE)
          && MappedFiles.advise(m, 0, e.length(), MapAdvice.RANDOM)) {
        hugeArena = a;
        huge = m;
        return;
      }
      hugeEnabled = false; // no transparent huge pages here: the advice will not be taken for any file
    } catch (IOException | RuntimeException unmappable) {
      // this file only: its pieces are read with pread
    }
    a.close();
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
    boolean populate = false;
    if (huge != null) {
      // Cut pieces at 2 MiB boundaries: the aligned spans go in huge folios, what lies around them
      // (a range's unaligned head and tail) by pread, so that nothing outside the range is read.
      long span = MappedFiles.HUGE;
      long alignedEnd = end & -span;
      if ((position & (span - 1)) != 0) {
        length = Math.min(length, ((position + span) & -span) - position);
      } else if (alignedEnd > position) {
        length = Math.min(length, alignedEnd - position);
        populate = true;
      }
    }
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
        } else if (populate && populate(e, length)) {
          loadedBytes += length;
          hugeBytes += length;
        } else {
          boolean sameRange = position + length < end;
          boolean more = sameRange || 2 * range + 2 < ranges.length;
          if (more && huge == null) { // a WILLNEED reads small folios, where a huge span would come next
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

  /** Reads {@code length} bytes at {@link #position} through the huge mapping; false if the kernel refused. */
  private boolean populate(HotSetRecord.Entry e, long length) throws IOException {
    try {
      if (MappedFiles.populate(huge, file.path(), position, length)) {
        return true;
      }
    } catch (IllegalStateException closed) {
      return false;
    }
    hugeEnabled = false;
    closeHuge();
    return false;
  }

  private void closeHuge() {
    Arena a = hugeArena;
    hugeArena = null;
    huge = null;
    if (a != null) {
      a.close();
    }
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
    closeHuge();
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

