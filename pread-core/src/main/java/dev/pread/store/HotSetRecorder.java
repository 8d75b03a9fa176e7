package dev.pread.store;

import dev.pread.cache.BlockCache;
import dev.pread.cache.ResidentBlocks;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.codecs.CodecUtil;

/**
 * Takes a {@link HotSetRecord} of what is cached now of a directory's files, where its queries
 * read: in the page cache (by {@code cachestat(2)}, in chunks of {@value #CHUNK} bytes, keeping the
 * chunks more than half of whose pages are cached) or in the block cache (the blocks holding data;
 * for a file no longer open in the cache, whose blocks went with its last input, the previous
 * record's ranges if the file is unchanged). Only files ending with a Lucene codec footer are
 * recorded: their last 8 bytes (the footer's checksum) and length identify them. Ranges are
 * coalesced; the record stops growing at a budget of bytes and at {@link HotSetRecord#MAX_RANGES}.
 *
 * <p>Stateless; thread-safe.
 */
final class HotSetRecorder {
  /** The unit of page-cache residency: a chunk is hot if more than half of its pages are cached. */
  static final long CHUNK = 256 << 10;

  private static final long PAGE = 4096;
  /** Ranges larger than a chunk are probed as this many parts, so cold and fully cached stretches cost one probe. */
  private static final int FANOUT = 16;

  private HotSetRecorder() {}

  /**
   * What is cached now of the files {@code names} in {@code directory} (a real path).
   *
   * @param cache the block cache queries read (for {@link HotSet.Tier#BLOCK_CACHE}), or null
   * @param budget the most bytes to record
   * @param previous the last record, whose ranges are kept for unchanged files no longer open in
   *     the block cache; may be null
   * @return the record, or null if the page cache cannot be observed ({@code cachestat} missing)
   */
  static HotSetRecord snapshot(
      Path directory, String[] names, HotSet.Tier tier, BlockCache cache, long budget, HotSetRecord previous) {
    String[] sorted = names.clone();
    Arrays.sort(sorted);
    Map<String, List<ResidentBlocks>> resident = new HashMap<>();
    if (tier == HotSet.Tier.BLOCK_CACHE && cache != null && !cache.isClosed()) {
      for (ResidentBlocks r : cache.residentBlocks(directory)) {
        resident.computeIfAbsent(r.path().getFileName().toString(), k -> new ArrayList<>()).add(r);
      }
    }
    List<HotSetRecord.Entry> entries = new ArrayList<>();
    long bytes = 0;
    long ranges = 0;
    for (String name : sorted) {
      if (bytes >= budget || ranges >= HotSetRecord.MAX_RANGES) {
        break;
      }
      HotSetRecord.Entry old = previous == null ? null : previous.entry(name);
      if (tier == HotSet.Tier.BLOCK_CACHE && !resident.containsKey(name) && old == null) {
        continue; // nothing cached, nothing to carry over: do not open it
      }
      try (NativeFile file = NativeFile.open(directory.resolve(name))) {
        long length = file.size();
        Long identity = identity(file);
        if (identity == null) {
          continue;
        }
        long[] hot;
        if (tier == HotSet.Tier.PAGE_CACHE) {
          hot = pageCacheRanges(file, length);
          if (hot == null) {
            return null;
          }
        } else {
          hot = blockRanges(resident.get(name), length);
          if (hot == null && old != null && old.length() == length && old.identity() == identity) {
            hot = old.ranges();
          }
          if (hot == null) {
            continue;
          }
        }
        hot = trim(hot, budget - bytes, HotSetRecord.MAX_RANGES - ranges);
        if (hot.length > 0) {
          HotSetRecord.Entry e = new HotSetRecord.Entry(name, length, identity, hot);
          entries.add(e);
          bytes += e.bytes();
          ranges += e.rangeCount();
        }
      } catch (IOException | RuntimeException e) {
        // deleted meanwhile, a directory, unreadable: not part of the hot set
      }
    }
    return new HotSetRecord(entries);
  }

  /**
   * The last 8 bytes of {@code file} if it ends with a Lucene codec footer (its magic and
   * algorithm 0 before them), else null.
   */
  static Long identity(NativeFile file) throws IOException {
    long length = file.size();
    if (length < CodecUtil.footerLength()) {
      return null;
    }
    byte[] footer = new byte[CodecUtil.footerLength()];
    file.read(length - footer.length, footer, 0, footer.length);
    ByteBuffer b = ByteBuffer.wrap(footer);
    if (b.getInt() != CodecUtil.FOOTER_MAGIC || b.getInt() != 0) {
      return null;
    }
    return b.getLong();
  }

  /** The hot chunks of {@code file}, coalesced; null if cachestat is not available. */
  static long[] pageCacheRanges(NativeFile file, long length) {
    Ranges out = new Ranges();
    if (length > 0 && !scan(file, 0, length, out)) {
      return null;
    }
    return out.toArray();
  }

  /** Adds the hot chunks of {@code [start, start + length)}; false if cachestat is not available. */
  private static boolean scan(NativeFile file, long start, long length, Ranges out) {
    long cached = file.cachedPages(start, length);
    if (cached < 0) {
      return false;
    }
    long pages = pages(start, length);
    if (cached == 0) {
      return true;
    }
    if (cached >= pages) {
      out.add(start, start + length);
      return true;
    }
    if (length <= CHUNK) {
      if (cached * 2 > pages) {
        out.add(start, start + length);
      }
      return true;
    }
    // Parts of a whole number of chunks, so that chunk boundaries stay the same at every level.
    long part = Math.max(CHUNK, (length / FANOUT + CHUNK - 1) / CHUNK * CHUNK);
    for (long p = start; p < start + length; p += part) {
      if (!scan(file, p, Math.min(part, start + length - p), out)) {
        return false;
      }
    }
    return true;
  }

  /** Pages of the page cache holding bytes {@code [start, start + length)}. */
  static long pages(long start, long length) {
    return ((start + length + PAGE - 1) / PAGE) - start / PAGE;
  }

  /** The ranges of the blocks of {@code files} (opens of the file with its current length), or null if none. */
  private static long[] blockRanges(List<ResidentBlocks> files, long length) {
    if (files == null) {
      return null;
    }
    BitSet bits = null;
    int blockSize = 0;
    for (ResidentBlocks r : files) {
      if (r.size() == length) {
        if (bits == null) {
          bits = (BitSet) r.blocks().clone();
        } else {
          bits.or(r.blocks());
        }
        blockSize = r.blockSize();
      }
    }
    if (bits == null) {
      return null;
    }
    Ranges out = new Ranges();
    for (int i = bits.nextSetBit(0); i >= 0; ) {
      int end = bits.nextClearBit(i);
      long from = (long) i * blockSize;
      long to = Math.min(length, (long) end * blockSize);
      if (from < to) {
        out.add(from, to);
      }
      i = bits.nextSetBit(end);
    }
    return out.toArray();
  }

  /** The first ranges of {@code ranges} holding at most {@code bytes} and {@code count} ranges. */
  private static long[] trim(long[] ranges, long bytes, long count) {
    Ranges out = new Ranges();
    for (int i = 0; i < ranges.length && bytes > 0 && count > 0; i += 2) {
      long end = ranges[i + 1] - ranges[i] <= bytes ? ranges[i + 1] : ranges[i] + bytes;
      out.add(ranges[i], end);
      bytes -= end - ranges[i];
      count--;
    }
    return out.toArray();
  }

  /** Sorted ranges, each added after the last, merged when adjacent. */
  private static final class Ranges {
    private long[] values = new long[16];
    private int size;

    void add(long start, long end) {
      if (size > 0 && values[size - 1] == start) {
        values[size - 1] = end;
        return;
      }
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = start;
      values[size++] = end;
    }

    long[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
