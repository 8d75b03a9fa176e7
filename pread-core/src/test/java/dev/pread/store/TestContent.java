package dev.pread.store;

import java.io.IOException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;

/**
 * Deterministic file content for tests: the little-endian long at word index w of a file made
 * with seed s is {@link #word(long, long) word(s, w)}. Different seeds give different files, so a
 * read that lands in the wrong file is detected.
 */
final class TestContent {
  private TestContent() {}

  static long word(long seed, long index) {
    long z = seed * 0x9E3779B97F4A7C15L + index + 1;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static byte byteAt(long seed, long position) {
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
