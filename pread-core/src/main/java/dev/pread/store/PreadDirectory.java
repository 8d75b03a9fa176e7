package dev.pread.store;

import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeAccess;
import dev.pread.nativeio.NativeFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import org.apache.lucene.store.DataAccessHint;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.LockFactory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.ReadAdvice;
import org.apache.lucene.store.ReadOnceHint;
import org.apache.lucene.util.IOUtils;

/**
 * An {@link FSDirectory} that reads files with positional {@code pread(2)} through the Java FFM
 * API.
 *
 * <p>Compared with {@link NIOFSDirectory}, reads take no JDK monitor (a {@code FileChannel}
 * registers every reading thread in a synchronized set), so threads reading clones of one input
 * scale; and {@link Thread#interrupt()} cannot close a file under a reader. Compared with {@code
 * MMapDirectory}, an index larger than the memory available to the page cache does not turn into
 * a storm of page faults with readahead around each one.
 *
 * <p><b>Native access.</b> The native path needs Linux on x86_64 or aarch64 and a JVM started
 * with {@code --enable-native-access=ALL-UNNAMED} (see {@link NativeAccess}). Where it is not
 * available, inputs are those of {@link NIOFSDirectory}, and one warning per JVM says why. {@link
 * #isNativePread()} tells which path an instance uses.
 *
 * <p><b>Buffers.</b> Each input (and each clone) has a heap buffer of up to {@link
 * #getBufferSize()} bytes, {@value #DEFAULT_BUFFER_SIZE} by default, filled adaptively: 1 KiB
 * after a jump, doubling while reads stay sequential; inputs opened for merges, for reading once or
 * with {@link DataAccessHint#SEQUENTIAL} use at least {@value #SEQUENTIAL_BUFFER_SIZE}. Reads of at
 * least the buffer size bypass it.
 *
 * <p><b>Read advice.</b> Each input has a file descriptor of its own, so {@code posix_fadvise}
 * advice set when it is opened applies to that input, its clones and slices, and to nothing else.
 * By default ({@link #ADVISE_BY_CONTEXT}) merges, flushes, read-once inputs and {@link
 * DataAccessHint#SEQUENTIAL} get {@code POSIX_FADV_SEQUENTIAL} (doubled readahead) and every other
 * input {@code POSIX_FADV_RANDOM} (no readahead: the input's own refills do the sequential
 * reading). {@link #ADVISE_BY_HINTS} keeps the kernel's readahead where Lucene gives no hint.
 * {@link #setReadAdvice} overrides this per file name and context.
 *
 * <p><b>Prefetch.</b> Inputs implement {@link IndexInput#prefetch}: a non-blocking {@code
 * posix_fadvise(WILLNEED)} that is skipped when the data is already cached. {@link
 * #setPrefetch(boolean) setPrefetch(false)} turns it into a no-op for inputs opened afterwards.
 *
 * <p>Writing, deleting, renaming and syncing are {@link FSDirectory}'s. Thread-safe.
 */
public class PreadDirectory extends FSDirectory {
  /**
   * Default (largest) buffer size of an input. Refills start at 1 KiB after a jump and double
   * while reads stay sequential, so a random small read copies little while sequential decoding
   * makes one syscall per 16 KiB; a larger buffer adds copying for random reads and little for
   * sequential ones ({@code ./pread cli buffers} measures the sizes, docs/benchmarks.md).
   */
  public static final int DEFAULT_BUFFER_SIZE = 16 * 1024;

  /** Buffer size for merges, read-once and sequential inputs. */
  public static final int SEQUENTIAL_BUFFER_SIZE = 64 * 1024;

  /** Smallest accepted buffer size. */
  public static final int MIN_BUFFER_SIZE = 64;

  private static final System.Logger LOG = System.getLogger(PreadDirectory.class.getName());
  private static final AtomicBoolean ADVICE_FAILURE_LOGGED = new AtomicBoolean();

  /**
   * Lucene's hints only: {@link ReadAdvice#SEQUENTIAL} for merges, flushes, read-once inputs and
   * {@link DataAccessHint#SEQUENTIAL}; {@link ReadAdvice#RANDOM} for {@link DataAccessHint#RANDOM};
   * otherwise none, so the kernel's readahead applies. Not the default: see {@link
   * #ADVISE_BY_CONTEXT}.
   */
  public static final BiFunction<String, IOContext, Optional<ReadAdvice>> ADVISE_BY_HINTS =
      (name, context) -> {
        if (context.context() == IOContext.Context.MERGE
            || context.context() == IOContext.Context.FLUSH
            || context.hints().contains(ReadOnceHint.INSTANCE)
            || context.hints().contains(DataAccessHint.SEQUENTIAL)) {
          return Optional.of(ReadAdvice.SEQUENTIAL);
        }
        if (context.hints().contains(DataAccessHint.RANDOM)) {
          return Optional.of(ReadAdvice.RANDOM);
        }
        return Optional.empty();
      };

  /**
   * The default read advice: {@link ReadAdvice#SEQUENTIAL} for merges, flushes, read-once inputs
   * and {@link DataAccessHint#SEQUENTIAL}; {@link ReadAdvice#RANDOM} for everything else.
   *
   * <p>Why RANDOM where Lucene gives no hint (postings, terms, doc values, points): an input
   * buffers for itself, with refills that double while reads stay sequential, so it gains little
   * from the kernel's readahead; but under a memory limit that readahead grows a few sequential
   * reads into windows of up to {@code read_ahead_kb} and evicts what other queries need. The
   * cost is on the other side: a file read sequentially without a hint gets no readahead. The
   * Lucene query mix under a memory limit measures both ({@code ./pread bench --sections lucene
   * --regimes pressure --directories dir-pread,dir-pread-readahead,dir-mmap-random}, see
   * docs/benchmarks.md). Use {@link #ADVISE_BY_HINTS} to get readahead back.
   */
  public static final BiFunction<String, IOContext, Optional<ReadAdvice>> ADVISE_BY_CONTEXT =
      (name, context) -> ADVISE_BY_HINTS.apply(name, context).or(() -> Optional.of(ReadAdvice.RANDOM));

  private volatile BiFunction<String, IOContext, Optional<ReadAdvice>> readAdvice =
      ADVISE_BY_CONTEXT;

  private final int bufferSize;
  private final DirectoryInputs inputs;

  /** Creates a directory at {@code path} with {@link FSLockFactory#getDefault()}. */
  public PreadDirectory(Path path) throws IOException {
    this(path, FSLockFactory.getDefault());
  }

  /** Creates a directory at {@code path} with the given lock factory. */
  public PreadDirectory(Path path, LockFactory lockFactory) throws IOException {
    this(path, lockFactory, DEFAULT_BUFFER_SIZE);
  }

  /**
   * Creates a directory at {@code path} whose inputs buffer {@code bufferSize} bytes.
   *
   * @throws IllegalArgumentException if bufferSize is below {@value #MIN_BUFFER_SIZE}
   */
  public PreadDirectory(Path path, LockFactory lockFactory, int bufferSize) throws IOException {
    this(path, lockFactory, bufferSize, false);
  }

  /** For tests: {@code forceFallback} reads through NIOFSDirectory's inputs. */
  PreadDirectory(Path path, LockFactory lockFactory, int bufferSize, boolean forceFallback)
      throws IOException {
    super(path, lockFactory);
    if (bufferSize < MIN_BUFFER_SIZE) {
      throw new IllegalArgumentException(
          "bufferSize must be at least " + MIN_BUFFER_SIZE + " (got " + bufferSize + ")");
    }
    this.bufferSize = bufferSize;
    Optional<String> reason =
        forceFallback
            ? Optional.of("the fallback was forced for this directory")
            : NativeAccess.unavailableReason();
    this.inputs =
        new DirectoryInputs(
            PreadDirectory.class,
            path,
            lockFactory,
            reason,
            "PreadDirectory: native pread is off ({0}); reading through FileChannel like NIOFSDirectory");
  }

  /** True when inputs read with native {@code pread}; false when they are NIOFSDirectory's. */
  public boolean isNativePread() {
    return inputs.isNative();
  }

  /** Why the native path is off in this JVM, or empty when it is available. */
  public static Optional<String> nativeUnavailableReason() {
    return NativeAccess.unavailableReason();
  }

  /**
   * Sets how inputs opened from now on are advised, from their file name and context; an empty
   * result leaves the kernel's default. Inputs already open keep their advice. For example, to read
   * every file as random access: {@code dir.setReadAdvice((name, ctx) ->
   * Optional.of(ReadAdvice.RANDOM))}. Has no effect on the fallback path.
   */
  public void setReadAdvice(BiFunction<String, IOContext, Optional<ReadAdvice>> toReadAdvice) {
    this.readAdvice = Objects.requireNonNull(toReadAdvice, "toReadAdvice");
  }

  /** The read advice function set by {@link #setReadAdvice}, {@link #ADVISE_BY_CONTEXT} by default. */
  public BiFunction<String, IOContext, Optional<ReadAdvice>> getReadAdvice() {
    return readAdvice;
  }

  /**
   * Whether inputs opened from now on act on {@link IndexInput#prefetch} (the default) or ignore
   * it. With {@code false}, prefetch still checks that the input is open and the range lies within
   * it, but asks nothing of the kernel: no {@code cachestat} probe, no {@code WILLNEED} advice. Inputs
   * already open, and their clones and slices, keep the setting they were opened with. For example,
   * an operator may turn prefetch off where the whole index stays in the page cache, or to see
   * whether prefetch is behind a change in I/O. Has no effect on the fallback path, whose prefetch
   * is NIOFSDirectory's no-op.
   */
  public void setPrefetch(boolean enabled) {
    inputs.setPrefetch(enabled);
  }

  /** True when inputs opened from now on act on prefetch; see {@link #setPrefetch}. */
  public boolean isPrefetch() {
    return inputs.isPrefetch();
  }

  /** The buffer size of inputs opened with a default context. */
  public int getBufferSize() {
    return bufferSize;
  }

  int bufferSize(IOContext context) {
    boolean sequential =
        context.context() == IOContext.Context.MERGE
            || context.hints().contains(ReadOnceHint.INSTANCE)
            || context.hints().contains(DataAccessHint.SEQUENTIAL);
    return sequential ? Math.max(bufferSize, SEQUENTIAL_BUFFER_SIZE) : bufferSize;
  }

  @Override
  public IndexInput openInput(String name, IOContext context) throws IOException {
    ensureOpen();
    ensureCanRead(name);
    // The user's advice function may throw anything: the file is closed then.
    return inputs.open(
        getDirectory(),
        name,
        context,
        "PreadIndexInput",
        NativeFile::open,
        (file, description, prefetch) -> {
          readAdvice.apply(name, context).ifPresent(advice -> advise(file, advice));
          return new PreadIndexInput(description, new PageCacheSource(file), bufferSize(context), prefetch);
        });
  }

  private static void advise(NativeFile file, ReadAdvice advice) {
    Advice fadvice =
        switch (advice) {
          case RANDOM -> Advice.RANDOM;
          case SEQUENTIAL -> Advice.SEQUENTIAL;
          default -> Advice.NORMAL; // NORMAL, or a value added by a later Lucene
        };
    if (fadvice == Advice.NORMAL) {
      return; // the kernel's default for a new open file description
    }
    try {
      file.advise(0, 0, fadvice);
    } catch (IOException e) {
      if (ADVICE_FAILURE_LOGGED.compareAndSet(false, true)) {
        LOG.log(System.Logger.Level.WARNING, "read advice failed (logged once; reads continue): " + e.getMessage());
      }
    }
  }

  @Override
  public synchronized void close() throws IOException {
    IOUtils.close(inputs, super::close);
  }
}
