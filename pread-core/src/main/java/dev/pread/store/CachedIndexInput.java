package dev.pread.store;

import dev.pread.cache.BlockReader;
import dev.pread.cache.CachedFile;
import java.io.EOFException;
import java.io.IOException;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;

/**
 * An {@link IndexInput} of {@link CachedPreadDirectory} that reads the block cache's memory in
 * place through a {@link BlockReader}: no buffer of its own, so a random {@code readLong} costs a
 * lookup and a load rather than a refill, and positional ({@link RandomAccessInput}) reads leave the
 * file pointer alone.
 *
 * <p>Used for inputs that insert what they miss (every context but merges and read-once); those
 * read the rest around the cache and keep {@link PreadIndexInput}'s buffer. An input opened, or
 * sliced, with {@link org.apache.lucene.store.DataAccessHint#RANDOM} reads through a reader for
 * random access, which takes no extra block when a read walks into the next one ({@link
 * BlockReader}); its clones and slices without a context of their own do the same.
 *
 * <p><b>Thread-safety:</b> an instance is not thread-safe; give each thread its own {@link
 * #clone()} or slice. Each has its own reader; they share the file and read in parallel without
 * locking.
 *
 * <p><b>Close:</b> closing the input returned by {@link CachedPreadDirectory#openInput} closes the
 * file; from then on every read, seek, clone or slice of it and of its clones and slices throws
 * {@link AlreadyClosedException}. Closing a clone or slice does nothing; closing twice does nothing.
 */
final class CachedIndexInput extends SourceIndexInput {
  /** The source's file, which makes each clone's and slice's reader. */
  private final CachedFile file;
  /** Whether {@link #reader} is for random access; set by a slice with a context of its own. */
  private boolean randomAccess;
  private BlockReader reader;
  private long position;

  CachedIndexInput(String resourceDescription, CachedFile file, boolean prefetch, boolean randomAccess) {
    super(resourceDescription, new BlockCacheSource(file), prefetch);
    this.file = file;
    this.randomAccess = randomAccess;
    this.reader = file.newReader(randomAccess);
  }

  private CachedIndexInput(String resourceDescription, CachedIndexInput parent, long sliceOffset, long length) {
    super(resourceDescription, parent, sliceOffset, length);
    this.file = parent.file;
    this.randomAccess = parent.randomAccess;
    this.reader = file.newReader(randomAccess);
  }

  /** EOFException unless {@code n} bytes at {@code pos} lie within this input; IAE if negative. */
  private void checkRead(long pos, long n) throws EOFException {
    if (pos < 0) {
      checkOpenAndPosition(pos);
    }
    if (pos > length - n) {
      ensureOpen(); // closed wins over end of file
      throw readPastEof(pos, n);
    }
  }

  // ---- sequential reads ----

  @Override
  public byte readByte() throws IOException {
    long pos = position;
    checkRead(pos, Byte.BYTES);
    byte v = reader.readByte(sliceOffset + pos);
    position = pos + Byte.BYTES;
    return v;
  }

  @Override
  public short readShort() throws IOException {
    long pos = position;
    checkRead(pos, Short.BYTES);
    short v = reader.readShort(sliceOffset + pos);
    position = pos + Short.BYTES;
    return v;
  }

  @Override
  public int readInt() throws IOException {
    long pos = position;
    checkRead(pos, Integer.BYTES);
    int v = reader.readInt(sliceOffset + pos);
    position = pos + Integer.BYTES;
    return v;
  }

  @Override
  public long readLong() throws IOException {
    long pos = position;
    checkRead(pos, Long.BYTES);
    long v = reader.readLong(sliceOffset + pos);
    position = pos + Long.BYTES;
    return v;
  }

  @Override
  public void readBytes(byte[] b, int offset, int len) throws IOException {
    if (len <= 0) {
      ensureOpen();
      java.util.Objects.checkFromIndexSize(offset, len, b.length); // a negative length, an offset past the array
      return;
    }
    long pos = position;
    checkRead(pos, len);
    reader.readBytes(sliceOffset + pos, b, offset, len);
    position = pos + len;
  }

  @Override
  public void readLongs(long[] dst, int offset, int count) throws IOException {
    long pos = position;
    checkRead(pos, (long) count * Long.BYTES);
    reader.readLongs(sliceOffset + pos, dst, offset, count);
    position = pos + (long) count * Long.BYTES;
  }

  @Override
  public void readInts(int[] dst, int offset, int count) throws IOException {
    long pos = position;
    checkRead(pos, (long) count * Integer.BYTES);
    reader.readInts(sliceOffset + pos, dst, offset, count);
    position = pos + (long) count * Integer.BYTES;
  }

  @Override
  public void readFloats(float[] dst, int offset, int count) throws IOException {
    long pos = position;
    checkRead(pos, (long) count * Float.BYTES);
    reader.readFloats(sliceOffset + pos, dst, offset, count);
    position = pos + (long) count * Float.BYTES;
  }

  // ---- RandomAccessInput: positions are this input's; the file pointer does not move ----

  @Override
  public byte readByte(long pos) throws IOException {
    checkRead(pos, Byte.BYTES);
    return reader.readByte(sliceOffset + pos);
  }

  @Override
  public short readShort(long pos) throws IOException {
    checkRead(pos, Short.BYTES);
    return reader.readShort(sliceOffset + pos);
  }

  @Override
  public int readInt(long pos) throws IOException {
    checkRead(pos, Integer.BYTES);
    return reader.readInt(sliceOffset + pos);
  }

  @Override
  public long readLong(long pos) throws IOException {
    checkRead(pos, Long.BYTES);
    return reader.readLong(sliceOffset + pos);
  }

  @Override
  public void readBytes(long pos, byte[] bytes, int offset, int len) throws IOException {
    if (len <= 0) {
      checkOpenAndPosition(pos);
      java.util.Objects.checkFromIndexSize(offset, len, bytes.length); // a negative length, an offset past the array
      return;
    }
    checkRead(pos, len);
    reader.readBytes(sliceOffset + pos, bytes, offset, len);
  }

  // ---- positioning ----

  @Override
  public long getFilePointer() {
    return position;
  }

  @Override
  public void seek(long pos) throws IOException {
    checkSeek(pos);
    position = pos;
  }

  // ---- clones and slices (close, prefetch: see SourceIndexInput) ----

  @Override
  public CachedIndexInput clone() {
    CachedIndexInput clone = (CachedIndexInput) super.clone();
    clone.reader = file.newReader(randomAccess);
    return clone;
  }

  /** A slice whose reader is for random access if {@code context} says so (a compound file's part). */
  @Override
  public CachedIndexInput slice(String sliceDescription, long offset, long length, IOContext context) {
    CachedIndexInput slice = (CachedIndexInput) slice(sliceDescription, offset, length);
    boolean random = CachedPreadDirectory.randomAccess(context);
    if (random != slice.randomAccess) {
      slice.randomAccess = random;
      slice.reader = file.newReader(random);
    }
    return slice;
  }

  @Override
  CachedIndexInput newSlice(String resourceDescription, long sliceOffset, long length) {
    return new CachedIndexInput(resourceDescription, this, sliceOffset, length);
  }
}
