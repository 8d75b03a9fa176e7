package dev.pread.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.LockFactory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.Unwrappable;

/**
 * How {@link PreadDirectory} and {@link CachedPreadDirectory} open inputs: through {@link
 * NIOFSDirectory} where native access is off (with one warning per JVM and directory class), else
 * by opening the real file and handing it to a new input, closing it if the input cannot be made.
 * Also holds the prefetch setting of inputs opened from now on.
 *
 * <p>Thread-safe. {@link #close()} closes the fallback directory, if any.
 */
final class DirectoryInputs implements Closeable {
  /** Opens the file an input will read, by its real path (not a test file system's wrapper). */
  @FunctionalInterface
  interface Opener<F extends Closeable> {
    F open(Path realPath) throws IOException;
  }

  /** Makes the input that owns {@code file} from then on. */
  @FunctionalInterface
  interface InputFactory<F> {
    IndexInput create(F file, String resourceDescription, boolean prefetch) throws IOException;
  }

  /** The directory classes that have logged their fallback warning in this JVM. */
  private static final Set<Class<?>> FALLBACK_LOGGED = ConcurrentHashMap.newKeySet();

  /** Non-null when inputs are NIOFSDirectory's. */
  private final NIOFSDirectory fallback;

  private volatile boolean prefetch = true;

  /**
   * @param owner the directory's class: names the logger, and is warned about once per JVM
   * @param unavailableReason why native access is off, or empty to read natively
   * @param warning the warning logged on the fallback path, with {@code {0}} for the reason
   */
  DirectoryInputs(
      Class<?> owner, Path path, LockFactory lockFactory, Optional<String> unavailableReason, String warning)
      throws IOException {
    if (unavailableReason.isPresent()) {
      if (FALLBACK_LOGGED.add(owner)) {
        System.getLogger(owner.getName()).log(System.Logger.Level.WARNING, warning, unavailableReason.get());
      }
      this.fallback = new NIOFSDirectory(path, lockFactory);
    } else {
      this.fallback = null;
    }
  }

  /** True when inputs are opened natively; false when they are NIOFSDirectory's. */
  boolean isNative() {
    return fallback == null;
  }

  void setPrefetch(boolean enabled) {
    this.prefetch = enabled;
  }

  boolean isPrefetch() {
    return prefetch;
  }

  /**
   * Opens {@code name} in {@code directory}: NIOFSDirectory's input on the fallback path; else
   * {@code factory}'s input over the file {@code opener} opened, described as {@code kind(path="...")}.
   * If making the input throws anything, the file is closed (failures to close are suppressed).
   * The caller has checked that the directory is open and the file may be read.
   */
  <F extends Closeable> IndexInput open(
      Path directory, String name, IOContext context, String kind, Opener<F> opener, InputFactory<F> factory)
      throws IOException {
    if (fallback != null) {
      return fallback.openInput(name, context);
    }
    Path path = directory.resolve(name);
    // Lucene's test file systems wrap the default one; the kernel needs the real path.
    F file = opener.open(Unwrappable.unwrapAll(path));
    try {
      return factory.create(file, kind + "(path=\"" + path + "\")", prefetch);
    } catch (Throwable t) {
      IOUtils.closeWhileSuppressingExceptions(t, file);
      throw t;
    }
  }

  @Override
  public void close() throws IOException {
    IOUtils.close(fallback);
  }
}
