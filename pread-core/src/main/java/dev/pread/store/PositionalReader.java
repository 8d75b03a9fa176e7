package dev.pread.store;

import dev.pread.cache.BlockReader;
import java.io.IOException;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;

/**
 * Positional reads of a file other than through its memory mapping, for {@link
 * AdaptiveIndexInput}: through the block cache ({@link #of(BlockReader)}) or through the page cache
 * with {@code pread} ({@link #of(IndexInput)}). Positions are the file's; callers check bounds.
 *
 * <p>Not thread-safe: one per input or clone.
 */
interface PositionalReader {
  byte readByte(long position) throws IOException;

  short readShort(long position) throws IOException;

  int readInt(long position) throws IOException;

  long readLong(long position) throws IOException;

  void readBytes(long position, byte[] dst, int offset, int length) throws IOException;

  void readLongs(long position, long[] dst, int offset, int count) throws IOException;

  void readInts(long position, int[] dst, int offset, int count) throws IOException;

  void readFloats(long position, float[] dst, int offset, int count) throws IOException;

  /** Reads through the block cache, in place. */
  static PositionalReader of(BlockReader r) {
    return new PositionalReader() {
      @Override
      public byte readByte(long position) throws IOException {
        return r.readByte(position);
      }

      @Override
      public short readShort(long position) throws IOException {
        return r.readShort(position);
      }

      @Override
      public int readInt(long position) throws IOException {
        return r.readInt(position);
      }

      @Override
      public long readLong(long position) throws IOException {
        return r.readLong(position);
      }

      @Override
      public void readBytes(long position, byte[] dst, int offset, int length) throws IOException {
        r.readBytes(position, dst, offset, length);
      }

      @Override
      public void readLongs(long position, long[] dst, int offset, int count) throws IOException {
        r.readLongs(position, dst, offset, count);
      }

      @Override
      public void readInts(long position, int[] dst, int offset, int count) throws IOException {
        r.readInts(position, dst, offset, count);
      }

      @Override
      public void readFloats(long position, float[] dst, int offset, int count) throws IOException {
        r.readFloats(position, dst, offset, count);
      }
    };
  }

  /**
   * Reads through {@code in}, a buffered input over the whole file (a {@link PreadIndexInput} of
   * the page cache): single values positionally, arrays by a seek and a bulk read.
   */
  static PositionalReader of(IndexInput in) {
    RandomAccessInput random = (RandomAccessInput) in;
    return new PositionalReader() {
      @Override
      public byte readByte(long position) throws IOException {
        return random.readByte(position);
      }

      @Override
      public short readShort(long position) throws IOException {
        return random.readShort(position);
      }

      @Override
      public int readInt(long position) throws IOException {
        return random.readInt(position);
      }

      @Override
      public long readLong(long position) throws IOException {
        return random.readLong(position);
      }

      @Override
      public void readBytes(long position, byte[] dst, int offset, int length) throws IOException {
        in.seek(position);
        in.readBytes(dst, offset, length);
      }

      @Override
      public void readLongs(long position, long[] dst, int offset, int count) throws IOException {
        in.seek(position);
        in.readLongs(dst, offset, count);
      }

      @Override
      public void readInts(long position, int[] dst, int offset, int count) throws IOException {
        in.seek(position);
        in.readInts(dst, offset, count);
      }

      @Override
      public void readFloats(long position, float[] dst, int offset, int count) throws IOException {
        in.seek(position);
        in.readFloats(dst, offset, count);
      }
    };
  }
}
