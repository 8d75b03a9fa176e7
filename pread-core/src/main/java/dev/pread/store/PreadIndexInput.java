package dev.pread.store;

import dev.pread.nativeio.NativeFile;
import java.io.EOFException;
import java.io.IOException;
import java.util.Objects;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;
import org.apache.lucene.util.BitUtil;

/**
 * An {@link IndexInput} over an {@link InputSource} (a {@link NativeFile} read through the page
 * cache, or a file read through a block cache), with a heap buffer of its own.
 *
 * <p>Sequential reads are served from the buffer. Refills adapt to the access pattern, like the
 * kernel's readahead: after a jump a refill reads {@link InputSource#minRefill()} bytes ({@value
 * #MIN_REFILL} from the page cache, where each refill is a system call; less from a block cache,
 * where it is a copy) or what the read
 * needs), and each refill that continues where the previous physical read ended doubles (from the
 * page cache: grows four-fold, below), up to the buffer size. A random small read so copies little,
 * and sequential decoding makes few syscalls.
 * From the page cache, the first refill after a jump is instead a size that covers most of the
 * runs this file is read in ({@link RunLengths}, shared with clones; a slice learns its own; a
 * forward skip within the buffer size of a run's start counts in the run), and a refill that
 * continues a run grows four-fold: a file decoded in runs of several KiB after each seek (stored
 * fields) then reads most runs with one system call, one wait for storage when the pages are not
 * cached, rather than one per step of the ramp.
 * Reads of at least the buffer size go straight to the caller's array. Positional ({@link
 * RandomAccessInput}) reads use the same buffer and may move the file pointer, as {@link
 * org.apache.lucene.store.BufferedIndexInput}'s do: use a dedicated {@link #randomAccessSlice}.
 *
 * <p><b>Prefetch:</b> {@link #prefetch} hands the range to the {@link InputSource}, which starts
 * loading it without waiting: into the page cache ({@link PageCacheSource}) or into a block cache
 * ({@link BlockCacheSource}).
 *
 * <p><b>Files changed while open:</b> the input reads the file it opened, through its own
 * descriptor: a file deleted or replaced by a rename keeps being read. If the file is truncated,
 * reads of bytes that still exist succeed (a refill that would run past the new end stops there)
 * and reads past the new end throw {@link EOFException}; no byte is made up.
 *
 * <p><b>Thread-safety:</b> an instance is not thread-safe; give each thread its own {@link
 * #clone()} or slice. Clones and slices share the descriptor, not the buffer, and their reads
 * proceed in parallel without locking.
 *
 * <p><b>Close:</b> closing the input returned by {@link PreadDirectory#openInput} closes the
 * descriptor after reads in flight on every clone and slice have finished. From then on every read,
 * seek, clone or slice of any of them throws {@link AlreadyClosedException}, even when the bytes
 * are in its buffer. Closing a clone or slice does nothing; closing twice does nothing.
 */
final class PreadIndexInput extends SourceIndexInput {
  /** Size of the first refill after a jump. */
  static final int MIN_REFILL = 1024;

  /** Smallest first refill after a jump: {@link InputSource#minRefill()}, at most the buffer size. */
  private final int minRefill;

  private final int bufferSize;

  /** Allocated on first buffered read and grown with the refill size; each clone has its own. */
  private byte[] buffer;
  /** Bytes the next sequential refill reads: the first refill after a jump, doubling up to bufferSize. */
  private int refillSize;
  /** The runs this input and its clones read after jumps; null if refills are not system calls. */
  private RunLengths runs;
  /** Position (relative to this input) of the jump that started the current run, or -1. */
  private long runStart = -1;
  /** How far the current run is known to have been read (relative to this input), or -1. */
  private long runEnd = -1;
  /** File position (relative to this input) just past the last physical read, or -1. */
  private long nextSequential = -1;
  /** Position (relative to this input) of buffer[0]. */
  private long bufferStart;
  /** Number of valid bytes in buffer. */
  private int bufferLength;
  /** Index of the next byte to read; the file pointer is bufferStart + bufferPosition. */
  private int bufferPosition;

  PreadIndexInput(String resourceDescription, NativeFile file, int bufferSize) {
    this(resourceDescription, new PageCacheSource(file), bufferSize, true);
  }

  PreadIndexInput(String resourceDescription, InputSource file, int bufferSize, boolean prefetch) {
    super(resourceDescription, file, prefetch);
    this.bufferSize = bufferSize;
    this.minRefill = Math.min(file.minRefill(), bufferSize);
    this.refillSize = minRefill;
    this.runs = file.refillIsSystemCall() ? new RunLengths(minRefill, bufferSize) : null;
  }

  private PreadIndexInput(String resourceDescription, PreadIndexInput parent, long sliceOffset, long length) {
    super(resourceDescription, parent, sliceOffset, length);
    this.bufferSize = parent.bufferSize;
    this.minRefill = parent.minRefill;
    this.refillSize = minRefill;
    this.runs = parent.runs == null ? null : new RunLengths(minRefill, bufferSize); // a slice: a file of its own
  }

  int bufferSize() {
    return bufferSize;
  }

  /** For tests: the size of the last physical refill (or direct read decision). */
  int refillSize() {
    return refillSize;
  }

  private int available() {
    return bufferLength - bufferPosition;
  }

  // ---- sequential reads ----

  @Override
  public byte readByte() throws IOException {
    if (bufferPosition >= bufferLength) {
      refill(Byte.BYTES);
    } else {
      ensureOpen();
    }
    return buffer[bufferPosition++];
  }

  @Override
  public short readShort() throws IOException {
    if (available() >= Short.BYTES) {
      ensureOpen();
      short v = (short) BitUtil.VH_LE_SHORT.get(buffer, bufferPosition);
      bufferPosition += Short.BYTES;
      return v;
    }
    return super.readShort();
  }

  @Override
  public int readInt() throws IOException {
    if (available() >= Integer.BYTES) {
      ensureOpen();
      int v = (int) BitUtil.VH_LE_INT.get(buffer, bufferPosition);
      bufferPosition += Integer.BYTES;
      return v;
    }
    return super.readInt();
  }

  @Override
  public long readLong() throws IOException {
    if (available() >= Long.BYTES) {
      ensureOpen();
      long v = (long) BitUtil.VH_LE_LONG.get(buffer, bufferPosition);
      bufferPosition += Long.BYTES;
      return v;
    }
    return super.readLong();
  }

  @Override
  public void readLongs(long[] dst, int offset, int count) throws IOException {
    if (available() >= (long) count * Long.BYTES) {
      ensureOpen();
      for (int i = 0; i < count; i++) {
        dst[offset + i] = (long) BitUtil.VH_LE_LONG.get(buffer, bufferPosition);
        bufferPosition += Long.BYTES;
      }
    } else {
      super.readLongs(dst, offset, count);
    }
  }

  @Override
  public void readInts(int[] dst, int offset, int count) throws IOException {
    if (available() >= (long) count * Integer.BYTES) {
      ensureOpen();
      for (int i = 0; i < count; i++) {
        dst[offset + i] = (int) BitUtil.VH_LE_INT.get(buffer, bufferPosition);
        bufferPosition += Integer.BYTES;
      }
    } else {
      super.readInts(dst, offset, count);
    }
  }

  @Override
  public void readFloats(float[] dst, int offset, int count) throws IOException {
    if (available() >= (long) count * Float.BYTES) {
      ensureOpen();
      for (int i = 0; i < count; i++) {
        dst[offset + i] = (float) BitUtil.VH_LE_FLOAT.get(buffer, bufferPosition);
        bufferPosition += Float.BYTES;
      }
    } else {
      super.readFloats(dst, offset, count);
    }
  }

  @Override
  public void readBytes(byte[] b, int offset, int len) throws IOException {
    ensureOpen();
    Objects.checkFromIndexSize(offset, len, b.length); // a negative length too, which would read nothing
    int avail = available();
    if (len <= avail) {
      if (len > 0) {
        System.arraycopy(buffer, bufferPosition, b, offset, len);
        bufferPosition += len;
      }
      return;
    }
    if (avail > 0) {
      System.arraycopy(buffer, bufferPosition, b, offset, avail);
      bufferPosition += avail;
      offset += avail;
      len -= avail;
    }
    long position = getFilePointer();
    int refill = refillSizeAt(position);
    if (len >= refill) {
      // The refill would read no more than asked: read straight into the caller's array.
      if (len > length - position) {
        throw readPastEof(position, len);
      }
      readAt(position, b, offset, len);
      startOrExtendRun(position, len);
      refillSize = refill;
      nextSequential = position + len;
      bufferStart = position + len;
      bufferLength = 0;
      bufferPosition = 0;
    } else {
      refill(len);
      System.arraycopy(buffer, 0, b, offset, len);
      bufferPosition = len;
    }
  }

  /** Fills the buffer from the file pointer; at least {@code needed} bytes or EOFException. */
  private void refill(int needed) throws IOException {
    fillAt(getFilePointer(), needed);
  }

  private void fillAt(long position, int needed) throws IOException {
    // Closed wins over end of file: a closed input must not answer EOFException.
    ensureOpen();
    long remaining = length - position;
    if (remaining < needed) {
      throw readPastEof(position, needed);
    }
    refillSize = refillSizeAt(position);
    startOrExtendRun(position, needed);
    int n = (int) Math.min(Math.max(refillSize, needed), remaining);
    if (buffer == null || buffer.length < n) {
      buffer = new byte[Math.max(n, refillSize)];
    }
    bufferStart = position;
    bufferLength = 0;
    bufferPosition = 0;
    // At least what the caller needs; the rest only if the file still has it (it may have been
    // truncated since it was opened).
    int got = readAt(position, buffer, 0, needed, n);
    bufferLength = got;
    nextSequential = position + got;
  }

  /**
   * The refill size for a physical read at {@code position}: double the last one if the read
   * continues where the previous physical read ended, else the first refill after a jump (the
   * minimum, or from the page cache the runs' typical size). Does not change state.
   */
  private int refillSizeAt(long position) {
    if (position == nextSequential) {
      // From the page cache a run longer than the first refill is longer than most: each step of
      // the ramp may be a wait for storage, so it grows four-fold rather than doubling.
      return Math.min(refillSize << (runs == null ? 1 : 2), bufferSize);
    }
    return runs == null ? minRefill : runs.firstRefill(minRefill, bufferSize);
  }

  /**
   * Notes a physical read of at least {@code needed} bytes at {@code position}: one that continues
   * the previous physical read, or that lies within the buffer size of the current run's start,
   * extends the current run; any other ends it (counting it in {@link #runs}) and starts a new one.
   */
  private void startOrExtendRun(long position, int needed) {
    if (runs == null) {
      return;
    }
    if (position == nextSequential || (runStart >= 0 && position >= runStart && position + needed - runStart <= bufferSize)) {
      // Continues the previous read, or one refill of the largest size at the run's start would
      // have covered it too (a skip over the sub-blocks before a stored document): the same run.
      runEnd = Math.max(runEnd, position + needed);
      return;
    }
    if (runStart >= 0 && runEnd > runStart) {
      runs.record(runEnd - runStart);
    }
    runStart = position;
    runEnd = position + needed;
  }

  /** Notes that the current run was read up to {@code end} (a read the buffer served). */
  private void extendRun(long end) {
    if (runs != null && runStart >= 0 && end > runEnd) {
      runEnd = end;
    }
  }

  private void readAt(long position, byte[] dst, int offset, int len) throws IOException {
    readAt(position, dst, offset, len, len);
  }

  /** Reads at least {@code min}, at most {@code max} bytes; returns how many. */
  private int readAt(long position, byte[] dst, int offset, int min, int max) throws IOException {
    try {
      return source.readAtLeast(sliceOffset + position, dst, offset, min, max);
    } catch (IllegalStateException e) {
      throw closed(e);
    } catch (EOFException e) {
      EOFException wrapped = new EOFException(e.getMessage() + ": " + this);
      wrapped.initCause(e);
      throw wrapped;
    }
  }


  // ---- positioning ----

  @Override
  public long getFilePointer() {
    return bufferStart + bufferPosition;
  }

  @Override
  public void seek(long pos) throws IOException {
    checkSeek(pos);
    if (pos >= bufferStart && pos < bufferStart + bufferLength) {
      bufferPosition = (int) (pos - bufferStart);
    } else {
      if (bufferLength > 0) {
        extendRun(bufferStart + bufferPosition); // how far the sequential reads got
      }
      bufferStart = pos;
      bufferLength = 0;
      bufferPosition = 0;
    }
  }

  // ---- RandomAccessInput ----

  /**
   * Index in the buffer of {@code pos}, refilling the buffer there if it does not hold n bytes.
   * Callers must read {@code buffer} after this returns: a refill may allocate it.
   */
  private int indexOf(long pos, int n) throws IOException {
    long index = pos - bufferStart;
    if (index >= 0 && index <= bufferLength - n) {
      ensureOpen();
      return (int) index;
    }
    checkOpenAndPosition(pos);
    fillAt(pos, n);
    return 0;
  }

  @Override
  public byte readByte(long pos) throws IOException {
    int index = indexOf(pos, Byte.BYTES);
    return buffer[index];
  }

  @Override
  public short readShort(long pos) throws IOException {
    int index = indexOf(pos, Short.BYTES);
    return (short) BitUtil.VH_LE_SHORT.get(buffer, index);
  }

  @Override
  public int readInt(long pos) throws IOException {
    int index = indexOf(pos, Integer.BYTES);
    return (int) BitUtil.VH_LE_INT.get(buffer, index);
  }

  @Override
  public long readLong(long pos) throws IOException {
    int index = indexOf(pos, Long.BYTES);
    return (long) BitUtil.VH_LE_LONG.get(buffer, index);
  }

  @Override
  public void readBytes(long pos, byte[] bytes, int offset, int len) throws IOException {
    if ((offset | len) < 0 || len > bytes.length - offset) {
      ensureOpen(); // closed first, as for every read
      Objects.checkFromIndexSize(offset, len, bytes.length); // throws: a negative length too
    }
    if (len > bufferSize) {
      checkOpenAndPosition(pos);
      if (len > length - pos) {
        throw readPastEof(pos, len);
      }
      readAt(pos, bytes, offset, len);
    } else if (len > 0) {
      int index = indexOf(pos, len);
      System.arraycopy(buffer, index, bytes, offset, len);
      extendRun(pos + len);
    } else {
      checkOpenAndPosition(pos);
    }
  }

  // ---- reads of the buffer in place, for AdaptiveIndexInput ----

  /**
   * Makes the buffer hold the {@code n} bytes at {@code pos} (at least 1, at most the buffer size),
   * reading them if it does not, for a caller that then reads them in place ({@link #heldBytes},
   * {@link #heldStart}, {@link #heldLength}) rather than through a copy. A read that starts in the
   * buffer and goes past its end, where the last physical read ended, keeps the held bytes from
   * {@code pos} on and reads the rest after them: the run goes on, as it would for {@link
   * #readBytes(byte[], int, int)}, rather than counting as a jump back.
   *
   * @throws EOFException if the bytes are not all within this input
   * @throws AlreadyClosedException if the input was closed
   */
  void hold(long pos, int n) throws IOException {
    long index = pos - bufferStart;
    if (index >= 0 && index <= bufferLength - n) {
      ensureOpen();
      return;
    }
    checkOpenAndPosition(pos);
    long end = bufferStart + bufferLength;
    if (index >= 0 && index < bufferLength && end == nextSequential && n <= bufferSize) {
      if (n > length - pos) {
        throw readPastEof(pos, n);
      }
      int keep = (int) (end - pos);
      refillSize = refillSizeAt(end);
      startOrExtendRun(end, n - keep);
      int want = Math.max(refillSize, n - keep);
      byte[] to = buffer.length - keep >= want ? buffer : new byte[keep + want];
      System.arraycopy(buffer, (int) index, to, 0, keep);
      buffer = to;
      bufferStart = pos;
      bufferLength = keep;
      bufferPosition = 0;
      int got = readAt(end, to, keep, n - keep, (int) Math.min(want, length - end));
      bufferLength = keep + got;
      nextSequential = end + got;
      return;
    }
    fillAt(pos, n);
  }

  /** The buffer, for reads in place after {@link #hold}; its contents change at the next read of this input. */
  byte[] heldBytes() {
    return buffer;
  }

  /** The position (relative to this input) of {@link #heldBytes()}{@code [0]}. */
  long heldStart() {
    return bufferStart;
  }

  /** How many bytes of {@link #heldBytes()} are the file's. */
  int heldLength() {
    return bufferLength;
  }

  /**
   * Notes that a caller reading the buffer in place read it up to {@code end} (relative to this
   * input), as {@link #seek} notes the file pointer: the run that the next jump ends then counts
   * the bytes read in place too. Ignored if {@code end} is outside the buffer.
   */
  void readTo(long end) {
    if (end >= bufferStart && end <= bufferStart + bufferLength) {
      extendRun(end);
    }
  }

  // ---- clones and slices (close, prefetch: see SourceIndexInput) ----

  @Override
  public PreadIndexInput clone() {
    PreadIndexInput clone = (PreadIndexInput) super.clone();
    clone.buffer = null;
    clone.refillSize = minRefill;
    clone.nextSequential = -1;
    clone.runStart = -1;
    clone.runEnd = -1;
    clone.bufferStart = getFilePointer();
    clone.bufferLength = 0;
    clone.bufferPosition = 0;
    return clone;
  }

  /**
   * A clone that counts its runs in {@code runs} rather than with this input's: for a reader that
   * clones one input for several files' worth of reads (the parts of a compound file).
   */
  PreadIndexInput clone(RunLengths runs) {
    PreadIndexInput clone = clone();
    if (clone.runs != null) {
      clone.runs = runs;
    }
    return clone;
  }

  @Override
  PreadIndexInput newSlice(String resourceDescription, long sliceOffset, long length) {
    return new PreadIndexInput(resourceDescription, this, sliceOffset, length);
  }
}
