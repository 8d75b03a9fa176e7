package dev.pread.bench.jmh;

import dev.pread.bench.raw.DataFile;
import dev.pread.bench.report.Format;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where the JMH benchmarks keep their files: the data file is named as {@code ./pread bench} names
 * it ({@code random-read-1GiB.dat}), so both reuse one copy.
 *
 * <p>Thread-safe: stateless.
 */
public final class BenchFiles {
  private BenchFiles() {}

  /** The data file of {@code size} bytes in {@code folder}. */
  public static Path dataFile(Path folder, long size) {
    return folder.resolve("random-read-" + Format.bytes(size).replace(" ", "") + ".dat");
  }

  /** Creates (or reuses) the data file of {@code size} bytes in {@code folder}. */
  static Path ensureDataFile(String folder, long size) throws IOException {
    Path file = dataFile(Path.of(folder), size);
    DataFile.ensure(file, size);
    return file;
  }

  /** Parses a size parameter ("4k", "1g", "4096") that must be a positive multiple of 8. */
  static long parseSize(String name, String value) {
    long n = Format.parseBytes(value);
    if (n <= 0 || n % 8 != 0) {
      throw new IllegalArgumentException(name + " must be a positive multiple of 8: " + value);
    }
    return n;
  }
}
