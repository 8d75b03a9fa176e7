package dev.pread.bench.raw;

import dev.pread.cache.BlockCache;
import dev.pread.store.CachedPreadDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.BitUtil;
import org.apache.lucene.util.IOUtils;

/**
 * Reads through a Lucene directory's {@link IndexInput}: the input is opened once, and each
 * thread reads a clone of it as Lucene's codecs do. A read of 8 bytes is {@code seek} + {@link
 * IndexInput#readLong()} (how codecs read fixed-width values); longer reads are {@code seek} +
 * {@code readBytes}.
 *
 * <p>For a {@link CachedPreadDirectory} (dir-cached), {@link #cache()} is its block cache and {@link
 * #preload} fills it.
 */
final class IndexInputStrategy implements Strategy {
  private static final int PRELOAD_CHUNK = 1 << 20;

  private final String name;
  private final FSDirectory directory;
  private final BlockCache cache;
  private final IndexInput input;

  /** Opens {@code file} in {@code directory}, which this strategy closes (also when opening fails). */
  IndexInputStrategy(String name, FSDirectory directory, Path file) throws IOException {
    this.name = name;
    this.directory = directory;
    this.cache = directory instanceof CachedPreadDirectory c ? c.getCache() : null;
    IndexInput in = null;
    try {
      in = directory.openInput(file.getFileName().toString(), IOContext.DEFAULT);
    } finally {
      if (in == null) {
        IOUtils.closeWhileHandlingException(directory);
      }
    }
    this.input = in;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Optional<BlockCache> cache() {
    return Optional.ofNullable(cache);
  }

  @Override
  public Reader newReader(int readSize) {
    return readSize == Long.BYTES ? longReader() : bytesReader(readSize);
  }

  private Reader longReader() {
    IndexInput clone = input.clone();
    return new Reader() {
      @Override
      public long read(long position) throws IOException {
        clone.seek(position);
        long v = clone.readLong();
        return Strategy.fingerprint(v, v);
      }

      @Override
      public void prefetch(long position) throws IOException {
        clone.prefetch(position, Long.BYTES);
      }

      @Override
      public boolean verifyFully(long position) throws IOException {
        clone.seek(position);
        return clone.readLong() == DataFile.expectedAt(position);
      }
    };
  }

  private Reader bytesReader(int readSize) {
    IndexInput clone = input.clone();
    byte[] buf = new byte[readSize];
    return new Reader() {
      @Override
      public long read(long position) throws IOException {
        clone.seek(position);
        clone.readBytes(buf, 0, readSize);
        return Strategy.fingerprint(
            (long) BitUtil.VH_LE_LONG.get(buf, 0), (long) BitUtil.VH_LE_LONG.get(buf, readSize - 8));
      }

      @Override
      public void prefetch(long position) throws IOException {
        clone.prefetch(position, readSize);
      }

      @Override
      public boolean verifyFully(long position) throws IOException {
        read(position);
        return matches(buf, position, readSize);
      }
    };
  }

  /** Reads the whole file through a clone once, comparing every long; fills the cache. */
  @Override
  public void preload(long fileSize) throws IOException {
    if (cache == null) {
      return;
    }
    IndexInput clone = input.clone();
    byte[] buf = new byte[PRELOAD_CHUNK];
    clone.seek(0);
    for (long pos = 0; pos < fileSize; pos += PRELOAD_CHUNK) {
      int n = (int) Math.min(PRELOAD_CHUNK, fileSize - pos);
      clone.readBytes(buf, 0, n);
      if (!matches(buf, pos, n)) {
        throw new IllegalStateException(name + " returned wrong bytes while preloading at " + pos);
      }
    }
  }

  /** True when {@code buf[0, length)} is the file's content at {@code position} (8-aligned). */
  private static boolean matches(byte[] buf, long position, int length) {
    for (int i = 0; i + 8 <= length; i += 8) {
      if ((long) BitUtil.VH_LE_LONG.get(buf, i) != DataFile.expectedAt(position + i)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    IOUtils.close(input, directory);
  }
}
