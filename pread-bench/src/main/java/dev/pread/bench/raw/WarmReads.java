package dev.pread.bench.raw;

import dev.pread.bench.cache.CacheUse;
import dev.pread.bench.report.Report;
import dev.pread.bench.report.Results;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Random reads in the warm regime. Every round starts by reading the file into the page cache;
 * strategies with a cache of their own are preloaded ({@link Strategy#preload}: dir-cached's block
 * cache, every byte checked); then each read size, thread count and strategy runs for a fraction of
 * a second, strategies rotated. Cells are named by the labels given (the opener turns a label into
 * a strategy); dir-cached's cells record what its cache did.
 *
 * <p>Two shapes: {@link #run} opens every strategy once and keeps it across rounds (caches are
 * filled once); {@link #runOneAtATime} opens, preloads and closes one strategy per round at a time,
 * for candidates too large to hold all at once (several caches each holding the file).
 */
public final class WarmReads {
  private WarmReads() {}

  /** Cells measured. */
  public static long steps(List<String> labels, int[] sizes, List<Integer> threads, int rounds) {
    return (long) rounds * sizes.length * threads.size() * labels.size();
  }

  public static void run(Results r, String regime, Path file, long size, List<String> labels, int[] sizes,
      List<Integer> threads, int rounds, double seconds, Strategy.Opener opener, Consumer<String> step)
      throws Exception {
    addCells(r, regime, labels, sizes, threads, rounds);
    List<Strategy> opened = new ArrayList<>();
    try {
      for (String s : labels) {
        opened.add(opener.open(s));
      }
      for (int round = 0; round < rounds; round++) {
        DataFile.warm(file);
        for (Strategy s : opened) {
          s.preload(size);
        }
        for (int rs : sizes) {
          for (int t : threads) {
            for (int k = 0; k < opened.size(); k++) {
              int i = (k + round) % opened.size();
              measure(r, regime, labels.get(i), opened.get(i), size, rs, t, round, seconds, step);
            }
          }
        }
      }
    } finally {
      for (Strategy s : opened) {
        s.close();
      }
    }
  }

  public static void runOneAtATime(Results r, String regime, Path file, long size, List<String> labels, int[] sizes,
      List<Integer> threads, int rounds, double seconds, Strategy.Opener opener, Consumer<String> step)
      throws Exception {
    addCells(r, regime, labels, sizes, threads, rounds);
    for (int round = 0; round < rounds; round++) {
      DataFile.warm(file);
      for (int k = 0; k < labels.size(); k++) {
        String label = labels.get((k + round) % labels.size());
        try (Strategy s = opener.open(label)) {
          s.preload(size);
          for (int rs : sizes) {
            for (int t : threads) {
              measure(r, regime, label, s, size, rs, t, round, seconds, step);
            }
          }
        }
      }
    }
  }

  private static void addCells(Results r, String regime, List<String> labels, int[] sizes, List<Integer> threads,
      int rounds) {
    for (int rs : sizes) {
      for (int t : threads) {
        for (String s : labels) {
          r.cells.add(new Results.Cell(regime, s, rs, t, rounds));
        }
      }
    }
  }

  private static void measure(Results r, String regime, String label, Strategy s, long size, int rs, int t,
      int round, double seconds, Consumer<String> step) throws Exception {
    Results.Cell cell = r.cell(regime, label, rs, t);
    CacheUse.Probe probe = CacheUse.probe(s.cache().orElse(null));
    cell.rounds[round] = RandomReadRun.run(s, t, rs, size, 100, (long) (seconds * 1000), round * 1_000_003L + rs + t);
    cell.cache = CacheUse.add(cell.cache, probe.done());
    if (cell.cache != null) {
      cell.cache.check(regime + " " + label);
    }
    step.accept(String.format(Locale.ROOT, "%s %s %s x%d", regime, label, Report.readLabel(rs), t));
  }
}
