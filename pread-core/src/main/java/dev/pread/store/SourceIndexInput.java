package dev.pread.store;

import dev.pread.nativeio.ClosedFileException;
import java.io.EOFException;
import java.io.IOException;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.RandomAccessInput;

/**
 * What this package's inputs share: an {@link InputSource} shared by an input and all its clones
 * and slices, the range of it the input covers, whether prefetch acts, and the rules built on them
 * (a closed source is {@link AlreadyClosedException}; bounds checks and their messages; slices,
 * clones, prefetch and close). Subclasses read the bytes.
 *
 * <p><b>Thread-safety:</b> an instance is not thread-safe; give each thread its own {@link
 * #clone()} or slice.
 *
 * <p><b>Close:</b> closing the input that opened the source closes the source; closing a clone or
 * slice does nothing; closing twice does nothing. From then on {@link #ensureOpen()} throws {@link
 * AlreadyClosedException} for the input and every clone and slice of it.
 */
abstract class SourceIndexInput extends IndexInput implements RandomAccessInput {
  /** Shared by the input and all its clones and slices; closed by the input that opened it. */
  final InputSource source;
  /** Absolute file offset of this input's position 0. */
  final long sliceOffset;

  final long length;
  /** False when the directory had prefetch turned off when the source was opened. */
  private final boolean prefetch;
  private boolean isClone;

  /** An input over the whole of {@code source}, which it owns (closes). */
  SourceIndexInput(String resourceDescription, InputSource source, boolean prefetch) {
    super(resourceDescription);
    this.source = source;
    this.sliceOffset = 0;
    this.length = source.size();
    this.prefetch = prefetch;
  }

  /** A slice of {@code parent}'s source: {@code length} bytes from the absolute {@code sliceOffset}. */
  SourceIndexInput(String resourceDescription, SourceIndexInput parent, long sliceOffset, long length) {
    super(resourceDescription);
    this.source = parent.source;
    this.sliceOffset = sliceOffset;
    this.length = length;
    this.prefetch = parent.prefetch;
    this.isClone = true;
  }

  /** A new slice of this input's source (see {@link #SourceIndexInput(String, SourceIndexInput, long, long)}). */
  abstract SourceIndexInput newSlice(String resourceDescription, long sliceOffset, long length);

  /** Throws {@link AlreadyClosedException} if the source is closed. */
  final void ensureOpen() {
    if (source.isClosed()) {
      throw new AlreadyClosedException("Already closed: " + this);
    }
  }

  /**
   * The error to throw for what a closed source threw: an {@link AlreadyClosedException} as is, a
   * {@link ClosedFileException} as an AlreadyClosedException naming this input; any other
   * exception is rethrown.
   */
  final AlreadyClosedException closed(IllegalStateException e) {
    if (e instanceof AlreadyClosedException ace) {
      return ace;
    }
    if (e instanceof ClosedFileException) {
      return new AlreadyClosedException("Already closed: " + this, e);
    }
    throw e;
  }

  /** Checks that the input is open and {@code pos} is not negative (IllegalArgumentException). */
  final void checkOpenAndPosition(long pos) {
    ensureOpen();
    if (pos < 0) {
      throw new IllegalArgumentException("negative position " + pos + ": " + this);
    }
  }

  /** IllegalArgumentException unless {@code [offset, offset + length)} lies within this input. */
  final void checkRange(String what, long offset, long length) {
    InputBounds.checkRange(what, offset, length, this);
  }

  /**
   * Checks a seek to {@code pos}: AlreadyClosedException if closed, IllegalArgumentException if
   * negative, EOFException if past the end (seeking to the end itself is allowed).
   */
  final void checkSeek(long pos) throws EOFException {
    ensureOpen();
    InputBounds.checkSeek(pos, this);
  }

  /** The error for a read of {@code length} bytes at {@code position} past the end of this input. */
  final EOFException readPastEof(long position, long length) {
    return InputBounds.readPastEof(position, length, this);
  }

  @Override
  public final long length() {
    return length;
  }

  /**
   * Starts loading {@code [offset, offset + length)} without waiting (see {@link
   * InputSource#prefetch}). A zero-length prefetch does nothing, and so does every prefetch when
   * the directory had prefetch turned off as this input was opened.
   *
   * @throws IllegalArgumentException if the range is not within this input
   * @throws AlreadyClosedException if the input is closed
   */
  @Override
  public final void prefetch(long offset, long length) throws IOException {
    ensureOpen();
    checkRange("prefetch", offset, length);
    if (!prefetch || length == 0) {
      return;
    }
    try {
      source.prefetch(sliceOffset + offset, length);
    } catch (IllegalStateException e) {
      throw closed(e);
    }
  }

  /** A clone marked as such (so that closing it does nothing); subclasses reset their own state. */
  @Override
  public SourceIndexInput clone() {
    ensureOpen();
    SourceIndexInput clone = (SourceIndexInput) super.clone();
    clone.isClone = true;
    return clone;
  }

  @Override
  public final IndexInput slice(String sliceDescription, long offset, long length) {
    ensureOpen();
    checkRange("slice() " + sliceDescription, offset, length);
    return newSlice(getFullSliceDescription(sliceDescription), sliceOffset + offset, length);
  }

  @Override
  public final void close() throws IOException {
    if (!isClone) {
      source.close();
    }
  }
}
