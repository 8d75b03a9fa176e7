package dev.pread.bench.jmh;

import dev.pread.bench.raw.DataFile;
import dev.pread.bench.report.Format;
import dev.pread.nativeio.Advice;
import dev.pread.nativeio.NativeFile;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Writing and reading a whole file front to back through the usual Java APIs and through FFI
 * ({@link WholeFileApi#NAMES}). Each operation is one pass over the file, timed alone
 * ({@link Mode#SingleShotTime}): scores are milliseconds per pass, so MiB/s = {@code fileSize} in
 * MiB × 1000 / score.
 *
 * <ul>
 *   <li>{@link #write}: a fresh file of {@code fileSize} bytes of {@link DataFile} content, from a
 *       copy of that content in native memory made in setup. {@code allocation} ({@link
 *       Allocation}) says whether the file grows, has its size set, or has its blocks reserved
 *       first; that step is part of the pass. Without {@code fsync=true} a pass ends when the data
 *       is in the page cache, and the next pass truncates it before it reaches the disk: that is a
 *       page-cache figure. With it, each pass ends with fsync and includes the disk.
 *   <li>{@link #read}: the data file of {@link RandomReadBenchmark} ({@code cache=warm}: read once
 *       in setup, in the page cache; {@code cache=cold}: its pages dropped with {@code
 *       posix_fadvise(DONTNEED)} before every pass, which drops clean pages only and the file is
 *       clean).
 * </ul>
 *
 * <p><b>Verification:</b> every read pass sums the file's longs and throws unless the sum is the
 * content's ({@link LongSum}); after every write pass the file's size and sum are checked with a
 * plain FileChannel read, outside the timing.
 *
 * <p>Parameters: {@code api}, {@code allocation}, {@code fsync} (write), {@code cache} (read),
 * {@code fileSize}, {@code chunkSize} (bytes per call, a divisor of {@code fileSize}), {@code
 * dataDir}. Single-threaded: run with {@code -t 1}; the file and its verification are not meant
 * for concurrent passes, and the setup refuses more threads.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(2)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Threads(1)
public class SequentialFileBenchmark {

  /** What a write pass needs: the content in memory and the API with its buffer. */
  @State(Scope.Thread)
  public static class WriteState {
    @Param({"raf", "buffered-stream", "filechannel", "mmap", "ffi"})
    public String api;

    @Param({"growing", "setlength", "fallocate"})
    public String allocation;

    @Param({"false"})
    public boolean fsync;

    @Param({"256m"})
    public String fileSize;

    @Param({"4k"})
    public String chunkSize;

    @Param({"bench-data"})
    public String dataDir;

    WholeFileApi io;
    Allocation alloc;
    Path file;
    long size;
    long expectedSum;
    private Arena arena;
    MemorySegment content;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws IOException {
      requireOneThread(params);
      size = BenchFiles.parseSize("fileSize", fileSize);
      int chunk = chunkSize(chunkSize, size);
      alloc = Allocation.of(allocation);
      io = WholeFileApi.create(api, chunk);
      arena = Arena.ofShared();
      content = LongSum.content(arena, size);
      expectedSum = LongSum.expected(size);
      Path dir = Path.of(dataDir);
      Files.createDirectories(dir);
      file = dir.resolve("sequential-write-" + Format.bytes(size).replace(" ", "") + ".dat");
    }

    /** The pass just measured wrote the whole content, or the run fails. */
    @TearDown(Level.Iteration)
    public void verifyWrite() throws IOException {
      long actualSize = Files.size(file);
      if (actualSize != size) {
        throw new IllegalStateException(
            api + "/" + allocation + " wrote " + actualSize + " bytes, not " + size);
      }
      long sum = checksumOf(file, size);
      if (sum != expectedSum) {
        throw new IllegalStateException(
            api + "/" + allocation + " wrote wrong content: sum " + sum + ", want " + expectedSum);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      io.close();
      arena.close();
      Files.deleteIfExists(file);
    }
  }

  /** What a read pass needs: the data file, its checksum and the API with its buffer. */
  @State(Scope.Thread)
  public static class ReadState {
    @Param({"raf", "buffered-stream", "filechannel", "mmap", "ffi"})
    public String api;

    @Param({"warm"})
    public String cache;

    @Param({"256m"})
    public String fileSize;

    @Param({"4k"})
    public String chunkSize;

    @Param({"bench-data"})
    public String dataDir;

    WholeFileApi io;
    Path file;
    long size;
    long expectedSum;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws IOException {
      requireOneThread(params);
      if (!cache.equals("warm") && !cache.equals("cold")) {
        throw new IllegalArgumentException("cache must be warm or cold: " + cache);
      }
      size = BenchFiles.parseSize("fileSize", fileSize);
      io = WholeFileApi.create(api, chunkSize(chunkSize, size));
      file = BenchFiles.ensureDataFile(dataDir, size);
      expectedSum = LongSum.expected(size);
      if (cache.equals("warm")) {
        DataFile.warm(file);
      }
    }

    @Setup(Level.Iteration)
    public void dropCacheIfCold() throws IOException {
      if (cache.equals("cold")) {
        try (NativeFile f = NativeFile.open(file.toAbsolutePath())) {
          f.advise(0, 0, Advice.DONTNEED);
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      io.close();
    }
  }

  @Benchmark
  public void write(WriteState s) throws IOException {
    s.io.write(s.file, s.content, s.alloc, s.fsync);
  }

  @Benchmark
  public long read(ReadState s) throws IOException {
    long sum = s.io.readSum(s.file, s.size);
    if (sum != s.expectedSum) {
      throw new IllegalStateException(
          s.api + " read a wrong sum from " + s.file + ": " + sum + " (want " + s.expectedSum + ")");
    }
    return sum;
  }

  private static void requireOneThread(BenchmarkParams params) {
    if (params.getThreads() != 1) {
      throw new IllegalArgumentException(
          "SequentialFileBenchmark is single-threaded; run it with -t 1, not -t "
              + params.getThreads());
    }
  }

  private static int chunkSize(String value, long fileSize) {
    long chunk = BenchFiles.parseSize("chunkSize", value);
    if (chunk > Integer.MAX_VALUE || fileSize % chunk != 0) {
      throw new IllegalArgumentException(
          "chunkSize must divide fileSize: " + value + " into " + fileSize + " bytes");
    }
    return (int) chunk;
  }

  /** The file's {@link LongSum} over {@code size} bytes, read independently of the API measured. */
  private static long checksumOf(Path file, long size) throws IOException {
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    MemorySegment view = MemorySegment.ofBuffer(buf);
    long sum = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      for (long pos = 0; pos < size; ) {
        buf.clear();
        buf.limit((int) Math.min(buf.capacity(), size - pos));
        while (buf.hasRemaining()) {
          if (ch.read(buf, pos + buf.position()) < 0) {
            throw new EOFException(file + ": ended at offset " + (pos + buf.position()));
          }
        }
        sum += LongSum.of(view, 0, buf.limit());
        pos += buf.limit();
      }
    }
    return sum;
  }
}
