package dev.pread.store;

import java.io.IOException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.store.RandomAccessInput;

/**
 * Deterministic file content for tests: the little-endian long at word index w of a file made
 * with seed s is {@link #word(long, long) word(s, w)}. Different seeds give different files, so a
 * read that lands in the wrong file is detected.
 */
public final class TestContent {
  private TestContent() {}

  /** {@link #readBy} methods: one readBytes after a seek. */
  static final int READ_BYTES = 0;
  /** Positional readBytes through {@link RandomAccessInput}. */
  static final int RANDOM_ACCESS_BYTES = 1;
  /** readByte after a seek, byte by byte. */
  static final int READ_BYTE = 2;
  /** readLong after a seek, then readBytes for the tail. */
  static final int READ_LONGS = 3;
  /** Positional readByte through {@link RandomAccessInput}, byte by byte. */
  static final int RANDOM_ACCESS_BYTE = 4;

  /** Reads {@code len} bytes at {@code pos} of {@code in} by one of the methods above. */
  static byte[] readBy(IndexInput in, long pos, int len, int method) throws IOException {
    byte[] b = new byte[len];
    switch (method) {
      case READ_BYTES -> {
        in.seek(pos);
        in.readBytes(b, 0, len);
      }
      case RANDOM_ACCESS_BYTES -> ((RandomAccessInput) in).readBytes(pos, b, 0, len);
      case READ_BYTE -> {
        in.seek(pos);
        for (int i = 0; i < len; i++) {
          b[i] = in.readByte();
        }
      }
      case READ_LONGS -> {
        in.seek(pos);
        int i = 0;
        for (; i + 8 <= len; i += 8) {
          long v = in.readLong();
          for (int k = 0; k < 8; k++) {
            b[i + k] = (byte) (v >>> (8 * k));
          }
        }
        in.readBytes(b, i, len - i);
      }
      case RANDOM_ACCESS_BYTE -> {
        for (int i = 0; i < len; i++) {
          b[i] = ((RandomAccessInput) in).readByte(pos + i);
        }
      }
      default -> throw new IllegalArgumentException("no read method " + method);
    }
    return b;
  }

  public static long word(long seed, long index) {
    long z = seed * 0x9E3779B97F4A7C15L + index + 1;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public static byte byteAt(long seed, long position) {
    return (byte) (word(seed, position >>> 3) >>> ((position & 7) * 8));
  }

  static void write(Directory dir, String name, long seed, long length) throws IOException {
    try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
      long words = length >>> 3;
      for (long w = 0; w < words; w++) {
        out.writeLong(word(seed, w));
      }
      for (long p = words << 3; p < length; p++) {
        out.writeByte(byteAt(seed, p));
      }
    }
  }

  /** The little-endian value of {@code bytes} (1 to 8) bytes at {@code position}. */
  static long littleEndian(long seed, long position, int bytes) {
    long v = 0;
    for (int k = bytes - 1; k >= 0; k--) {
      v = (v << 8) | (byteAt(seed, position + k) & 0xFF);
    }
    return v;
  }

  /** Index of the first byte of {@code b[0..len)} that differs from the file at position, or -1. */
  static int firstMismatch(long seed, long position, byte[] b, int offset, int len) {
    long wordIndex = -1;
    long w = 0;
    for (int i = 0; i < len; i++) {
      long p = position + i;
      if (p >>> 3 != wordIndex) {
        wordIndex = p >>> 3;
        w = word(seed, wordIndex);
      }
      if (b[offset + i] != (byte) (w >>> ((p & 7) * 8))) {
        return i;
      }
    }
    return -1;
  }
}
