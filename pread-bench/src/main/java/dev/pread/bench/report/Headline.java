package dev.pread.bench.report;

import static dev.pread.bench.raw.StrategyRegistry.DIR_ADAPTIVE;
import static dev.pread.bench.raw.StrategyRegistry.DIR_CACHED;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP_RANDOM;
import static dev.pread.bench.raw.StrategyRegistry.DIR_NIOFS;
import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The headline of the Lucene-level comparison: each of our Directories against the best
 * alternative (the fastest of MMapDirectory, MMapDirectory with RANDOM advice and NIOFSDirectory)
 * in the same run, regime and thread count. A cell's ratio is the median over rounds of our QPS
 * over the best alternative's QPS in that round; a Directory whose cell failed (e.g. its worker was
 * killed by the OOM killer) scores 0 there. The worst cell of {@link #DEFAULT}'s row is the headline
 * figure: one default that is never the wrong choice has no cell far below 1.
 */
public final class Headline {
  /** Our Directories, rows of the table, in order. */
  static final List<String> OURS = List.of(DIR_ADAPTIVE, DIR_PREAD, DIR_CACHED);
  /** The alternatives a user would otherwise pick. */
  public static final List<String> ALTERNATIVES = List.of(DIR_MMAP, DIR_MMAP_RANDOM, DIR_NIOFS);
  /** The Directory meant to be the default, whose worst cell is named. */
  static final String DEFAULT = DIR_ADAPTIVE;
  /** Regimes, columns of the table, in order. */
  static final List<String> REGIMES = List.of("warm", "cold", "pressure", "changing");

  /** One cell of the table. */
  record Cell(String directory, String regime, int threads, double ratio, double qps, String bestAlternative,
      double bestQps, String failure) {
    boolean failed() {
      return failure != null;
    }
  }

  private Headline() {}

  /**
   * The cells of every (ours, regime, threads) in {@code cells} for which at least one alternative
   * ran without failing, in row and column order.
   */
  public static List<Cell> compute(List<Results.QueryCell> cells) {
    List<Cell> out = new ArrayList<>();
    for (String dir : OURS) {
      for (String regime : REGIMES) {
        for (int t : threadsOf(cells, regime)) {
          Results.QueryCell mine = find(cells, regime, dir, t);
          if (mine == null) {
            continue;
          }
          List<Results.QueryCell> alts = new ArrayList<>();
          for (String a : ALTERNATIVES) {
            Results.QueryCell c = find(cells, regime, a, t);
            if (c != null && c.failure == null) {
              alts.add(c);
            }
          }
          if (alts.isEmpty()) {
            continue;
          }
          Results.QueryCell best = alts.get(0);
          for (Results.QueryCell c : alts) {
            if (Stats.median(c.qps) > Stats.median(best.qps)) {
              best = c;
            }
          }
          double bestQps = Stats.median(best.qps);
          if (mine.failure != null) {
            out.add(new Cell(dir, regime, t, 0, 0, best.directory, bestQps, mine.failure));
            continue;
          }
          int rounds = mine.qps.length;
          double[] perRound = new double[rounds];
          for (int round = 0; round < rounds; round++) {
            double top = 0;
            for (Results.QueryCell c : alts) {
              top = Math.max(top, round < c.qps.length ? c.qps[round] : 0);
            }
            perRound[round] = top > 0 ? mine.qps[round] / top : Double.NaN;
          }
          out.add(new Cell(dir, regime, t, Stats.median(perRound), Stats.median(mine.qps),
              best.directory, bestQps, null));
        }
      }
    }
    return out;
  }

  /** The worst cell of {@code directory}'s row (lowest ratio; a failed cell is the worst), or null. */
  static Cell worst(List<Cell> cells, String directory) {
    Cell worst = null;
    for (Cell c : cells) {
      if (c.directory.equals(directory) && (worst == null || c.ratio < worst.ratio)) {
        worst = c;
      }
    }
    return worst;
  }

  /**
   * The table in Markdown: a row per Directory of ours that ran, a column per regime and thread
   * count, the worst cell of {@link #DEFAULT}'s row in bold, a row naming the best alternative of
   * each column, and a line naming the worst cell.
   */
  static String markdown(List<Cell> cells) {
    if (cells.isEmpty()) {
      return "";
    }
    List<String> columns = new ArrayList<>();
    for (String regime : REGIMES) {
      cells.stream().filter(c -> c.regime.equals(regime)).map(c -> c.threads).distinct().sorted()
          .forEach(t -> columns.add(regime + "|" + t));
    }
    Cell worst = worst(cells, DEFAULT);
    StringBuilder sb = new StringBuilder("| directory |");
    for (String col : columns) {
      String[] p = col.split("\\|");
      sb.append(' ').append(p[0]).append(", ").append(p[1]).append(p[1].equals("1") ? " thread |" : " threads |");
    }
    sb.append("\n|---|").append("---:|".repeat(columns.size())).append('\n');
    for (String dir : OURS) {
      if (cells.stream().noneMatch(c -> c.directory.equals(dir))) {
        continue;
      }
      sb.append("| ").append(dir).append(" |");
      for (String col : columns) {
        Cell c = find(cells, dir, col);
        String text = c == null ? "" : c.failed() ? "FAILED" : Format.ratio(c.ratio);
        sb.append(' ').append(c != null && c == worst ? "**" + text + "**" : text).append(" |");
      }
      sb.append('\n');
    }
    sb.append("| *best alternative (QPS)* |");
    for (String col : columns) {
      Cell any = cells.stream().filter(c -> col.equals(c.regime + "|" + c.threads)).findFirst().orElseThrow();
      sb.append(String.format(Locale.ROOT, " %s (%.1f) |", any.bestAlternative, any.bestQps));
    }
    sb.append("\n\n");
    if (worst != null) {
      sb.append(worstLine(worst)).append("\n\n");
    }
    return sb.toString();
  }

  /** One line naming the worst cell of the default's row. */
  static String worstLine(Cell worst) {
    String where = String.format(Locale.ROOT, "%s, %d thread%s", worst.regime, worst.threads,
        worst.threads == 1 ? "" : "s");
    if (worst.failed()) {
      return String.format(Locale.ROOT, "Worst cell of %s: %s: FAILED (%s); best alternative %s, %.1f QPS.",
          worst.directory, where, worst.failure, worst.bestAlternative, worst.bestQps);
    }
    return String.format(Locale.ROOT, "Worst cell of %s: %s: %s of %s (%.1f against %.1f QPS).", worst.directory,
        where, Format.ratio(worst.ratio), worst.bestAlternative, worst.qps, worst.bestQps);
  }

  /**
   * A line on this run's noise: MMapDirectory over MMapDirectory with RANDOM advice in the warm
   * regime, per thread count (median over rounds of per-round ratios). Warm, every page of the index
   * is resident and both read it through the same mappings: the advice only changes readahead,
   * which acts on misses. Their ratio is what two Directories that read alike score against each
   * other in this run, each in a JVM of its own; a headline ratio as close to 1 is within the run's
   * noise. Empty when either did not run warm.
   */
  static String spreadLine(List<Results.QueryCell> cells) {
    List<String> ratios = new ArrayList<>();
    List<String> threads = new ArrayList<>();
    double farthest = 0;
    for (int t : threadsOf(cells, "warm")) {
      Results.QueryCell m = find(cells, "warm", DIR_MMAP, t);
      Results.QueryCell r = find(cells, "warm", DIR_MMAP_RANDOM, t);
      if (m == null || r == null || m.failure != null || r.failure != null) {
        continue;
      }
      int rounds = Math.min(m.qps.length, r.qps.length);
      double[] perRound = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        perRound[round] = r.qps[round] > 0 ? m.qps[round] / r.qps[round] : Double.NaN;
      }
      double ratio = Stats.median(perRound);
      if (!Double.isFinite(ratio)) {
        continue;
      }
      ratios.add(Format.ratio(ratio));
      threads.add(Integer.toString(t));
      farthest = Math.max(farthest, Math.abs(1 - ratio));
    }
    if (ratios.isEmpty()) {
      return "";
    }
    return String.format(Locale.ROOT, "Spread of this run: two Directories that read alike, dir-mmap over"
        + " dir-mmap-random warm (every page resident, so the advice changes nothing), scored %s at %s thread%s;"
        + " a ratio within %.2f of 1 is within this run's noise.", String.join(" / ", ratios),
        String.join(" / ", threads), threads.size() == 1 && threads.get(0).equals("1") ? "" : "s", farthest);
  }

  private static Cell find(List<Cell> cells, String dir, String column) {
    for (Cell c : cells) {
      if (c.directory.equals(dir) && column.equals(c.regime + "|" + c.threads)) {
        return c;
      }
    }
    return null;
  }

  private static List<Integer> threadsOf(List<Results.QueryCell> cells, String regime) {
    return cells.stream().filter(c -> c.regime.equals(regime)).map(c -> c.threads).distinct().sorted().toList();
  }

  private static Results.QueryCell find(List<Results.QueryCell> cells, String regime, String dir, int threads) {
    for (Results.QueryCell c : cells) {
      if (c.regime.equals(regime) && c.directory.equals(dir) && c.threads == threads) {
        return c;
      }
    }
    return null;
  }
}
