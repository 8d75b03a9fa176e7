package dev.pread.bench.cli;

import dev.pread.bench.raw.DataFile;
import dev.pread.bench.report.Format;
import dev.pread.bench.report.Stats;
import dev.pread.store.PreadDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./pread cli buffers}: how PreadDirectory's buffer size trades small random reads (a larger
 * buffer copies more per read) against sequential decoding (a smaller buffer makes more syscalls).
 * One thread, warm file; NIOFSDirectory (1 KiB buffer) and MMapDirectory as references.
 */
@Command(
    name = "buffers",
    mixinStandardHelpOptions = true,
    description = "Sweep PreadDirectory's buffer size: small random reads vs sequential decoding.")
final class BufferSweepCommand implements Callable<Integer> {
  @Option(names = "--dir", description = "Folder for the data file (default: ${DEFAULT-VALUE}).")
  Path dir = Path.of("bench-data");

  @Option(names = "--file-size", description = "Data file size (default: ${DEFAULT-VALUE}).")
  String fileSize = "256m";

  @Option(names = "--sizes", split = ",", description = "Buffer sizes (default: ${DEFAULT-VALUE}).")
  List<String> sizes = List.of("1k", "2k", "4k", "8k", "16k", "32k");

  @Option(names = "--record", description = "Bytes per random read (default: ${DEFAULT-VALUE}).")
  int record = 100;

  @Option(names = "--seconds", description = "Seconds per cell and round (default: ${DEFAULT-VALUE}).")
  double seconds = 1;

  @Option(names = "--rounds", description = "Rounds; the median is reported (default: ${DEFAULT-VALUE}).")
  int rounds = 3;

  private record Candidate(String label, FSDirectory dir) {}

  @Override
  public Integer call() throws Exception {
    long size = Format.parseBytes(fileSize);
    Path file = dev.pread.bench.jmh.BenchFiles.dataFile(dir, size);
    DataFile.ensure(file, size);
    Path folder = file.toAbsolutePath().getParent();
    List<Candidate> candidates = new ArrayList<>();
    for (String s : sizes) {
      int b = (int) Format.parseBytes(s);
      candidates.add(new Candidate("pread " + Format.bytes(b), new PreadDirectory(folder, NoLockFactory.INSTANCE, b)));
    }
    candidates.add(new Candidate("niofs (1 KiB)", new NIOFSDirectory(folder, NoLockFactory.INSTANCE)));
    candidates.add(new Candidate("mmap", new MMapDirectory(folder, NoLockFactory.INSTANCE)));
    double[][] random = new double[candidates.size()][rounds];
    double[][] sequential = new double[candidates.size()][rounds];
    String name = file.getFileName().toString();
    try (Progress progress = Progress.start("buffers", (long) rounds * candidates.size(), "")) {
      for (int round = 0; round < rounds; round++) {
        for (int c = 0; c < candidates.size(); c++) {
          progress.setExtraMessage("round " + (round + 1) + " " + candidates.get(c).label());
          try (IndexInput in = candidates.get(c).dir().openInput(name, IOContext.DEFAULT)) {
            DataFile.warm(file);
            random[c][round] = randomRecords(in, size, round);
            sequential[c][round] = sequentialLongs(in, size);
          }
          progress.step();
        }
      }
    }
    System.out.printf(
        "%n### Buffer size, one thread, warm %s file (median of %d rounds)%n%n"
            + "| input | random %d-byte reads/s | vs niofs | sequential readLong MB/s | vs niofs |%n"
            + "|---|---:|---:|---:|---:|%n",
        Format.bytes(size), rounds, record);
    int nio = candidates.size() - 2;
    for (int c = 0; c < candidates.size(); c++) {
      double r = Stats.median(random[c]);
      double s = Stats.median(sequential[c]);
      System.out.printf(
          Locale.ROOT, "| %s | %s | %s | %.0f | %s |%n", candidates.get(c).label(), Format.rate(r),
          Format.ratio(r / Stats.median(random[nio])), s,
          Format.ratio(s / Stats.median(sequential[nio])));
    }
    for (Candidate c : candidates) {
      c.dir().close();
    }
    return 0;
  }

  /** Reads of {@code record} bytes at random offsets (stored fields, term lookups). */
  private double randomRecords(IndexInput in, long size, int round) throws Exception {
    SplittableRandom r = new SplittableRandom(round);
    byte[] b = new byte[record];
    long n = 0;
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    long start = System.nanoTime();
    long sink = 0;
    while (true) {
      for (int i = 0; i < 256; i++) {
        long pos = r.nextLong(size - record) & ~7L;
        in.seek(pos);
        in.readBytes(b, 0, record);
        sink += b[0];
        if (b[0] != (byte) DataFile.expectedAt(pos)) {
          throw new IllegalStateException("wrong byte at " + pos);
        }
      }
      n += 256;
      if (System.nanoTime() > deadline) {
        break;
      }
    }
    if (sink == 42) System.out.print("");
    return n / ((System.nanoTime() - start) / 1e9);
  }

  /**
   * Sequential readLong from the start of the file, as postings and doc values decode; wraps
   * around at the end, so that the measured phase lasts its full time after a discarded warm-up.
   */
  private double sequentialLongs(IndexInput in, long size) throws Exception {
    scanLongs(in, size, 0.3);
    return scanLongs(in, size, seconds);
  }

  private static double scanLongs(IndexInput in, long size, double seconds) throws Exception {
    in.seek(0);
    long limit = size >>> 3;
    long word = 0;
    long total = 0;
    long start = System.nanoTime();
    long deadline = start + (long) (seconds * 1e9);
    do {
      for (int i = 0; i < 4096; i++) {
        if (word == limit) {
          in.seek(0);
          word = 0;
        }
        if (in.readLong() != DataFile.word(word)) {
          throw new IllegalStateException("wrong long at " + (word << 3));
        }
        word++;
      }
      total += 4096;
    } while (System.nanoTime() < deadline);
    return (total << 3) / ((System.nanoTime() - start) / 1e9) / 1e6;
  }
}
