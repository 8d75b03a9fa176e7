package dev.pread.bench.raw;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CachedDirectories;
import dev.pread.bench.report.Format;
import dev.pread.cache.BlockCache;
import dev.pread.nativeio.NativeAccess;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.ReadAdvice;

/**
 * Every read strategy and Directory of the benchmarks by name: how it opens (as a {@link Strategy}
 * over one file for the raw reads and the JMH suite, as a Lucene {@link FSDirectory} for the query
 * comparison), what the report's legend says it is, and what it needs of the platform. A name
 * that would silently measure something else (PreadDirectory or CachedPreadDirectory on their
 * NIOFS fallback, MMapDirectory without madvise, CachedPreadDirectory without O_DIRECT) refuses to
 * open instead. An unknown name is an {@link IllegalArgumentException} listing the known ones.
 *
 * <p>{@code dir-cached} is {@link CachedPreadDirectory} over a {@link BlockCache} of its own, sized
 * by the caller's {@link CacheSettings}; as a strategy without settings, one that holds the whole
 * file at the default block size (the warm regime's "all cached").
 *
 * <p>Thread-safe: stateless.
 */
public final class StrategyRegistry {
  /** {@link MappedSegmentStrategy}: the file mapped as one MemorySegment. */
  public static final String MMAP = "mmap";
  /** {@link RawPreadStrategy}: pread(2) through FFM into native buffers. */
  public static final String FFI_PREAD = "ffi-pread";
  /** {@link RawPreadStrategy} with O_DIRECT. */
  public static final String FFI_PREAD_ODIRECT = "ffi-pread-odirect";
  /** {@link FileChannelStrategy} into direct buffers. */
  public static final String FILECHANNEL_DIRECT = "filechannel-direct";
  /** {@link FileChannelStrategy} into heap buffers. */
  public static final String FILECHANNEL_HEAP = "filechannel-heap";
  public static final String DIR_ADAPTIVE = "dir-adaptive";
  public static final String DIR_PREAD = "dir-pread";
  public static final String DIR_PREAD_READAHEAD = "dir-pread-readahead";
  public static final String DIR_MMAP = "dir-mmap";
  public static final String DIR_MMAP_RANDOM = "dir-mmap-random";
  public static final String DIR_NIOFS = "dir-niofs";
  public static final String DIR_CACHED = "dir-cached";

  /** The names {@link #openStrategy} takes. */
  public static final List<String> STRATEGIES = List.of(MMAP, FFI_PREAD, FILECHANNEL_DIRECT, FILECHANNEL_HEAP,
      FFI_PREAD_ODIRECT, DIR_PREAD, DIR_NIOFS, DIR_MMAP, DIR_MMAP_RANDOM, DIR_CACHED, DIR_ADAPTIVE);

  /** The names {@link #openDirectory} takes. */
  public static final List<String> DIRECTORIES =
      List.of(DIR_ADAPTIVE, DIR_PREAD, DIR_PREAD_READAHEAD, DIR_MMAP, DIR_MMAP_RANDOM, DIR_NIOFS, DIR_CACHED);

  /** The strategies {@code ./pread bench} compares by default, in report order. */
  public static final List<String> CLI_DEFAULT =
      List.of(DIR_PREAD, DIR_NIOFS, DIR_MMAP, DIR_MMAP_RANDOM, FFI_PREAD, FILECHANNEL_DIRECT);

  /** The Directories of the Lucene-level comparison by default, in report order. */
  public static final List<String> LUCENE_DEFAULT =
      List.of(DIR_ADAPTIVE, DIR_PREAD, DIR_MMAP, DIR_MMAP_RANDOM, DIR_NIOFS, DIR_CACHED);

  /** What the platform offers that some names need. */
  record Platform(boolean madvise, Optional<String> nativeUnavailable) {
    static Platform current() {
      return new Platform(MMapDirectory.supportsMadvise(), NativeAccess.unavailableReason());
    }
  }

  /** One name: its class, what it needs, how it opens. */
  private enum Entry {
    MMAP(StrategyRegistry.MMAP, MappedSegmentStrategy.class, false, false),
    FFI_PREAD(StrategyRegistry.FFI_PREAD, RawPreadStrategy.class, false, true),
    FFI_PREAD_ODIRECT(StrategyRegistry.FFI_PREAD_ODIRECT, RawPreadStrategy.class, false, true),
    FILECHANNEL_DIRECT(StrategyRegistry.FILECHANNEL_DIRECT, FileChannelStrategy.class, false, false),
    FILECHANNEL_HEAP(StrategyRegistry.FILECHANNEL_HEAP, FileChannelStrategy.class, false, false),
    DIR_ADAPTIVE(StrategyRegistry.DIR_ADAPTIVE, AdaptiveDirectory.class, false, false),
    DIR_PREAD(StrategyRegistry.DIR_PREAD, PreadDirectory.class, false, true),
    DIR_PREAD_READAHEAD(StrategyRegistry.DIR_PREAD_READAHEAD, PreadDirectory.class, false, true),
    DIR_MMAP(StrategyRegistry.DIR_MMAP, MMapDirectory.class, false, false),
    DIR_MMAP_RANDOM(StrategyRegistry.DIR_MMAP_RANDOM, MMapDirectory.class, true, false),
    DIR_NIOFS(StrategyRegistry.DIR_NIOFS, NIOFSDirectory.class, false, false),
    DIR_CACHED(StrategyRegistry.DIR_CACHED, CachedPreadDirectory.class, false, true);

    final String id;
    final Class<?> type;
    final boolean needsMadvise;
    final boolean needsNative;

    Entry(String id, Class<?> type, boolean needsMadvise, boolean needsNative) {
      this.id = id;
      this.type = type;
      this.needsMadvise = needsMadvise;
      this.needsNative = needsNative;
    }

    boolean isDirectory() {
      return DIRECTORIES.contains(id);
    }
  }

  private StrategyRegistry() {}

  private static Entry entry(String name, List<String> known, String what) {
    if (known.contains(name)) {
      for (Entry e : Entry.values()) {
        if (e.id.equals(name)) {
          return e;
        }
      }
    }
    throw new IllegalArgumentException("unknown " + what + " '" + name + "'; one of " + known);
  }

  /**
   * Why {@code name} cannot be measured here (it would measure something else), or empty.
   *
   * @throws IllegalArgumentException if no strategy or Directory has that name
   */
  public static Optional<String> unavailableReason(String name) {
    return unavailableReason(name, Platform.current());
  }

  static Optional<String> unavailableReason(String name, Platform platform) {
    Entry e = entry(name, allNames(), "strategy or directory");
    if (e.needsMadvise && !platform.madvise()) {
      return Optional.of(name + " needs madvise (Linux/macOS, native access enabled for Lucene)");
    }
    if (e.needsNative && platform.nativeUnavailable().isPresent()) {
      String why = e.isDirectory() ? " would measure the NIOFS fallback: " : " needs native access: ";
      return Optional.of(name + why + platform.nativeUnavailable().get());
    }
    return Optional.empty();
  }

  private static void require(Entry e, Platform platform) {
    unavailableReason(e.id, platform).ifPresent(why -> {
      throw new IllegalStateException(why);
    });
  }

  private static List<String> allNames() {
    return Arrays.stream(Entry.values()).map(e -> e.id).toList();
  }

  /** Opens {@code file} with the strategy called {@code name}. */
  public static Strategy openStrategy(String name, Path file) throws IOException {
    return openStrategy(name, file, PreadDirectory.DEFAULT_BUFFER_SIZE);
  }

  /**
   * Opens {@code file} with the strategy called {@code name}; {@code bufferSize} is PreadDirectory's;
   * dir-cached gets a cache that holds the file.
   */
  public static Strategy openStrategy(String name, Path file, int bufferSize) throws IOException {
    return openStrategy(name, file, bufferSize,
        name.equals(DIR_CACHED) ? CacheSettings.holding(Files.size(file), BlockCache.DEFAULT_BLOCK_SIZE) : null);
  }

  /**
   * Opens {@code file} with the strategy called {@code name}; {@code bufferSize} is PreadDirectory's,
   * {@code cache} the block cache of dir-cached (required for it, ignored by the others).
   *
   * @throws IllegalArgumentException if {@code name} is unknown, or dir-cached has no cache settings
   * @throws IllegalStateException if the platform lacks what the strategy needs
   */
  public static Strategy openStrategy(String name, Path file, int bufferSize, CacheSettings cache)
      throws IOException {
    return openStrategy(name, file, bufferSize, cache, Platform.current());
  }

  static Strategy openStrategy(String name, Path file, int bufferSize, CacheSettings cache, Platform platform)
      throws IOException {
    Entry e = entry(name, STRATEGIES, "strategy");
    require(e, platform);
    return switch (e) {
      case MMAP -> new MappedSegmentStrategy(file);
      case FFI_PREAD -> new RawPreadStrategy(file, false);
      case FFI_PREAD_ODIRECT -> new RawPreadStrategy(file, true);
      case FILECHANNEL_DIRECT -> new FileChannelStrategy(file, true);
      case FILECHANNEL_HEAP -> new FileChannelStrategy(file, false);
      default -> {
        FSDirectory d = open(e, file.toAbsolutePath().getParent(), bufferSize, cache, platform);
        Strategy s = new IndexInputStrategy(name, d, file);
        if (d instanceof CachedPreadDirectory c) {
          try {
            CachedDirectories.requireDirect(c, file);
          } catch (IOException | RuntimeException ex) {
            s.close();
            throw ex;
          }
        }
        yield s;
      }
    };
  }

  /** Opens the Directory called {@code name} over {@code folder} (not dir-cached, which needs its cache). */
  public static FSDirectory openDirectory(String name, Path folder) throws IOException {
    return openDirectory(name, folder, null);
  }

  /**
   * Opens the Directory called {@code name} over {@code folder}, PreadDirectory with its default
   * buffer; {@code cache} is dir-cached's (required for it, ignored by the others).
   *
   * @throws IllegalArgumentException if {@code name} is unknown, or dir-cached has no cache settings
   * @throws IllegalStateException if the platform lacks what the Directory needs
   */
  public static FSDirectory openDirectory(String name, Path folder, CacheSettings cache) throws IOException {
    return openDirectory(name, folder, cache, Platform.current());
  }

  static FSDirectory openDirectory(String name, Path folder, CacheSettings cache, Platform platform)
      throws IOException {
    Entry e = entry(name, DIRECTORIES, "directory");
    require(e, platform);
    return open(e, folder, PreadDirectory.DEFAULT_BUFFER_SIZE, cache, platform);
  }

  private static FSDirectory open(Entry e, Path folder, int bufferSize, CacheSettings cache, Platform platform)
      throws IOException {
    return switch (e) {
      case DIR_ADAPTIVE -> new AdaptiveDirectory(folder, NoLockFactory.INSTANCE); // sizes itself
      case DIR_PREAD, DIR_PREAD_READAHEAD -> {
        PreadDirectory d = new PreadDirectory(folder, NoLockFactory.INSTANCE, bufferSize);
        if (!d.isNativePread()) {
          d.close();
          throw new IllegalStateException(e.id + " would measure the NIOFS fallback: "
              + PreadDirectory.nativeUnavailableReason().orElse("native pread is off"));
        }
        if (e == Entry.DIR_PREAD_READAHEAD) {
          // Lucene's hints only: the kernel's readahead where the context gives none.
          d.setReadAdvice(PreadDirectory.ADVISE_BY_HINTS);
        }
        yield d;
      }
      case DIR_MMAP -> new MMapDirectory(folder, NoLockFactory.INSTANCE);
      case DIR_MMAP_RANDOM -> {
        MMapDirectory d = new MMapDirectory(folder, NoLockFactory.INSTANCE);
        d.setReadAdvice((fileName, context) -> Optional.of(ReadAdvice.RANDOM));
        yield d;
      }
      case DIR_NIOFS -> new NIOFSDirectory(folder, NoLockFactory.INSTANCE);
      case DIR_CACHED -> {
        if (cache == null) {
          throw new IllegalArgumentException(e.id + " needs its cache budget and block size");
        }
        yield CachedDirectories.open(folder, cache);
      }
      default -> throw new IllegalArgumentException(e.id + " is not a Directory");
    };
  }

  /** What a run gave dir-cached, for its legend row. */
  public record LegendContext(int cacheBlockSize, boolean cacheAdmission, long indexBytes, String cachedSizing) {}

  /**
   * The class {@code name} stands for.
   *
   * @throws IllegalArgumentException if no strategy or Directory has that name
   */
  public static String className(String name) {
    return entry(name, allNames(), "strategy or directory").type.getName();
  }

  /**
   * How the Lucene comparison configures the Directory {@code name}, in words, for the report's legend.
   *
   * @throws IllegalArgumentException if no Directory has that name
   */
  public static String configuration(String name, LegendContext c) {
    return switch (entry(name, DIRECTORIES, "directory")) {
      case DIR_ADAPTIVE -> "new AdaptiveDirectory(path, NoLockFactory.INSTANCE): no configuration; sizes its own"
          + " memory from the container (cgroup), the bench gives it none";
      case DIR_PREAD -> String.format(Locale.ROOT, "new PreadDirectory(path, NoLockFactory.INSTANCE): buffer %s,"
          + " read advice ADVISE_BY_CONTEXT (RANDOM unless Lucene hints sequential), prefetch on; reads through the"
          + " page cache", Format.bytes(PreadDirectory.DEFAULT_BUFFER_SIZE));
      case DIR_PREAD_READAHEAD -> String.format(Locale.ROOT, "PreadDirectory, buffer %s, read advice"
          + " ADVISE_BY_HINTS (the kernel's readahead where Lucene gives no hint)",
          Format.bytes(PreadDirectory.DEFAULT_BUFFER_SIZE));
      case DIR_MMAP -> "new MMapDirectory(path, NoLockFactory.INSTANCE): Lucene's defaults (read advice from the"
          + " IOContext, prefetch on)";
      case DIR_MMAP_RANDOM -> "MMapDirectory with setReadAdvice(RANDOM for every file): madvise(MADV_RANDOM), no"
          + " readahead";
      case DIR_NIOFS -> "new NIOFSDirectory(path, NoLockFactory.INSTANCE): FileChannel positional reads, Lucene's"
          + " default buffer (BufferedIndexInput, 1 KiB)";
      case DIR_CACHED -> String.format(Locale.ROOT, "CachedPreadDirectory over a BlockCache of its own: O_DIRECT"
          + " reads into %s blocks, frequency admission %s; cache: warm and cold %s (holds the index); pressure %s;"
          + " changing: a quarter of the index minus the measured slack", Format.bytes(c.cacheBlockSize()),
          c.cacheAdmission() ? "on" : "off",
          Format.size(CacheSettings.holding(c.indexBytes(), c.cacheBlockSize()).budgetBytes()),
          c.cachedSizing() == null ? "the page-cache budget minus the measured slack" : c.cachedSizing());
      default -> throw new IllegalArgumentException(name + " is not a Directory");
    };
  }
}
