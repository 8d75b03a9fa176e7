package dev.pread.store;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.LockFactory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * The default directory: reads through memory-mapped files while the index fits in the memory left
 * to the page cache, and through a block cache of its own once it does not. Work in progress: this
 * skeleton reads through {@link MMapDirectory} only.
 */
public class AdaptiveDirectory extends FSDirectory {
  private final MMapDirectory mapped;

  /** Creates a directory at {@code path} with {@link FSLockFactory#getDefault()}. */
  public AdaptiveDirectory(Path path) throws IOException {
    this(path, FSLockFactory.getDefault());
  }

  /** Creates a directory at {@code path} with the given lock factory. */
  public AdaptiveDirectory(Path path, LockFactory lockFactory) throws IOException {
    super(path, lockFactory);
    this.mapped = new MMapDirectory(path, lockFactory);
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    ensureCanRead(name);
    return mapped.openInput(name, context);
  }

  @Override
  public synchronized void close() throws IOException {
    IOUtils.close(mapped, super::close);
  }
}
