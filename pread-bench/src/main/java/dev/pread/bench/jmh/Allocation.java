package dev.pread.bench.jmh;

import dev.pread.nativeio.NativeOutputFile;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * How a write pass finds its file (the {@code allocation} parameter). Every pass starts from an
 * empty file, so no pass reuses the blocks of the one before.
 *
 * <ul>
 *   <li>{@code growing}: the file is empty and grows with every write;
 *   <li>{@code setlength}: the size is set first ({@link RandomAccessFile#setLength}, {@code
 *       ftruncate}): the file is sparse, no blocks are reserved;
 *   <li>{@code fallocate}: blocks are reserved first ({@code fallocate(2)} through {@link
 *       NativeOutputFile#preallocate}).
 * </ul>
 *
 * <p>Thread-safe: constants.
 */
enum Allocation {
  GROWING,
  SETLENGTH,
  FALLOCATE;

  static Allocation of(String name) {
    return switch (name) {
      case "growing" -> GROWING;
      case "setlength" -> SETLENGTH;
      case "fallocate" -> FALLOCATE;
      default ->
          throw new IllegalArgumentException(
              "unknown allocation '" + name + "'; one of growing, setlength, fallocate");
    };
  }

  /**
   * Empties {@code file} (creating it) and applies this allocation for {@code size} bytes, for APIs
   * that then open the existing file without truncating it.
   */
  void prepare(Path file, long size) throws IOException {
    if (this == FALLOCATE) {
      try (NativeOutputFile f = NativeOutputFile.create(file)) {
        f.preallocate(size);
      }
      return;
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(0);
      if (this == SETLENGTH) {
        raf.setLength(size);
      }
    }
  }

  /** The same allocation on an already emptied native file. */
  void apply(NativeOutputFile file, long size) throws IOException {
    switch (this) {
      case GROWING -> {}
      case SETLENGTH -> file.setLength(size);
      case FALLOCATE -> file.preallocate(size);
    }
  }
}
