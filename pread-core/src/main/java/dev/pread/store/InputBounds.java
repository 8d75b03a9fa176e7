package dev.pread.store;

import java.io.EOFException;
import org.apache.lucene.store.IndexInput;

/** Bounds checks shared by this package's inputs, so that all give the same messages. */
final class InputBounds {
  private InputBounds() {}

  /** IllegalArgumentException unless {@code [offset, offset + length)} lies within {@code input}. */
  static void checkRange(String what, long offset, long length, IndexInput input) {
    if ((length | offset) < 0 || length > input.length() - offset) {
      throw new IllegalArgumentException(
          what + " out of bounds: offset=" + offset + ",length=" + length + ",fileLength=" + input.length() + ": " + input);
    }
  }

  /**
   * Checks a seek to {@code pos}: IllegalArgumentException if negative, EOFException if past the
   * end of {@code input} (seeking to the end itself is allowed).
   */
  static void checkSeek(long pos, IndexInput input) throws EOFException {
    if (pos < 0) {
      throw new IllegalArgumentException("negative position " + pos + ": " + input);
    }
    if (pos > input.length()) {
      throw new EOFException("seek past EOF: pos=" + pos + " vs length=" + input.length() + ": " + input);
    }
  }

  /** The error for a read of {@code length} bytes at {@code position} past the end of {@code input}. */
  static EOFException readPastEof(long position, long length, IndexInput input) {
    return new EOFException(
        "read past EOF: position=" + position + " length=" + length + " fileLength=" + input.length() + ": " + input);
  }
}
