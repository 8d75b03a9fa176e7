package dev.pread.cache;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * A file opened through a {@link BlockCache}: reads are served from the cache's blocks and misses
 * are read from storage with {@code O_DIRECT} into the cache.
 *
 * <p>Opening the same file (same device, inode and size) again while it is open shares its cached
 * blocks and its descriptor; each {@code CachedFile} is closed on its own, and the file's blocks are
 * freed when the last one closes.
 *
 * <p><b>Inserting or reading around.</b> A file opened with {@code insert} true puts the blocks it
 * misses into the cache and counts its hits towards keeping blocks. With false (for merges and
 * read-once inputs) it still reads blocks that are cached, but reads misses around the cache into a
 * temporary buffer, so a scan of a large file cannot flush the blocks queries need.
 *
 * <p><b>Thread-safety:</b> every method may be called from any number of threads.
 *
 * <p><b>Close:</b> after {@link #close()}, and after the cache is closed, reads and prefetches throw
 * {@link AlreadyClosedException}. Closing twice is harmless.
 */
public final class CachedFile implements Closeable {
  private final FileBlocks blocks;
  private final boolean insert;
  /**
   * True if a thread the cache reads around in opened this file for its own work ({@link
   * BlockCache#openForCaller}): its misses insert in every thread.
   */
  final boolean own;
  /** Read by {@link BlockReader}s on every read. */
  volatile boolean closed;

  CachedFile(FileBlocks blocks, boolean insert, boolean own) {
    this.blocks = blocks;
    this.insert = insert;
    this.own = own;
  }

  /** The absolute path the file was opened with. */
  public Path path() {
    return blocks.file.path();
  }

  /** The file's size when it was (first) opened. */
  public long size() {
    return blocks.size;
  }

  /** True when misses are read with {@code O_DIRECT}; false where the file system refused it. */
  public boolean isDirect() {
    return blocks.file.isDirect();
  }

  /** True when this file inserts the blocks it misses; see the class comment. */
  public boolean inserts() {
    return insert;
  }

  /** True once this file or its cache is closed. */
  public boolean isClosed() {
    return closed || blocks.cache.isClosed();
  }

  /**
   * Reads at least {@code min} and at most {@code max} bytes at {@code position} into {@code
   * dst[offset..]}, stopping before {@code max} only at end of file.
   *
   * @return the number of bytes read, at least {@code min}
   * @throws EOFException if the file ends before {@code position + min}
   * @throws IllegalArgumentException if the position is negative or {@code min > max}
   * @throws AlreadyClosedException if this file or the cache is closed
   */
  public int readAtLeast(long position, byte[] dst, int offset, int min, int max) throws IOException {
    Objects.checkFromIndexSize(offset, max, dst.length);
    if (min < 0 || min > max) {
      throw new IllegalArgumentException(path() + ": invalid read lengths min=" + min + " max=" + max);
    }
    if (position < 0) {
      throw new IllegalArgumentException(path() + ": invalid read position " + position);
    }
    ensureOpen();
    try {
      return blocks.read(position, dst, offset, min, max, insert, own);
    } catch (IllegalStateException e) {
      throw blocks.cache.closedException(e, path());
    }
  }

  /** Reads exactly {@code length} bytes; see {@link #readAtLeast}. */
  public void read(long position, byte[] dst, int offset, int length) throws IOException {
    readAtLeast(position, dst, offset, length, length);
  }

  /**
   * A reader of this file that reads block memory in place (see {@link BlockReader}): for a
   * thread's small random and sequential reads, which it serves without a copy into a buffer.
   *
   * @param randomAccess true if the reads will be random (a file opened with Lucene's {@code
   *     DataAccessHint.RANDOM}): the reader then loads no extra block when a read walks from one
   *     block into the next
   * @throws IllegalStateException if this file does not insert (a reader loads what it misses)
   * @throws AlreadyClosedException if this file or the cache is closed
   */
  public BlockReader newReader(boolean randomAccess) {
    if (!insert) {
      throw new IllegalStateException(path() + ": opened without inserting; read it with read()");
    }
    ensureOpen();
    return new BlockReader(this, blocks, randomAccess);
  }

  /**
   * Starts loading the blocks of {@code [position, position + length)} that are not cached, on the
   * cache's prefetch threads, and returns without waiting. Blocks already cached or loading are
   * not asked for again; when the cache's in-flight cap is reached the rest are dropped. Does
   * nothing for a file that does not insert.
   *
   * @throws IllegalArgumentException if the range is not within the file
   * @throws AlreadyClosedException if this file or the cache is closed
   */
  public void prefetch(long position, long length) {
    if ((position | length) < 0 || length > size() - position) {
      throw new IllegalArgumentException(
          path() + ": prefetch out of bounds: offset=" + position + ",length=" + length + ",size=" + size());
    }
    ensureOpen();
    if (insert) {
      blocks.prefetch(position, length, own);
    }
  }

  /**
   * Loads the blocks of {@code [position, position + length)} that are not cached, on the calling
   * thread, with vectored reads of up to {@link dev.pread.nativeio.NativeFile#MAX_VECTOR} blocks,
   * into free blocks of the cache only: it never evicts a cached block, and stops when no free
   * block is left (see {@link BlockCache#freeBytes()}). For warming a cache with a range known to
   * be wanted soon; loaded blocks count as neither hits nor misses, and carry no use the admission
   * policy would favour over blocks that queries use. Does nothing for a file that does not insert.
   *
   * @return the bytes of blocks this call loaded (whole blocks, the last one ending at end of file)
   * @throws IllegalArgumentException if the range is not within the file
   * @throws AlreadyClosedException if this file or the cache is closed
   * @throws IOException if a read fails
   */
  public long load(long position, long length) throws IOException {
    if ((position | length) < 0 || length > size() - position) {
      throw new IllegalArgumentException(
          path() + ": load out of bounds: offset=" + position + ",length=" + length + ",size=" + size());
    }
    ensureOpen();
    if (!insert) {
      return 0;
    }
    try {
      return blocks.load(position, length) * blocks.cache.blockSize();
    } catch (IllegalStateException e) {
      throw blocks.cache.closedException(e, path());
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new AlreadyClosedException("file is closed: " + path());
    }
    if (blocks.cache.isClosed()) {
      throw new AlreadyClosedException("block cache is closed: " + path());
    }
  }

  /** Closes this file; the last close of a file frees its blocks and descriptor. */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    blocks.cache.release(blocks);
  }

  @Override
  public String toString() {
    return "CachedFile(" + path() + (isClosed() ? ", closed)" : ")");
  }
}
