package dev.pread.bench;

import dev.pread.store.PreadDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.ReadAdvice;

/** The read strategies of the CLI benchmarks, by name. */
final class Strategies {
  /** Every strategy the CLI knows, in report order. */
  static final List<String> ALL =
      List.of("pread", "niofs", "mmap", "mmap-random", "ffi-pread", "filechannel-direct");

  private Strategies() {}

  static String describe(String name) {
    return switch (name) {
      case "pread" -> "PreadDirectory IndexInput";
      case "niofs" -> "NIOFSDirectory IndexInput";
      case "mmap" -> "MMapDirectory IndexInput, default advice";
      case "mmap-random" -> "MMapDirectory IndexInput, RANDOM advice";
      case "ffi-pread" -> "raw FFI pread into a native buffer";
      case "filechannel-direct" -> "raw FileChannel.read into a direct ByteBuffer";
      default -> name;
    };
  }

  static Strategy open(String name, Path file, int bufferSize) throws IOException {
    Path folder = file.toAbsolutePath().getParent();
    return switch (name) {
      case "pread" ->
          new IndexInputStrategy(name, new PreadDirectory(folder, NoLockFactory.INSTANCE, bufferSize), file);
      case "niofs" -> new IndexInputStrategy(name, new NIOFSDirectory(folder, NoLockFactory.INSTANCE), file);
      case "mmap" -> new IndexInputStrategy(name, new MMapDirectory(folder, NoLockFactory.INSTANCE), file);
      case "mmap-random" -> {
        MMapDirectory d = new MMapDirectory(folder, NoLockFactory.INSTANCE);
        d.setReadAdvice((n, ctx) -> Optional.of(ReadAdvice.RANDOM));
        yield new IndexInputStrategy(name, d, file);
      }
      case "ffi-pread" -> new RawPreadStrategy(file);
      case "filechannel-direct" -> new FileChannelStrategy(file, true);
      default -> throw new IllegalArgumentException("unknown strategy '" + name + "'; known: " + ALL);
    };
  }
}
