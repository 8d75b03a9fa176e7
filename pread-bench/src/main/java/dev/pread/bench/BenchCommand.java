package dev.pread.bench;

import dev.pread.store.PreadDirectory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NoLockFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./pread bench}: warm random reads through each strategy, interleaved in rounds, the median
 * per cell reported as reads/s and as a ratio against NIOFSDirectory.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = "Compare read strategies: random reads, warm page cache.")
final class BenchCommand implements Callable<Integer> {
  @Option(names = "--dir", description = "Folder for the data file (default: ${DEFAULT-VALUE}).")
  Path dir = Path.of("bench-data");

  @Option(names = "--file-size", description = "Data file size, e.g. 1g, 256m (default: ${DEFAULT-VALUE}).")
  String fileSize = "1g";

  @Option(names = "--read-sizes", split = ",", description = "Read sizes (default: ${DEFAULT-VALUE}).")
  List<String> readSizes = List.of("4k", "16k");

  @Option(names = "--threads", split = ",", description = "Thread counts (default: ${DEFAULT-VALUE}).")
  List<Integer> threads = List.of(1, 2);

  @Option(
      names = "--strategies",
      split = ",",
      description = "Any of: pread, niofs, mmap, ffi-pread (default: ${DEFAULT-VALUE}).")
  List<String> strategies = List.of("pread", "niofs", "mmap", "ffi-pread");

  @Option(names = "--seconds", description = "Measured seconds per cell and round (default: ${DEFAULT-VALUE}).")
  double seconds = 0.25;

  @Option(names = "--warmup", description = "Warm-up seconds per cell and round (default: ${DEFAULT-VALUE}).")
  double warmup = 0.1;

  @Option(names = "--rounds", description = "Interleaved rounds; the median is reported (default: ${DEFAULT-VALUE}).")
  int rounds = 15;

  @Option(names = "--buffer-size", description = "PreadDirectory buffer size (default: ${DEFAULT-VALUE}).")
  int bufferSize = PreadDirectory.DEFAULT_BUFFER_SIZE;

  @Option(names = "--out", description = "Results folder (default: ${DEFAULT-VALUE}).")
  Path out = Path.of("bench-results");

  private static final String BASELINE = "niofs";

  @Override
  public Integer call() throws Exception {
    long size = Format.parseBytes(fileSize);
    Path file = dir.resolve("random-read-" + Format.bytes(size).replace(" ", "") + ".dat");
    DataFile.ensure(file, size);

    Map<String, String> machine = MachineInfo.collect(file);
    System.out.println();
    machine.forEach((k, v) -> System.out.printf("  %-14s %s%n", k, v));
    System.out.printf(
        "  %-14s native pread %s%n",
        "read path",
        PreadDirectory.nativeUnavailableReason().map(r -> "OFF: " + r).orElse("on"));

    List<Strategy> opened = new ArrayList<>();
    try {
      for (String s : strategies) {
        opened.add(open(s, file));
      }
      int[] sizes = readSizes.stream().mapToInt(r -> (int) Format.parseBytes(r)).toArray();
      // results[size][threads][strategy] -> one value per round
      Map<String, double[]> results = new HashMap<>();
      long cells = (long) sizes.length * threads.size() * opened.size();
      System.out.printf(
          "%nWarm random reads, %s file, %d rounds x %d cells x %.2f s (+%.2f s warm-up);"
              + " the file is re-read at the start of every round.%n",
          Format.bytes(size), rounds, cells, seconds, warmup);
      for (int round = 0; round < rounds; round++) {
        int cell = 0;
        // A round lasts seconds, far below the minute after which this VM's DAMON reclaimer
        // evicts untouched page cache, so reading the file once per round keeps it warm.
        DataFile.warm(file);
        for (int rs : sizes) {
          for (int t : threads) {
            // Rotate the strategy order each round so none always runs first.
            for (int k = 0; k < opened.size(); k++) {
              Strategy s = opened.get((k + round) % opened.size());
              double r =
                  RandomReadRun.run(
                      s, t, rs, size, (long) (warmup * 1000), (long) (seconds * 1000),
                      round * 1_000_003L + rs + t);
              results.computeIfAbsent(key(rs, t, s.name()), x -> new double[rounds])[round] = r;
              cell++;
              System.out.printf(
                  "\r  round %d/%d  cell %d/%d  %-10s %6s x%d  %10s reads/s   ",
                  round + 1, rounds, cell, cells, s.name(), Format.bytes(rs), t, Format.rate(r));
            }
          }
        }
      }
      System.out.println();
      String table = table(sizes, results);
      System.out.println();
      System.out.print(table);
      Path report = writeReport(machine, table, size);
      System.out.println();
      System.out.println("Report: " + report.toAbsolutePath());
    } finally {
      for (Strategy s : opened) {
        s.close();
      }
    }
    return 0;
  }

  private Strategy open(String name, Path file) throws Exception {
    Path folder = file.toAbsolutePath().getParent();
    return switch (name) {
      case "pread" -> {
        PreadDirectory d = new PreadDirectory(folder, NoLockFactory.INSTANCE, bufferSize);
        yield new IndexInputStrategy("pread", d, file);
      }
      case "niofs" -> new IndexInputStrategy("niofs", new NIOFSDirectory(folder, NoLockFactory.INSTANCE), file);
      case "mmap" -> new IndexInputStrategy("mmap", new MMapDirectory(folder, NoLockFactory.INSTANCE), file);
      case "ffi-pread" -> new RawPreadStrategy(file);
      default -> throw new picocli.CommandLine.ParameterException(
          new picocli.CommandLine(this), "unknown strategy '" + name + "' (pread, niofs, mmap, ffi-pread)");
    };
  }

  private static String key(int readSize, int threads, String strategy) {
    return readSize + "/" + threads + "/" + strategy;
  }

  static double median(double[] v) {
    double[] c = v.clone();
    Arrays.sort(c);
    int n = c.length;
    return n % 2 == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  }

  /**
   * Median over rounds of a[round] / b[round]: cells of one round ran back to back under the same
   * machine conditions, so their ratio is steadier than a ratio of medians.
   */
  static double pairedRatio(double[] a, double[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = a[i] / b[i];
    }
    return median(r);
  }

  private String table(int[] sizes, Map<String, double[]> results) {
    StringBuilder sb = new StringBuilder();
    int cores = Runtime.getRuntime().availableProcessors();
    for (int rs : sizes) {
      sb.append(String.format(Locale.ROOT,
          "### Random %s reads, warm (reads/s: median of %d rounds; ratios: median of per-round ratios)%n%n",
          Format.bytes(rs), rounds));
      sb.append("| strategy |");
      for (int t : threads) {
        sb.append(String.format(Locale.ROOT, " %d thread%s%s | vs %s |", t, t == 1 ? "" : "s", t > cores ? " (oversubscribed)" : "", BASELINE));
      }
      if (threads.size() > 1) {
        sb.append(String.format(Locale.ROOT, " scaling %d->%d |", threads.get(0), threads.get(threads.size() - 1)));
      }
      sb.append('\n').append("|---|");
      sb.append("---:|---:|".repeat(threads.size()));
      if (threads.size() > 1) sb.append("---:|");
      sb.append('\n');
      for (String s : strategies) {
        sb.append("| ").append(s).append(" |");
        for (int t : threads) {
          double[] v = results.get(key(rs, t, s));
          double[] base = results.get(key(rs, t, BASELINE));
          String ratio = base == null ? "-" : Format.ratio(pairedRatio(v, base));
          sb.append(' ').append(Format.rate(median(v))).append(" | ").append(ratio).append(" |");
        }
        if (threads.size() > 1) {
          double[] lo = results.get(key(rs, threads.get(0), s));
          double[] hi = results.get(key(rs, threads.get(threads.size() - 1), s));
          sb.append(' ').append(Format.ratio(pairedRatio(hi, lo))).append(" |");
        }
        sb.append('\n');
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private Path writeReport(Map<String, String> machine, String table, long size) throws Exception {
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path folder = out.resolve(stamp);
    Files.createDirectories(folder);
    StringBuilder md = new StringBuilder();
    md.append("# pread bench, ").append(stamp).append("\n\n");
    md.append("Command: `./pread bench").append(commandLine()).append("`\n\n");
    md.append(String.format(Locale.ROOT,
        "Regime: warm (the %s file is read sequentially at the start of every round; a round lasts"
            + " seconds, well below the minute after which this VM's DAMON reclaimer evicts). Reads are"
            + " page-aligned random offsets; each thread reads a clone (IndexInput strategies) or its"
            + " own native buffer (ffi-pread). Every read is checked against the file's content."
            + " %d rounds, strategies rotated each round; %.2f s measured after %.2f s warm-up per cell."
            + " Figures are reads/s (median of rounds). Ratios against NIOFSDirectory, and the"
            + " scaling from the fewest to the most threads, are the median of per-round ratios.%n%n",
        Format.bytes(size), rounds, seconds, warmup));
    md.append("| machine | |\n|---|---|\n");
    machine.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append("\n").append(table);
    Path report = folder.resolve("report.md");
    Files.writeString(report, md);
    return report;
  }

  private String commandLine() {
    String args = System.getProperty("pread.args", "");
    return args.isBlank() ? "" : " " + args;
  }
}
