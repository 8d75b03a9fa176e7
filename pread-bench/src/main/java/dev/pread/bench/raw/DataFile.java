package dev.pread.bench.raw;

import dev.pread.bench.cli.Progress;
import dev.pread.bench.report.Format;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The benchmark's data file: its little-endian long at word index w is {@link #word(long)}, so any
 * read can be checked against the content it must have.
 */
public final class DataFile {
  private static final long SEED = 0x5EED_F11EL;

  private DataFile() {}

  public static long word(long index) {
    long z = SEED * 0x9E3779B97F4A7C15L + index + 1;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Little-endian long at an 8-byte-aligned file position. */
  public static long expectedAt(long alignedPosition) {
    return word(alignedPosition >>> 3);
  }

  /**
   * Makes sure {@code file} exists with {@code size} bytes of our content: reuses one that does,
   * writes it otherwise (with a progress bar).
   */
  public static void ensure(Path file, long size) throws IOException {
    if (size % 8 != 0 || size <= 0) {
      throw new IllegalArgumentException("file size must be a positive multiple of 8: " + size);
    }
    if (Files.isRegularFile(file) && Files.size(file) == size && looksRight(file, size)) {
      System.out.printf("Reusing %s (%s)%n", file, Format.bytes(size));
      return;
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch =
            FileChannel.open(
                tmp,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        Progress pb = Progress.start("Writing " + file.getFileName(), size >> 20, " MiB")) {
      long w = 0;
      long words = size >>> 3;
      while (w < words) {
        buf.clear();
        while (buf.hasRemaining() && w < words) {
          buf.putLong(word(w++));
        }
        buf.flip();
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        pb.stepTo((w << 3) >> 20);
      }
      ch.force(false);
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private static boolean looksRight(Path file, long size) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file)) {
      for (long pos : new long[] {0, (size / 2) & ~7L, size - 8}) {
        b.clear();
        while (b.hasRemaining() && ch.read(b, pos + b.position()) > 0) {}
        if (b.getLong(0) != expectedAt(pos)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Reads the whole file once, so that it is in the page cache ("warm"). */
  public static void warm(Path file) throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    try (FileChannel ch = FileChannel.open(file)) {
      long pos = 0;
      int n;
      while ((n = ch.read(buf, pos)) > 0) {
        pos += n;
        buf.clear();
      }
    }
  }
}
