package dev.pread.bench.raw;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CachedDirectories;
import dev.pread.cache.BlockCache;
import dev.pread.store.AdaptiveDirectory;
import dev.pread.store.CachedPreadDirectory;
import dev.pread.store.PreadDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.ReadAdvice;

/**
 * The read strategies of the JMH suite, by the names its {@code strategy} parameter takes. A
 * strategy that would silently measure something else (PreadDirectory or CachedPreadDirectory on
 * their NIOFS fallback, MMapDirectory without madvise) refuses to open instead.
 *
 * <p>{@code dir-cached} is {@link CachedPreadDirectory} over a {@link BlockCache} of the
 * strategy's own, sized by the caller's {@link CacheSettings}; without settings, one that holds the
 * whole file at the default block size (the warm regime's "all cached").
 *
 * <p>Thread-safe: stateless.
 */
public final class ReadStrategies {
  public static final List<String> NAMES =
      List.of(
          "mmap",
          "ffi-pread",
          "filechannel-direct",
          "filechannel-heap",
          "ffi-pread-odirect",
          "dir-pread",
          "dir-niofs",
          "dir-mmap",
          "dir-mmap-random",
          "dir-cached",
          "dir-adaptive");

  private ReadStrategies() {}

  /** The strategies {@code ./pread bench} compares by default, in report order. */
  public static final List<String> CLI_DEFAULT =
      List.of("dir-pread", "dir-niofs", "dir-mmap", "dir-mmap-random", "ffi-pread", "filechannel-direct");

  /** Opens {@code file} with the strategy called {@code name}. */
  public static Strategy open(String name, Path file) throws IOException {
    return open(name, file, PreadDirectory.DEFAULT_BUFFER_SIZE);
  }

  /**
   * Opens {@code file} with the strategy called {@code name}; {@code bufferSize} is PreadDirectory's;
   * dir-cached gets a cache that holds the file.
   */
  public static Strategy open(String name, Path file, int bufferSize) throws IOException {
    return open(name, file, bufferSize,
        name.equals("dir-cached") ? CacheSettings.holding(Files.size(file), BlockCache.DEFAULT_BLOCK_SIZE) : null);
  }

  /**
   * Opens {@code file} with the strategy called {@code name}; {@code bufferSize} is PreadDirectory's,
   * {@code cache} the block cache of dir-cached (required for it, ignored by the others).
   */
  public static Strategy open(String name, Path file, int bufferSize, CacheSettings cache) throws IOException {
    Path folder = file.toAbsolutePath().getParent();
    return switch (name) {
      case "mmap" -> new MappedSegmentStrategy(file);
      case "ffi-pread" -> new RawPreadStrategy(file, false);
      case "filechannel-direct" -> new FileChannelStrategy(file, true);
      case "filechannel-heap" -> new FileChannelStrategy(file, false);
      case "ffi-pread-odirect" -> new RawPreadStrategy(file, true);
      case "dir-pread" -> {
        PreadDirectory d = new PreadDirectory(folder, NoLockFactory.INSTANCE, bufferSize);
        if (!d.isNativePread()) {
          d.close();
          throw new IllegalStateException(
              "dir-pread would measure the NIOFS fallback: "
                  + PreadDirectory.nativeUnavailableReason().orElse("native pread is off"));
        }
        yield new IndexInputStrategy(name, d, file);
      }
      case "dir-niofs" ->
          new IndexInputStrategy(name, new NIOFSDirectory(folder, NoLockFactory.INSTANCE), file);
      case "dir-mmap" ->
          new IndexInputStrategy(name, new MMapDirectory(folder, NoLockFactory.INSTANCE), file);
      case "dir-mmap-random" -> {
        if (!MMapDirectory.supportsMadvise()) {
          throw new IllegalStateException(
              "dir-mmap-random needs madvise (Linux/macOS, native access enabled for Lucene)");
        }
        MMapDirectory d = new MMapDirectory(folder, NoLockFactory.INSTANCE);
        d.setReadAdvice((fileName, context) -> Optional.of(ReadAdvice.RANDOM));
        yield new IndexInputStrategy(name, d, file);
      }
      case "dir-cached" -> openCached(name, folder, file, cache);
      case "dir-adaptive" ->
          new IndexInputStrategy(name, new AdaptiveDirectory(folder, NoLockFactory.INSTANCE), file);
      default ->
          throw new IllegalArgumentException("unknown strategy '" + name + "'; one of " + NAMES);
    };
  }

  private static Strategy openCached(String name, Path folder, Path file, CacheSettings settings) throws IOException {
    if (settings == null) {
      throw new IllegalArgumentException(name + " needs its cache budget and block size");
    }
    CachedPreadDirectory d = CachedDirectories.open(folder, settings);
    Strategy s = new IndexInputStrategy(name, d, file);
    try {
      CachedDirectories.requireDirect(d, file);
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }
}
