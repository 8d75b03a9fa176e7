package dev.pread.cache;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.util.BitUtil;

/**
 * Reads a {@link CachedFile} in place: values come straight from the cache's block memory, with
 * no copy into a buffer of the reader's and no pin.
 *
 * <p><b>How a read stays correct without a pin.</b> The reader remembers one block, its
 * <em>window</em>, and the file table's entry for it (slot and generation, marked loaded). A read
 * inside the window reads the slot's memory, then checks that the entry is unchanged; whoever
 * takes a slot for other contents clears its entry first, so an unchanged entry proves the bytes
 * were the block's, and otherwise they are thrown away and the block is looked up again (the
 * validation of {@link java.util.concurrent.locks.StampedLock#validate}, with the entry as the
 * stamp; the package documentation names the protocol's owner). Block memory stays mapped while
 * the cache is open, so a read racing with eviction reads stale bytes, never unmapped memory; once
 * the cache is closed its memory is unmapped and reads fail with {@link AlreadyClosedException}.
 * A random read outside the window costs one load of the table entry and the read itself; a read
 * inside it a bounds check, the read, and a second load of the entry, from the same cache line. No
 * atomic write: threads reading the same hot blocks do not contend.
 *
 * <p><b>A miss late in a block</b> (at or past its middle) loads the next block too, in the same
 * vectored read, if that one is missing and admitted: what a reader starts to read there (a stored
 * document, a postings or terms block) usually runs on into the next block, which would otherwise
 * cost a second read from storage right after the first. The trade-off: when the read ends in its
 * own block, the cache took a block no one asked for (bytes from storage, and a slot).
 *
 * <p><b>A walk into the next block.</b> When a reader moves its window from a block to the one
 * right after it (a sequential read crossing the boundary) and that block misses, the block after
 * it comes in the same read too, if missing and admitted: a walk that has crossed one boundary
 * (a postings or positions list, a run of terms) tends to cross the next, so a long walk costs
 * one read from storage per two blocks. Not for readers made for random access ({@link
 * CachedFile#newReader(boolean)}): there a walk is one value, a stored document or a vector,
 * and ends soon, so the block after would mostly be bytes no one reads.
 *
 * <p>Reads longer than a block, and blocks that cannot be cached right now (admission refused
 * them, or every slot is busy), go through {@link CachedFile#read}, which loads runs of missing
 * blocks with one vectored read and pins while it copies.
 *
 * <p><b>A thread the cache reads around in</b> ({@link BlockCache.Builder#readAroundIn}: Lucene's
 * merge threads by default) reads what is cached in place as any thread does, and what is missing
 * into a heap buffer of the reader's, which serves its next reads there: a merge decoding a
 * segment a value at a time makes one read from storage per run, not one per value. After a jump
 * a run is the 4 KiB around the read (a vector read at random costs no more); a run that
 * continues the last one reads twice as much, up to {@value #MAX_AROUND_RUN} bytes, so a
 * sequential pass reads in large pieces. The trade-off: such a reader keeps up to that many bytes
 * of heap while it lives.
 *
 * <p><b>Statistics.</b> A hit is counted each time the reader moves its window to a cached block,
 * not on every read inside it; misses count blocks loaded, as for every read of the cache.
 *
 * <p><b>Thread-safety:</b> not thread-safe; each thread (each Lucene clone) takes its own reader
 * from {@link CachedFile#newReader(boolean)}. Readers are cheap: a few fields and no native resource.
 *
 * <p><b>Close:</b> a reader has nothing to close. Once its file or the cache is closed, every read
 * throws {@link AlreadyClosedException}.
 */
public final class BlockReader {
  private static final ValueLayout.OfShort LE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED;
  private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED;
  private static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED;
  private static final ValueLayout.OfFloat LE_FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED;

  static {
    if (java.nio.ByteOrder.nativeOrder() != java.nio.ByteOrder.LITTLE_ENDIAN) {
      // Lucene's files are little-endian and the layouts above are the platform's order.
      throw new ExceptionInInitializerError("BlockReader needs a little-endian platform");
    }
  }

  private final CachedFile file;
  private final FileBlocks blocks;
  private final BlockCache cache;
  private final Slots slots;
  private final int blockShift;
  private final int blockSize;
  private final long size;
  /** False for readers made for random access: no extra block on a walk (class documentation). */
  private final boolean walksAhead;

  // The window: file bytes [start, start + limit) are chunk[base, base + limit) while the table
  // entry of block is still entry. limit 0 means no window.
  private MemorySegment chunk;
  private long base;
  private long start;
  private int limit;
  private int block;
  private long entry;
  /** Why the last {@link #moveTo} found its block uncacheable ({@link FileBlocks#acquire}). */
  private long refusal;

  private byte[] scratch;
  /** The position {@link #fixed} last moved the window for; -1 if none. */
  private long retryAt = -1;

  /** The most a reader reads around the cache in one run (class documentation). */
  static final int MAX_AROUND_RUN = 256 * 1024;
  /** A run around the cache after a jump: one page, aligned. */
  private static final int FIRST_AROUND_RUN = 4096;

  // Read around the cache, for a thread the cache reads around in: file bytes [aroundStart,
  // aroundStart + aroundLength) are around[0, aroundLength). Null until the first such read.
  private byte[] around;
  private MemorySegment aroundSegment;
  private long aroundStart;
  private int aroundLength;

  BlockReader(CachedFile file, FileBlocks blocks, boolean randomAccess) {
    this.file = file;
    this.walksAhead = !randomAccess;
    this.blocks = blocks;
    this.cache = blocks.cache;
    this.slots = cache.slots;
    this.blockSize = slots.blockSize;
    this.blockShift = Integer.numberOfTrailingZeros(blockSize);
    this.size = blocks.size;
  }

  /** The file this reads. */
  public CachedFile file() {
    return file;
  }

  /**
   * The byte at {@code position}.
   *
   * @throws EOFException if {@code position} is not before the file's end
   * @throws IllegalArgumentException if {@code position} is negative
   * @throws AlreadyClosedException if the file or the cache is closed
   */
  public byte readByte(long position) throws IOException {
    long rel = position - start;
    if (rel >= 0 && rel < limit) {
      try {
        byte v = chunk.get(ValueLayout.JAVA_BYTE, base + rel);
        if (current()) {
          return v;
        }
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    return fixed(position, Byte.BYTES) ? readByte(position) : scratch()[0];
  }

  /** The little-endian short at {@code position}; see {@link #readByte}. */
  public short readShort(long position) throws IOException {
    long rel = position - start;
    if (rel >= 0 && rel <= limit - Short.BYTES) {
      try {
        short v = chunk.get(LE_SHORT, base + rel);
        if (current()) {
          return v;
        }
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    return fixed(position, Short.BYTES) ? readShort(position) : (short) BitUtil.VH_LE_SHORT.get(scratch, 0);
  }

  /** The little-endian int at {@code position}; see {@link #readByte}. */
  public int readInt(long position) throws IOException {
    long rel = position - start;
    if (rel >= 0 && rel <= limit - Integer.BYTES) {
      try {
        int v = chunk.get(LE_INT, base + rel);
        if (current()) {
          return v;
        }
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    return fixed(position, Integer.BYTES) ? readInt(position) : (int) BitUtil.VH_LE_INT.get(scratch, 0);
  }

  /** The little-endian long at {@code position}; see {@link #readByte}. */
  public long readLong(long position) throws IOException {
    long rel = position - start;
    if (rel >= 0 && rel <= limit - Long.BYTES) {
      try {
        long v = chunk.get(LE_LONG, base + rel);
        if (current()) {
          return v;
        }
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    return fixed(position, Long.BYTES) ? readLong(position) : (long) BitUtil.VH_LE_LONG.get(scratch, 0);
  }

  /**
   * Copies {@code length} bytes at {@code position} into {@code dst[offset..]}.
   *
   * @throws EOFException if the file ends before {@code position + length}
   * @throws IllegalArgumentException if {@code position} is negative
   * @throws IndexOutOfBoundsException if the range does not fit in {@code dst}
   * @throws AlreadyClosedException if the file or the cache is closed
   */
  public void readBytes(long position, byte[] dst, int offset, int length) throws IOException {
    if (checkArray(offset, length, dst.length)) {
      return;
    }
    // The window's copy written out with the byte layout rather than through copyInWindow: with a
    // constant layout the JIT drops the copy's layout checks, which a profile showed in LZ4's loop.
    long rel = position - start;
    if (rel >= 0 && rel <= limit - length) {
      try {
        MemorySegment.copy(chunk, ValueLayout.JAVA_BYTE, base + rel, dst, offset, length);
        if (current()) {
          return;
        }
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    copy(position, dst, offset, length);
  }

  /**
   * Copies the bytes from {@code position} to the end of its block into {@code dst}, at most {@code
   * max} of them and not past the end of the file, and returns how many: a caller that buffers
   * sequential reads fills its buffer without loading the next block before a read needs it.
   *
   * @throws EOFException if {@code position} is not before the file's end
   * @throws IllegalArgumentException if {@code position} is negative, or {@code max} is not
   *     between 1 and {@code dst.length}
   * @throws AlreadyClosedException if the file or the cache is closed
   */
  public int readInBlock(long position, byte[] dst, int max) throws IOException {
    if (max < 1 || max > dst.length) {
      throw new IllegalArgumentException(file.path() + ": max " + max + " not in [1, " + dst.length + "]");
    }
    check(position, 1);
    int n = (int) Math.min(Math.min(max, blockSize - (position & (blockSize - 1))), size - position);
    long rel = position - start;
    if (rel >= 0 && rel <= limit - n) {
      try {
        MemorySegment.copy(chunk, ValueLayout.JAVA_BYTE, base + rel, dst, 0, n);
        if (current()) {
          return n;
        }
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    copy(position, dst, 0, n);
    return n;
  }

  /** Reads {@code count} little-endian longs at {@code position}; see {@link #readBytes}. */
  public void readLongs(long position, long[] dst, int offset, int count) throws IOException {
    if (checkArray(offset, count, dst.length)) {
      return;
    }
    if (copyInWindow(position, LE_LONG, dst, offset, count) || copyInBlock(position, LE_LONG, dst, offset, count)) {
      return;
    }
    for (int i = 0; i < count; i++) {
      dst[offset + i] = readLong(position + (long) i * Long.BYTES);
    }
  }

  /** Reads {@code count} little-endian ints at {@code position}; see {@link #readBytes}. */
  public void readInts(long position, int[] dst, int offset, int count) throws IOException {
    if (checkArray(offset, count, dst.length)) {
      return;
    }
    if (copyInWindow(position, LE_INT, dst, offset, count) || copyInBlock(position, LE_INT, dst, offset, count)) {
      return;
    }
    for (int i = 0; i < count; i++) {
      dst[offset + i] = readInt(position + (long) i * Integer.BYTES);
    }
  }

  /** Reads {@code count} little-endian floats at {@code position}; see {@link #readBytes}. */
  public void readFloats(long position, float[] dst, int offset, int count) throws IOException {
    if (checkArray(offset, count, dst.length)) {
      return;
    }
    if (copyInWindow(position, LE_FLOAT, dst, offset, count) || copyInBlock(position, LE_FLOAT, dst, offset, count)) {
      return;
    }
    for (int i = 0; i < count; i++) {
      dst[offset + i] = Float.intBitsToFloat(readInt(position + (long) i * Float.BYTES));
    }
  }

  /**
   * Copies {@code count} values of {@code layout} at {@code position} into the array {@code dst}
   * from {@code offset} on, if the window holds them all. True if done; false if the caller must
   * take the slow path (outside the window, or the window's block was evicted meanwhile).
   */
  private boolean copyInWindow(long position, ValueLayout layout, Object dst, int offset, int count) {
    long rel = position - start;
    if (rel >= 0 && rel <= limit - count * layout.byteSize()) {
      try {
        MemorySegment.copy(chunk, layout, base + rel, dst, offset, count);
        return current();
      } catch (IllegalStateException e) {
        throw closed(e);
      }
    }
    return false;
  }

  /**
   * Moves the window to the block of {@code position} and copies there, if the {@code count}
   * values lie within that one block: a bulk read outside the window (a vector, a block of
   * postings) then costs one lookup and one copy, rather than a lookup and a check per value. True
   * if done; false if the values cross into the next block or their block cannot be cached now.
   *
   * @throws EOFException if the values do not all lie within the file
   */
  private boolean copyInBlock(long position, ValueLayout layout, Object dst, int offset, int count) throws IOException {
    long bytes = count * layout.byteSize();
    check(position, bytes);
    if (!inAround(position, bytes)) {
      if (bytes > blockSize - (position & (blockSize - 1)) || inAround(position, 1)) {
        // across a block's end, or the run's: value by value
        return false;
      }
      if (moveTo(position)) {
        return copyInWindow(position, layout, dst, offset, count);
      }
      if (refusal != Outcome.AROUND) {
        return false;
      }
      readAround(position);
      if (!inAround(position, bytes)) {
        return false; // across the run's end: value by value
      }
    }
    MemorySegment.copy(aroundSegment, layout, position - aroundStart, dst, offset, count);
    return true;
  }

  /** True if the bytes read around the cache hold {@code [position, position + n)}. */
  private boolean inAround(long position, long n) {
    long rel = position - aroundStart;
    return around != null && rel >= 0 && rel <= aroundLength - n;
  }

  /**
   * Reads around the cache from the aligned page that holds {@code position} (whose block this
   * thread may not cache: {@link Outcome#AROUND}): twice the last run when {@code position} is
   * at most a run past where that ended, up to {@link #MAX_AROUND_RUN}, else one page; never past
   * the end of the file. Cached blocks in the run are copied, missing ones read from storage
   * without inserting ({@link CachedFile#read}).
   */
  private void readAround(long position) throws IOException {
    long past = position - (aroundStart + aroundLength);
    boolean continues = around != null && aroundLength > 0 && past >= 0 && past < aroundLength;
    long from = position & -(long) FIRST_AROUND_RUN;
    int run = continues ? Math.min(2 * aroundLength, MAX_AROUND_RUN) : FIRST_AROUND_RUN;
    int n = (int) Math.min(run, size - from);
    if (around == null || around.length < n) {
      around = new byte[n];
      aroundSegment = MemorySegment.ofArray(around);
    }
    aroundLength = 0; // nothing valid if the read fails
    try {
      file.read(from, around, 0, n);
    } catch (IllegalStateException e) {
      throw closed(e);
    }
    aroundStart = from;
    aroundLength = n;
  }

  /**
   * Checks a bulk read's array range; true if there is nothing to read. A closed file's error
   * comes first.
   *
   * @throws IndexOutOfBoundsException if the range does not fit in the array
   */
  private boolean checkArray(int offset, int count, int arrayLength) {
    if ((offset | count) < 0 || count > arrayLength - offset) {
      ensureOpen();
      throw new IndexOutOfBoundsException(
          file.path() + ": range [" + offset + ", " + offset + " + " + count + ") out of bounds for length " + arrayLength);
    }
    if (count == 0) {
      ensureOpen();
      return true;
    }
    return false;
  }

  /** True if what was just read from the window is the block's, and the file is still open. */
  private boolean current() {
    return blocks.holds(block, entry) && !file.closed && !cache.isClosed();
  }

  /**
   * The slow path of a read of {@code n} bytes (at most 8) at {@code position}: checks, then moves
   * the window there. True when the window now holds the bytes (the caller reads again); false
   * when they have been copied into {@link #scratch} instead (across two blocks, or uncached).
   */
  private boolean fixed(long position, int n) throws IOException {
    check(position, n);
    if (inAround(position, n)) {
      System.arraycopy(around, (int) (position - aroundStart), scratch(), 0, n);
      return false;
    }
    // A second call for the same position means the block went again right after moveTo (a cache
    // of a few blocks churning): copy, whose loop retries without recursing.
    if (position != retryAt && moveTo(position) && position - start <= limit - n) {
      retryAt = position;
      return true;
    }
    retryAt = -1;
    copy(position, scratch(), 0, n);
    return false;
  }

  /** Copies through the window, block by block, or around it; the general path of every read. */
  private void copy(long position, byte[] dst, int offset, int length) throws IOException {
    check(position, length);
    if (length > blockSize) {
      // Long reads: the file's own path loads each run of missing blocks with one vectored read.
      file.read(position, dst, offset, length);
      return;
    }
    while (length > 0) {
      long rel = position - start;
      if (rel < 0 || rel >= limit) {
        if (inAround(position, 1)) {
          int n = (int) Math.min(length, aroundLength - (position - aroundStart));
          System.arraycopy(around, (int) (position - aroundStart), dst, offset, n);
          position += n;
          offset += n;
          length -= n;
          continue;
        }
        if (!moveTo(position)) {
          if (refusal == Outcome.AROUND) {
            readAround(position);
            continue;
          }
          int n = (int) Math.min(length, blockSize - (position & (blockSize - 1)));
          try {
            blocks.readUncached(position, dst, offset, n, refusal);
          } catch (IllegalStateException e) {
            throw closed(e);
          }
          position += n;
          offset += n;
          length -= n;
          continue;
        }
        rel = position - start;
      }
      int n = (int) Math.min(length, limit - rel);
      try {
        MemorySegment.copy(chunk, ValueLayout.JAVA_BYTE, base + rel, dst, offset, n);
      } catch (IllegalStateException e) {
        throw closed(e);
      }
      if (!current()) {
        limit = 0; // evicted (or closed) under us: look again
        ensureOpen();
        continue;
      }
      position += n;
      offset += n;
      length -= n;
    }
  }

  /**
   * Points the window at the block holding {@code position} (within the file, open: callers have
   * {@link #check}ed), loading it if it is missing, with the next block in the same read when
   * {@code position} is late in its block or the reader walks in from the block before (see the
   * class documentation). False if the block cannot be cached now (see {@link
   * FileBlocks#acquire}).
   */
  private boolean moveTo(long position) throws IOException {
    int block = (int) (position >>> blockShift);
    boolean walk = walksAhead && limit > 0 && block == this.block + 1;
    limit = 0;
    long e;
    try {
      boolean late = (position & (blockSize - 1)) >= blockSize >>> 1;
      boolean hasNext = (long) (block + 1) << blockShift < size;
      e = blocks.acquire(block, (late || walk) && hasNext ? block + 1 : block, file.own);
    } catch (IllegalStateException ex) {
      throw closed(ex);
    }
    if (!Outcome.isEntry(e)) {
      refusal = e;
      return false;
    }
    int slot = BlockStates.slotOf(e);
    this.block = block;
    entry = e;
    chunk = slots.chunkOf(slot);
    base = slots.offsetInChunk(slot);
    start = (long) block << blockShift;
    limit = (int) Math.min(blockSize, size - start);
    return true;
  }

  private void check(long position, long n) throws EOFException {
    ensureOpen();
    if (position < 0) {
      throw new IllegalArgumentException(file.path() + ": invalid read position " + position);
    }
    if (position > size - n) {
      throw new EOFException(
          file.path() + ": read past EOF at offset " + position + " (" + n + " bytes wanted; size at open was " + size + ")");
    }
  }

  private void ensureOpen() {
    if (file.closed) {
      throw new AlreadyClosedException("file is closed: " + file.path());
    }
    if (cache.isClosed()) {
      throw new AlreadyClosedException("block cache is closed: " + file.path());
    }
  }

  private RuntimeException closed(IllegalStateException e) {
    return cache.closedException(e, file.path());
  }

  private byte[] scratch() {
    if (scratch == null) {
      scratch = new byte[Long.BYTES];
    }
    return scratch;
  }
}
