package dev.pread.store;

import dev.pread.cache.BlockReader;
import dev.pread.nativeio.MappedFiles;
import dev.pread.nativeio.MappedFiles.MapAdvice;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Optional;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MemorySegmentAccessInput;
import org.apache.lucene.util.BitUtil;

/**
 * {@link AdaptiveDirectory}'s input: reads the file's memory mapping or, while its {@link
 * AdaptiveRegime} says so, the shared block cache (through a {@link dev.pread.cache.BlockReader}
 * of its own) or the page cache with {@code pread} (through a clone of a buffered input). Every read
 * looks at the file's read path, so an open input follows a switch at its next read; every path
 * gives the same bytes.
 *
 * <p>Sequential reads on the block cache (LZ4's token loop over stored fields, the varints of the
 * terms dictionary) read a heap copy of up to {@value #BUFFER_SIZE} bytes of the block they are in,
 * so that a value costs an array read rather than a block lookup and its validation; positional
 * reads and reads on the mapping do not use it. A copy never extends past the block it starts in
 * (a miss late in a block may load the next one, as every read of the cache does: {@link
 * dev.pread.cache.BlockReader}).
 *
 * <p>While every adaptive input of the JVM reads mappings ({@link CompiledPath}), a read checks
 * that constant and reads the mapping, without looking at its file's path (while a file found
 * truncated is open the constant says otherwise), and every other path is behind a call:
 * the code the JIT compiles into Lucene's loops then holds the mapping's reads only, whatever paths
 * those loops took before. While they do not, a sequential read looks in its heap copy first,
 * before reading any path: the copy holds the file's bytes whichever path filled it, and LZ4's
 * token loop then costs a bounds check and an array read per token (and a look that the file was
 * not found truncated).
 *
 * <p>Implements {@link MemorySegmentAccessInput}: while reading mappings, {@link
 * #segmentSliceOrNull} hands out slices of the mapping, so Lucene's vector scorers and postings
 * decoders read them without a copy; while reading the cache it returns null and they copy.
 *
 * <p><b>Errors.</b> Reads past the end throw {@link EOFException}, a negative position {@link
 * IllegalArgumentException}, an array range outside the array {@link IndexOutOfBoundsException}, on
 * every path; reads after the input was closed throw {@link AlreadyClosedException}, before any of
 * those; a mapped read of a page beyond the end of a file that was
 * truncated after it was opened throws an {@link IOException} naming the file (the JVM reports the
 * bus error as an {@link InternalError}).
 *
 * <p>Not thread-safe; clones are independent and never need closing, as in Lucene.
 */
final class AdaptiveIndexInput extends IndexInput implements MemorySegmentAccessInput {
  private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  private static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

  private final AdaptiveFile file;
  private final AdaptiveRegime regime;
  /** The mapping of this input's range: {@code [offset, offset + length)} of the file. */
  private final MemorySegment segment;

  private final long offset;
  private final long length;
  private final boolean isClone;
  private final PrefetchBackoff backoff;
  /**
   * The runs read after jumps on the page-cache path ({@link RunLengths}): made for an input and
   * for each slice, shared by clones.
   */
  private final RunLengths runs;
  /**
   * True if this input was opened, or sliced, for random access: its block-cache reader then takes
   * no extra block on a walk into the next one ({@link BlockReader}).
   */
  private final boolean randomAccess;
  private long pos;
  /** Reads other than through the mapping, made for {@link #otherPath}; null until needed. */
  private PositionalReader other;

  private int otherPath;

  /**
   * The block cache's reader while {@link #other} reads the cache for this input, else null:
   * single values and byte arrays on the cache call it inline rather than through {@link
   * #readOther}.
   */
  private BlockReader blocks;

  /**
   * Most bytes a sequential read takes from {@link #buf} (larger ones read through {@link
   * #readOther}), and the size of {@link #copy}.
   */
  static final int BUFFER_SIZE = 1024;

  /**
   * Bytes of the file for sequential reads off the mapping: positions {@code [bufStart, bufStart +
   * bufLen)} of this input are {@code buf[0, bufLen)}; null until needed. Sequential reads on the
   * block cache and on the page-cache path (LZ4's token loop over stored fields, varints of the
   * terms dictionary) read this array, with no check per value that the cache still holds the
   * block: the file never changes, so the bytes stay right whatever the cache does, and whichever
   * path the file takes later. On the block cache it is {@link #copy}, filled up to the end of the
   * cache block at most. On the page-cache path it is the page-cache reader's own buffer, read in
   * place ({@link #pageReader}): no copy, and a fill only when a read leaves what the reader
   * holds. Positional reads do not fill it.
   */
  private byte[] buf;

  private long bufStart;
  private int bufLen;

  /** The copy {@link #buf} is on the block cache; null until needed. */
  private byte[] copy;

  /**
   * The page-cache reader while {@link #other} reads the page cache for this input, else null.
   * Every call that may refill its buffer empties the view on it first ({@link #bufLen} 0, so that
   * a failed refill leaves no stale bytes in view) and takes the view again after ({@link
   * #viewPageCache}); so {@link #buf} never shows bytes that the reader has overwritten.
   */
  private PreadIndexInput pageReader;

  AdaptiveIndexInput(String description, AdaptiveFile file, AdaptiveRegime regime, boolean randomAccess) {
    this(description, file, regime, file.map, 0, file.size, false, new PrefetchBackoff(), newRunLengths(), randomAccess);
  }

  /** What the page-cache path learns of this input's runs: a compound file's parts each learn their own. */
  private static RunLengths newRunLengths() {
    return new RunLengths(PreadIndexInput.MIN_REFILL, AdaptiveFile.PAGE_CACHE_BUFFER_SIZE);
  }

  private AdaptiveIndexInput(
      String description,
      AdaptiveFile file,
      AdaptiveRegime regime,
      MemorySegment segment,
      long offset,
      long length,
      boolean isClone,
      PrefetchBackoff backoff,
      RunLengths runs,
      boolean randomAccess) {
    super(description);
    this.file = file;
    this.randomAccess = randomAccess;
    this.regime = regime;
    this.segment = segment;
    this.offset = offset;
    this.length = length;
    this.isClone = isClone;
    this.backoff = backoff;
    this.runs = runs;
  }

  /**
   * True while this input reads the mapping, false while it reads the block cache or the page
   * cache with {@code pread}.
   *
   * @throws IOException naming the file if it was found shorter than at open
   */
  private boolean mapped() throws IOException {
    int path = file.readPath;
    if (path == AdaptiveFile.MAPPED) {
      return true;
    }
    if (path != AdaptiveFile.TRUNCATED) {
      return false;
    }
    throw new IOException(
        file.path + ": the file is shorter than when it was opened (" + file.currentSize() + " bytes now, " + file.size
            + " at open): " + this);
  }

  /** Kinds of {@link #readOther} reads. */
  private static final int K_BYTE = 0, K_SHORT = 1, K_INT = 2, K_LONG = 3, K_BYTES = 4, K_LONGS = 5, K_INTS = 6, K_FLOATS = 7,
      K_FILL = 8;

  /**
   * Every read that does not go to the mapping, in one method: the bounds check, the reader of
   * the path the file follows now (made at the first read after a switch), and the read.
   *
   * <p>One method, and a large one, so that the JIT compiles it once as a call rather than into
   * every hot caller: its bytecode is above C2's size limit for inlining a hot method. Inlined, a
   * spell on the block cache left the cache path compiled into Lucene's decoding loops (LZ4,
   * postings), and they read the mapping slower once the files fit again. The call costs a few
   * nanoseconds per read, next to a block lookup. Two kinds of reads do not come here once the
   * input has its reader, because the call would be a large share of their cost: single values on
   * the page-cache path ({@link #readerFor}), and single values and byte arrays on the block cache
   * ({@link #buf} for sequential reads, {@link #blocks} for positional ones: a read inside the
   * reader's current block is a bounds check, a load and the check that the block is still there;
   * the rest of the cache path stays behind a call in {@link BlockReader}). Under a memory limit
   * LZ4's token loop over stored fields reads the cache a token at a time, and with a call per
   * token this method was the query thread's most sampled method after that loop. Keep this method
   * above that limit when changing it.
   *
   * @param kind one of {@link #K_BYTE} to {@link #K_FLOATS}, or {@link #K_FILL} to {@link #fill}
   *     the buffer for {@code n} bytes at {@code p} (returns 1 if it then holds them, else 0)
   * @param p the position in this input
   * @param dst the array to fill, for array reads; null for single values
   * @param off the first index of {@code dst} to fill
   * @param n the number of elements to read into {@code dst}; 1 for single values
   * @return the value, for single values (sign-extended); 0 for array reads
   */
  private long readOther(int kind, long p, Object dst, int off, int n) throws IOException {
    if (kind == K_FILL) {
      return fill(p, n) ? 1 : 0;
    }
    long bytes =
        switch (kind) {
          case K_BYTE -> 1;
          case K_SHORT -> Short.BYTES;
          case K_INT -> Integer.BYTES;
          case K_LONG -> Long.BYTES;
          case K_BYTES -> n;
          case K_LONGS -> (long) n * Long.BYTES;
          case K_INTS -> (long) n * Integer.BYTES;
          case K_FLOATS -> (long) n * Float.BYTES;
          default -> throw new AssertionError(kind);
        };
    if (kind == K_BYTES) {
      checkArray((byte[]) dst, off, n);
    }
    checkRead(p, bytes);
    if (n == 0) {
      ensureOpen();
      return 0;
    }
    PositionalReader r = readerFor(file.readPath);
    PreadIndexInput pages = pageReader;
    if (pages != null) {
      bufLen = 0; // the reader may refill its buffer: see pageReader
    }
    long at = offset + p;
    long v = 0;
    switch (kind) {
      case K_BYTE:
        v = r.readByte(at);
        break;
      case K_SHORT:
        v = r.readShort(at);
        break;
      case K_INT:
        v = r.readInt(at);
        break;
      case K_LONG:
        v = r.readLong(at);
        break;
      case K_BYTES:
        r.readBytes(at, (byte[]) dst, off, n);
        break;
      case K_LONGS:
        r.readLongs(at, (long[]) dst, off, n);
        break;
      case K_INTS:
        r.readInts(at, (int[]) dst, off, n);
        break;
      default:
        r.readFloats(at, (float[]) dst, off, n);
        break;
    }
    if (pages != null) {
      viewPageCache(pages);
    }
    return v;
  }

  /**
   * The page-cache reader, made at the first read after the file switched to the page cache, with
   * the view on its buffer emptied: the caller's read may refill it. The caller takes the view
   * again after the read ({@link #viewPageCache}).
   */
  private PreadIndexInput pageCacheReader() throws IOException {
    readerFor(AdaptiveFile.PAGE_CACHE);
    bufLen = 0;
    return pageReader;
  }

  /**
   * Points {@link #buf} at what the page-cache reader {@code r} holds, the part within this input:
   * its buffer, read in place.
   */
  private void viewPageCache(PreadIndexInput r) {
    long start = r.heldStart() - offset;
    buf = r.heldBytes();
    bufStart = start;
    bufLen = (int) Math.max(0, Math.min(r.heldLength(), length - start));
  }

  /**
   * The reader of {@code path} (other than the mapping), made at the first read after the file
   * switched to that path. Single values on the page-cache path call it inline rather than going
   * through {@link #readOther}: the page-cache reader is a buffered input, a few instructions while
   * the value lies in its buffer, which a call would double.
   */
  private PositionalReader readerFor(int path) throws IOException {
    if (other == null || otherPath != path) { // the file switched path since this input's last read
      BlockReader b = null;
      PreadIndexInput pages = null;
      try {
        if (path == AdaptiveFile.PAGE_CACHE) {
          pages = file.pageCache().clone(runs);
          other = PositionalReader.of(pages);
        } else if (file.usesCache && !MergeThreads.isMergeThread(Thread.currentThread())) {
          b = file.cached().newReader(randomAccess);
          other = PositionalReader.of(b);
        } else {
          // Merges and read-once inputs; and a merge thread reading an input that queries opened
          // (a segment whose reader the writer keeps for near-real-time search, a file of the
          // segment it writes): around the cache, in refills that grow along a sequential run, not
          // block by block (the cache itself reads that thread's misses around it).
          other = PositionalReader.of(file.aroundCache().clone());
        }
      } catch (IllegalStateException e) {
        throw alreadyClosed(e);
      }
      blocks = path == AdaptiveFile.CACHE ? b : null;
      pageReader = pages;
      otherPath = path;
    }
    return other;
  }

  /**
   * The block cache's reader if this input reads the cache now and has made its reader, after
   * checking that {@code n} bytes at {@code p} lie within this input; else null, and nothing is
   * checked. Small, so that the JIT inlines it into the single-value reads; array reads check the
   * array's bounds before the file's, so {@link #readBytes(long, byte[], int, int)} looks itself.
   */
  private BlockReader cacheReader(long p, long n) throws EOFException {
    BlockReader b = blocks;
    if (b == null || file.readPath != AdaptiveFile.CACHE) {
      return null;
    }
    checkRead(p, n);
    return b;
  }

  /**
   * Serves a sequential read of {@code len} bytes at {@code p} from {@link #buf}, filling it first
   * if the bytes are not there and fit in it; false if the caller must read them another way.
   */
  private boolean buffered(long p, byte[] b, int off, int len) throws IOException {
    checkArray(b, off, len); // the array's bounds first, as readOther
    if (len == 0) {
      return false;
    }
    int i = bufferAt(p, len);
    if (i < 0) {
      return false;
    }
    System.arraycopy(buf, i, b, off, len);
    return true;
  }

  /**
   * Where the {@code n} bytes at {@code p} (n at least 1) start in {@link #buf}, for a sequential
   * read: the buffer holds them, or is filled for them when this input reads the block cache and
   * they fit in it. -1 if the caller must read them another way. Small, so that the JIT inlines it
   * into the sequential reads; the fill is behind a call.
   */
  private int bufferAt(long p, int n) throws IOException {
    int i = inCopy(p, n);
    if (i >= 0) {
      return i;
    }
    // Merges and read-once inputs read around the cache and have no buffer there: no call for them.
    int path = file.readPath;
    if (n <= BUFFER_SIZE && (path == AdaptiveFile.PAGE_CACHE || path == AdaptiveFile.CACHE && file.usesCache)
        && readOther(K_FILL, p, null, 0, n) != 0) {
      return (int) (p - bufStart);
    }
    return -1;
  }

  /**
   * Where the {@code n} bytes at {@code p} start in {@link #buf} if it holds them and the file was
   * not found truncated, else -1 (the caller's read path then throws); checks that the input is
   * open with a plain read (the copy holds the file's bytes; a close by another thread is seen at the
   * next fill). The sequential reads of single values and arrays make the same check in their own
   * bodies rather than calling this method: see {@link #copyUsable}.
   */
  private int inCopy(long p, int n) {
    long i = p - bufStart;
    if (i >= 0 && i <= bufLen - n && copyUsable()) {
      return (int) i;
    }
    return -1;
  }

  /**
   * True if a read may take bytes from {@link #buf}: the file was not found truncated (false: the
   * caller's read path then throws); throws {@link AlreadyClosedException} if the input was closed
   * (a plain read of the file's close).
   *
   * <p>The sequential reads do not call it: they look at {@link AdaptiveFile#copiesBarred}, a
   * field, and come here only when that is set. C2 leaves even a small call such as this one a call
   * where the call site is rare in the profile it compiled from (after a spell on the mappings the
   * profile of the sequential reads counts mostly mapped reads), so it stayed a call for each byte in
   * LZ4's token loop once the file read the page cache.
   */
  private boolean copyUsable() {
    AdaptiveFile f = file;
    if (f.readPath == AdaptiveFile.TRUNCATED) {
      return false;
    }
    if (f.isClosedPlain()) {
      throw closed();
    }
    return true;
  }

  private AlreadyClosedException closed() {
    return new AlreadyClosedException("Already closed: " + this);
  }

  /**
   * Fills {@link #buf} for the {@code n} bytes at {@code p}, if this input reads the block cache or
   * the page cache now (called through {@link #readOther}, so that the JIT keeps it out of the
   * callers' loops): on the block cache copies from {@code p} on into {@link #copy}; on the page
   * cache has the reader hold them and views its buffer. True if {@link #buf} then holds them; false
   * if the input reads another path, or the bytes cross into the next cache block (the caller then
   * reads them another way).
   *
   * @throws EOFException if the {@code n} bytes at {@code p} are not all within this input
   */
  private boolean fill(long p, int n) throws IOException {
    int path = file.readPath;
    if (path == AdaptiveFile.PAGE_CACHE) {
      checkRead(p, n);
      PreadIndexInput r = pageCacheReader();
      r.hold(offset + p, n);
      viewPageCache(r);
      return true;
    }
    if (path != AdaptiveFile.CACHE) {
      return false;
    }
    checkRead(p, n);
    BlockReader r = blocks;
    if (r == null) {
      readerFor(AdaptiveFile.CACHE);
      r = blocks;
      if (r == null) {
        return false; // a merge or read-once input: it reads around the cache
      }
    }
    if (copy == null) {
      copy = new byte[BUFFER_SIZE];
    }
    bufLen = 0; // nothing valid while the copy runs, should it throw
    buf = copy;
    int got;
    try {
      got = r.readInBlock(offset + p, buf, (int) Math.min(BUFFER_SIZE, length - p));
    } catch (IllegalStateException e) {
      throw alreadyClosed(e);
    }
    bufStart = p;
    bufLen = got;
    return got >= n;
  }

  // ---- errors

  private AlreadyClosedException alreadyClosed(RuntimeException cause) {
    AlreadyClosedException e = new AlreadyClosedException("Already closed: " + this);
    e.initCause(cause);
    return e;
  }

  private IOException truncated(InternalError cause) {
    return new IOException(
        file.path + ": a mapped read failed (" + cause.getMessage() + "); the file was probably truncated after it"
            + " was opened (size at open " + file.size + "): " + this,
        cause);
  }

  /**
   * What a read of {@code n} bytes of the mapping at {@code position} that failed with {@code e}
   * throws: past the end, an {@link EOFException}; after close, an {@link AlreadyClosedException}
   * (thrown here); on a bus error (the file truncated after it was opened), an {@link IOException}
   * naming the file.
   */
  private IOException mappedReadFailed(Throwable e, long position, long n) {
    if (e instanceof IndexOutOfBoundsException) {
      ensureOpen(); // closed comes first, then a negative position, then the end
      if (position < 0) {
        throw new IllegalArgumentException("negative position " + position + ": " + this);
      }
      return pastEof(position, n);
    }
    if (e instanceof IllegalStateException closed) {
      throw alreadyClosed(closed);
    }
    return truncated((InternalError) e);
  }

  private EOFException pastEof(long position, long n) {
    return InputBounds.readPastEof(position, n, this);
  }

  /**
   * Throws {@link IndexOutOfBoundsException} unless {@code [off, off + len)} lies within {@code b};
   * {@link AlreadyClosedException} instead if this input was closed, as for every read after close.
   */
  private void checkArray(byte[] b, int off, int len) {
    try {
      java.util.Objects.checkFromIndexSize(off, len, b.length);
    } catch (IndexOutOfBoundsException e) {
      ensureOpen();
      throw e;
    }
  }

  /** Throws unless {@code n} bytes at {@code position} lie within this input. */
  private void checkRead(long position, long n) throws EOFException {
    if (position < 0 || n > length - position) {
      ensureOpen(); // closed comes first, wherever the read was
      if (position < 0) {
        throw new IllegalArgumentException("negative position " + position + ": " + this);
      }
      throw pastEof(position, n);
    }
  }

  // ---- sequential reads

  @Override
  public byte readByte() throws IOException {
    long p = pos;
    byte b = readByteSeq(p);
    pos = p + 1;
    return b;
  }

  @Override
  public short readShort() throws IOException {
    long p = pos;
    short v = readShortSeq(p);
    pos = p + Short.BYTES;
    return v;
  }

  @Override
  public int readInt() throws IOException {
    long p = pos;
    int v = readIntSeq(p);
    pos = p + Integer.BYTES;
    return v;
  }

  @Override
  public long readLong() throws IOException {
    long p = pos;
    long v = readLongSeq(p);
    pos = p + Long.BYTES;
    return v;
  }

  // Overridden only to call super: the JIT then compiles copies of DataInput's varint loops in
  // which readByte() is this class's and inlined, as Lucene's MemorySegmentIndexInput does.
  @Override
  public int readVInt() throws IOException {
    return super.readVInt();
  }

  @Override
  public long readVLong() throws IOException {
    return super.readVLong();
  }

  @Override
  public void readBytes(byte[] b, int off, int len) throws IOException {
    long p = pos;
    readBytesSeq(p, b, off, len);
    pos = p + len;
  }

  @Override
  public void readLongs(long[] dst, int off, int count) throws IOException {
    long p = pos;
    if (CompiledPath.get() == AdaptiveFile.MAPPED || mapped()) {
      mappedLongs(p, dst, off, count);
    } else {
      readOther(K_LONGS, p, dst, off, count);
    }
    pos = p + (long) count * Long.BYTES;
  }

  private void mappedLongs(long p, long[] dst, int off, int count) throws IOException {
    try {
      MemorySegment.copy(segment, LONG, p, dst, off, count);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, (long) count * Long.BYTES);
    }
  }

  @Override
  public void readInts(int[] dst, int off, int count) throws IOException {
    long p = pos;
    if (CompiledPath.get() == AdaptiveFile.MAPPED || mapped()) {
      mappedInts(p, dst, off, count);
    } else {
      readOther(K_INTS, p, dst, off, count);
    }
    pos = p + (long) count * Integer.BYTES;
  }

  private void mappedInts(long p, int[] dst, int off, int count) throws IOException {
    try {
      MemorySegment.copy(segment, INT, p, dst, off, count);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, (long) count * Integer.BYTES);
    }
  }

  @Override
  public void readFloats(float[] dst, int off, int count) throws IOException {
    long p = pos;
    if (CompiledPath.get() == AdaptiveFile.MAPPED || mapped()) {
      mappedFloats(p, dst, off, count);
    } else {
      readOther(K_FLOATS, p, dst, off, count);
    }
    pos = p + (long) count * Float.BYTES;
  }

  private void mappedFloats(long p, float[] dst, int off, int count) throws IOException {
    try {
      MemorySegment.copy(segment, FLOAT, p, dst, off, count);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, (long) count * Float.BYTES);
    }
  }

  // ---- positional reads (RandomAccessInput): the file pointer does not move

  @Override
  public byte readByte(long p) throws IOException {
    return readByteAt(p);
  }

  @Override
  public short readShort(long p) throws IOException {
    return readShortAt(p);
  }

  @Override
  public int readInt(long p) throws IOException {
    return readIntAt(p);
  }

  @Override
  public long readLong(long p) throws IOException {
    return readLongAt(p);
  }

  @Override
  public void readBytes(long p, byte[] b, int off, int len) throws IOException {
    readBytesAt(p, b, off, len);
  }

  /**
   * A sequential read. The sequential reads and the positional ones each have a method of their
   * own, though the two share their paths: C2 inlines a call of more than a few bytecodes only
   * where its caller's profile shows it hot, and the look in {@link #buf} is part of sequential
   * reads only. In a method that both kinds called, C2 left that look a call, in LZ4's token loop
   * too, the hottest loop on the block cache.
   */
  private void readBytesSeq(long p, byte[] b, int off, int len) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      mappedBytes(p, b, off, len);
      return;
    } else if (len > 0) {
      long i = p - bufStart;
      if (i >= 0 && i <= bufLen - len && !file.copiesBarred) {
        checkArray(b, off, len);
        System.arraycopy(buf, (int) i, b, off, len);
        return;
      }
    }
    readBytesAnyPath(p, b, off, len, true);
  }

  /** A positional read; see {@link #readBytesSeq}. */
  private void readBytesAt(long p, byte[] b, int off, int len) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      mappedBytes(p, b, off, len);
      return;
    }
    readBytesAnyPath(p, b, off, len, false);
  }

  private void mappedBytes(long p, byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      ensureOpen(); // a copy of nothing does not look at the mapping
    }
    try {
      MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, p, b, off, len);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      if (e instanceof IndexOutOfBoundsException) {
        checkArray(b, off, len); // closed, then the array's bounds, then the file's, as on the other paths
      }
      throw mappedReadFailed(e, p, len);
    }
  }

  private void readBytesAnyPath(long p, byte[] b, int off, int len, boolean sequential) throws IOException {
    if (mapped()) {
      mappedBytes(p, b, off, len);
    } else {
      if (sequential && buffered(p, b, off, len)) {
        return;
      }
      BlockReader r = blocks;
      if (r != null && file.readPath == AdaptiveFile.CACHE && len != 0) { // readOther checks an empty read
        checkArray(b, off, len); // the array's bounds first, as readOther
        checkRead(p, len);
        r.readBytes(offset + p, b, off, len);
      } else {
        readOther(K_BYTES, p, b, off, len);
      }
    }
  }

  /** A sequential read; see {@link #readBytesSeq}. */
  private byte readByteSeq(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedByte(p);
    } else {
      long i = p - bufStart;
      if (i >= 0 && i < bufLen && !file.copiesBarred) {
        return buf[(int) i];
      }
    }
    return readByteAnyPath(p, true);
  }

  /** A positional read; see {@link #readBytesSeq}. */
  private byte readByteAt(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedByte(p);
    }
    return readByteAnyPath(p, false);
  }

  private byte mappedByte(long p) throws IOException {
    try {
      return segment.get(ValueLayout.JAVA_BYTE, p);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, 1);
    }
  }

  private byte readByteAnyPath(long p, boolean sequential) throws IOException {
    if (mapped()) {
      return mappedByte(p);
    }
    int i;
    if (sequential && (i = bufferAt(p, 1)) >= 0) {
      return buf[i];
    }
    if (file.readPath == AdaptiveFile.PAGE_CACHE) {
      checkRead(p, 1);
      PreadIndexInput r = pageCacheReader();
      byte v = r.readByte(offset + p);
      viewPageCache(r);
      return v;
    }
    BlockReader b = cacheReader(p, 1);
    if (b != null) {
      return b.readByte(offset + p);
    }
    return (byte) readOther(K_BYTE, p, null, 0, 1);
  }

  /** A sequential read; see {@link #readBytesSeq}. */
  private short readShortSeq(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedShort(p);
    } else {
      long i = p - bufStart;
      if (i >= 0 && i <= bufLen - Short.BYTES && !file.copiesBarred) {
        return (short) BitUtil.VH_LE_SHORT.get(buf, (int) i);
      }
    }
    return readShortAnyPath(p, true);
  }

  /** A positional read; see {@link #readBytesSeq}. */
  private short readShortAt(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedShort(p);
    }
    return readShortAnyPath(p, false);
  }

  private short mappedShort(long p) throws IOException {
    try {
      return segment.get(SHORT, p);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, Short.BYTES);
    }
  }

  private short readShortAnyPath(long p, boolean sequential) throws IOException {
    if (mapped()) {
      return mappedShort(p);
    }
    int i;
    if (sequential && (i = bufferAt(p, Short.BYTES)) >= 0) {
      return (short) BitUtil.VH_LE_SHORT.get(buf, i);
    }
    if (file.readPath == AdaptiveFile.PAGE_CACHE) {
      checkRead(p, Short.BYTES);
      PreadIndexInput r = pageCacheReader();
      short v = r.readShort(offset + p);
      viewPageCache(r);
      return v;
    }
    BlockReader b = cacheReader(p, Short.BYTES);
    if (b != null) {
      return b.readShort(offset + p);
    }
    return (short) readOther(K_SHORT, p, null, 0, 1);
  }

  /** A sequential read; see {@link #readBytesSeq}. */
  private int readIntSeq(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedInt(p);
    } else {
      long i = p - bufStart;
      if (i >= 0 && i <= bufLen - Integer.BYTES && !file.copiesBarred) {
        return (int) BitUtil.VH_LE_INT.get(buf, (int) i);
      }
    }
    return readIntAnyPath(p, true);
  }

  /** A positional read; see {@link #readBytesSeq}. */
  private int readIntAt(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedInt(p);
    }
    return readIntAnyPath(p, false);
  }

  private int mappedInt(long p) throws IOException {
    try {
      return segment.get(INT, p);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, Integer.BYTES);
    }
  }

  private int readIntAnyPath(long p, boolean sequential) throws IOException {
    if (mapped()) {
      return mappedInt(p);
    }
    int i;
    if (sequential && (i = bufferAt(p, Integer.BYTES)) >= 0) {
      return (int) BitUtil.VH_LE_INT.get(buf, i);
    }
    if (file.readPath == AdaptiveFile.PAGE_CACHE) {
      checkRead(p, Integer.BYTES);
      PreadIndexInput r = pageCacheReader();
      int v = r.readInt(offset + p);
      viewPageCache(r);
      return v;
    }
    BlockReader b = cacheReader(p, Integer.BYTES);
    if (b != null) {
      return b.readInt(offset + p);
    }
    return (int) readOther(K_INT, p, null, 0, 1);
  }

  /** A sequential read; see {@link #readBytesSeq}. */
  private long readLongSeq(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedLong(p);
    } else {
      long i = p - bufStart;
      if (i >= 0 && i <= bufLen - Long.BYTES && !file.copiesBarred) {
        return (long) BitUtil.VH_LE_LONG.get(buf, (int) i);
      }
    }
    return readLongAnyPath(p, true);
  }

  /** A positional read; see {@link #readBytesSeq}. */
  private long readLongAt(long p) throws IOException {
    if (CompiledPath.get() == AdaptiveFile.MAPPED) {
      return mappedLong(p);
    }
    return readLongAnyPath(p, false);
  }

  private long mappedLong(long p) throws IOException {
    try {
      return segment.get(LONG, p);
    } catch (IndexOutOfBoundsException | IllegalStateException | InternalError e) {
      throw mappedReadFailed(e, p, Long.BYTES);
    }
  }

  private long readLongAnyPath(long p, boolean sequential) throws IOException {
    if (mapped()) {
      return mappedLong(p);
    }
    int i;
    if (sequential && (i = bufferAt(p, Long.BYTES)) >= 0) {
      return (long) BitUtil.VH_LE_LONG.get(buf, i);
    }
    if (file.readPath == AdaptiveFile.PAGE_CACHE) {
      checkRead(p, Long.BYTES);
      PreadIndexInput r = pageCacheReader();
      long v = r.readLong(offset + p);
      viewPageCache(r);
      return v;
    }
    BlockReader b = cacheReader(p, Long.BYTES);
    if (b != null) {
      return b.readLong(offset + p);
    }
    return readOther(K_LONG, p, null, 0, 1);
  }

  /** For tests: the size of the page-cache reader's last refill, or -1 if this input has none. */
  int pageCacheRefillSize() {
    PreadIndexInput r = pageReader;
    return r == null ? -1 : r.refillSize();
  }

  // ---- positioning, slices, clones

  @Override
  public long getFilePointer() {
    ensureOpenPlain();
    return pos;
  }

  @Override
  public void seek(long p) throws IOException {
    ensureOpenPlain();
    InputBounds.checkSeek(p, this);
    if (pageReader != null) {
      notePageCacheRun();
    }
    pos = p;
  }

  /**
   * Tells the page-cache reader how far sequential reads got in its buffer, read in place, so that
   * the runs it learns count them. A method of its own so that {@link #seek} stays within the size
   * the JIT inlines at any call site: seeks on the mappings pay a field load and a null check.
   */
  private void notePageCacheRun() {
    pageReader.readTo(offset + pos);
  }

  @Override
  public void skipBytes(long n) throws IOException {
    if (n < 0) {
      throw new IllegalArgumentException("numBytes must be >= 0, got " + n);
    }
    seek(pos + n);
  }

  @Override
  public long length() {
    return length;
  }

  private void ensureOpen() {
    if (file.isClosed()) {
      throw new AlreadyClosedException("Already closed: " + this);
    }
  }

  /** {@link #ensureOpen()} with a plain read of the file's close ({@link AdaptiveFile#isClosedPlain}). */
  private void ensureOpenPlain() {
    if (file.isClosedPlain()) {
      throw new AlreadyClosedException("Already closed: " + this);
    }
  }

  @Override
  public AdaptiveIndexInput slice(String sliceDescription, long off, long len) throws IOException {
    return slice(sliceDescription, off, len, randomAccess);
  }

  /** A slice for random access if {@code context} says so (a compound file's part). */
  @Override
  public AdaptiveIndexInput slice(String sliceDescription, long off, long len, IOContext context) throws IOException {
    return slice(sliceDescription, off, len, CachedPreadDirectory.randomAccess(context));
  }

  private AdaptiveIndexInput slice(String sliceDescription, long off, long len, boolean randomAccess) throws IOException {
    ensureOpen();
    InputBounds.checkRange("slice()", off, len, this);
    regime.maybeCheck();
    file.noteQueryInput();
    return new AdaptiveIndexInput(
        getFullSliceDescription(sliceDescription),
        file,
        regime,
        segment.asSlice(off, len),
        offset + off,
        len,
        true,
        backoff,
        newRunLengths(),
        randomAccess);
  }

  @Override
  public AdaptiveIndexInput clone() {
    ensureOpen();
    regime.maybeCheck();
    file.noteQueryInput();
    AdaptiveIndexInput c = new AdaptiveIndexInput(toString(), file, regime, segment, offset, length, true, backoff, runs, randomAccess);
    c.pos = pos;
    return c;
  }

  @Override
  public void close() throws IOException {
    if (!isClone) {
      file.close();
    }
  }

  // ---- hints

  @Override
  public void prefetch(long off, long len) throws IOException {
    ensureOpen();
    InputBounds.checkRange("prefetch()", off, len, this);
    regime.maybeCheck();
    if (len == 0) {
      return;
    }
    if (mapped()) {
      if (!backoff.shouldProbe()) {
        return;
      }
      long start = (offset + off) & -MappedFiles.PAGE;
      long end = Math.min(file.size, offset + off + len);
      try {
        if (file.map.asSlice(start, end - start).isLoaded()) {
          return;
        }
      } catch (IllegalStateException e) {
        throw alreadyClosed(e);
      }
      backoff.miss();
      MappedFiles.advise(file.map, start, end - start, MapAdvice.WILLNEED);
    } else if (file.readPath == AdaptiveFile.PAGE_CACHE) {
      file.pageCache().prefetch(offset + off, len);
    } else if (!file.usesCache) {
      return; // a merge or read-once input reads around the cache: nothing to load into it
    } else {
      try {
        file.cached().prefetch(offset + off, len);
      } catch (IllegalStateException e) {
        throw alreadyClosed(e);
      }
    }
  }

  @Override
  public Optional<Boolean> isLoaded() {
    return Optional.empty();
  }

  @Override
  public MemorySegment segmentSliceOrNull(long p, long len) throws IOException {
    ensureOpen();
    if (!mapped()) {
      return null;
    }
    try {
      return segment.asSlice(p, len);
    } catch (IndexOutOfBoundsException e) {
      throw pastEof(p, len);
    }
  }
}
