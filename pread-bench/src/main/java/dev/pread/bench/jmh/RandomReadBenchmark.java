package dev.pread.bench.jmh;

import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP_RANDOM;
import static dev.pread.bench.raw.StrategyRegistry.DIR_NIOFS;
import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;
import static dev.pread.bench.raw.StrategyRegistry.FFI_PREAD;
import static dev.pread.bench.raw.StrategyRegistry.FFI_PREAD_ODIRECT;
import static dev.pread.bench.raw.StrategyRegistry.FILECHANNEL_DIRECT;
import static dev.pread.bench.raw.StrategyRegistry.FILECHANNEL_HEAP;
import static dev.pread.bench.raw.StrategyRegistry.MMAP;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.raw.DataFile;
import dev.pread.bench.raw.RawPreadStrategy;
import dev.pread.bench.raw.Strategy;
import dev.pread.bench.raw.StrategyRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Raw read strategies and Lucene directories side by side: each operation is {@code readsPerOp}
 * reads of {@code readSize} bytes from the data file of {@code ./pread bench}.
 *
 * <ul>
 *   <li>{@link #random}: every read at an independent random page-aligned offset;
 *   <li>{@link #sequential}: one random page-aligned offset, then {@code readsPerOp} consecutive
 *       reads from there.
 * </ul>
 *
 * <p><b>Units:</b> scores are operations per second; reads per second = score × {@code
 * readsPerOp}, bytes per second = that × {@code readSize}.
 *
 * <p><b>Regime:</b> warm. The whole file is read before every iteration (outside the measurement),
 * so it is in the page cache; {@code ffi-pread-odirect} bypasses the page cache and measures the
 * device instead (see {@link RawPreadStrategy}). {@code dir-cached} reads with {@code O_DIRECT}
 * into a block cache that holds the whole file ({@link CacheSettings#holding}), preloaded (and
 * checked) before every iteration: "all cached".
 *
 * <p><b>readLong:</b> for the Lucene directories ({@code dir-*}), {@code readSize=8} is {@code seek}
 * + {@code IndexInput.readLong()}; the all-cached comparison is {@code -p
 * strategy=dir-cached,dir-mmap,dir-pread -p readSize=8,16k}.
 *
 * <p><b>Threads</b> come from JMH's {@code -t}. All threads share one opened file (or directory
 * input) and each reads through its own reader: a clone, or a buffer of its own allocated in
 * setup. This machine has 2 cores: {@code -t 1} and {@code -t 2} measure I/O, {@code -t 4} and
 * {@code -t 8} are oversubscribed and measure scheduling as much as reading; label them so.
 *
 * <p><b>Verification:</b> every read's first and last longs are compared with the file's known
 * content (a wrong read throws and fails the run), and each thread compares one whole read byte by
 * byte before every iteration. Offsets come from a per-thread generator seeded by the thread's
 * index, so every strategy reads the same offsets.
 *
 * <p>Parameters: {@code strategy} (see {@link StrategyRegistry#STRATEGIES}), {@code readSize}, {@code
 * readsPerOp}, {@code fileSize}, {@code dataDir} (created if missing; relative to the working
 * directory). Thread-safety: JMH gives each thread its own {@link PerThread}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class RandomReadBenchmark {
  private static final int PAGE = 4096;

  /** The opened file, shared by all threads of a trial. */
  @State(Scope.Benchmark)
  public static class Shared {
    @Param({
      MMAP,
      FFI_PREAD,
      FILECHANNEL_DIRECT,
      FILECHANNEL_HEAP,
      FFI_PREAD_ODIRECT,
      DIR_PREAD,
      DIR_NIOFS,
      DIR_MMAP,
      DIR_MMAP_RANDOM,
      DIR_CACHED
    })
    public String strategy;

    @Param({"4k", "16k"})
    public String readSize;

    @Param({"16"})
    public int readsPerOp;

    @Param({"1g"})
    public String fileSize;

    @Param({"bench-data"})
    public String dataDir;

    Strategy opened;
    Path file;
    int size;
    /** Page-aligned offsets a read may start at: [0, randomPages) × 4096. */
    long randomPages;
    /** Page-aligned offsets a sequential run may start at. */
    long runPages;

    @Setup(Level.Trial)
    public void open() throws IOException {
      long length = BenchFiles.parseSize("fileSize", fileSize);
      size = Math.toIntExact(BenchFiles.parseSize("readSize", readSize));
      if (readsPerOp < 1 || (long) readsPerOp * size > length) {
        throw new IllegalArgumentException(
            "readsPerOp × readSize must fit in the file: " + readsPerOp + " × " + readSize);
      }
      randomPages = (length - size) / PAGE + 1;
      runPages = (length - (long) readsPerOp * size) / PAGE + 1;
      file = BenchFiles.ensureDataFile(dataDir, length);
      opened = StrategyRegistry.openStrategy(strategy, file);
    }

    /** Page cache, and dir-cached's own cache, hold the whole file before every iteration. */
    @Setup(Level.Iteration)
    public void warm() throws IOException {
      DataFile.warm(file);
      opened.preload(BenchFiles.parseSize("fileSize", fileSize));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      opened.close();
    }
  }

  /** One thread's reader and offset generator, made in setup. */
  @State(Scope.Thread)
  public static class PerThread {
    Strategy.Reader reader;
    SplittableRandom random;

    @Setup(Level.Trial)
    public void open(Shared shared, ThreadParams thread) throws IOException {
      reader = shared.opened.newReader(shared.size);
      random = new SplittableRandom(0x5EED_0000L + thread.getThreadIndex());
    }

    /** One whole read compared byte by byte, so a reader that returns stale bytes fails. */
    @Setup(Level.Iteration)
    public void verifyOneRead(Shared shared) throws IOException {
      long position = random.nextLong(shared.randomPages) * PAGE;
      if (!reader.verifyFully(position)) {
        throw new IllegalStateException(
            shared.strategy + " returned wrong bytes at offset " + position);
      }
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
      reader.close();
    }
  }

  @Benchmark
  public void random(Shared shared, PerThread thread, Blackhole bh) throws IOException {
    long pages = shared.randomPages;
    long combined = 0;
    for (int i = 0; i < shared.readsPerOp; i++) {
      long position = thread.random.nextLong(pages) * PAGE;
      combined ^= checked(shared, thread.reader.read(position), position);
    }
    bh.consume(combined);
  }

  @Benchmark
  public void sequential(Shared shared, PerThread thread, Blackhole bh) throws IOException {
    int size = shared.size;
    long position = thread.random.nextLong(shared.runPages) * PAGE;
    long combined = 0;
    for (int i = 0; i < shared.readsPerOp; i++) {
      combined ^= checked(shared, thread.reader.read(position), position);
      position += size;
    }
    bh.consume(combined);
  }

  private static long checked(Shared shared, long fingerprint, long position) {
    if (fingerprint != Strategy.expectedFingerprint(position, shared.size)) {
      throw new IllegalStateException(
          shared.strategy + " returned wrong bytes at offset " + position);
    }
    return fingerprint;
  }
}
