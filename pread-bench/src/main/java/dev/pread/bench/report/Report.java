package dev.pread.bench.report;

import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP;
import static dev.pread.bench.raw.StrategyRegistry.DIR_MMAP_RANDOM;
import static dev.pread.bench.raw.StrategyRegistry.DIR_NIOFS;
import static dev.pread.bench.raw.StrategyRegistry.DIR_PREAD;

import com.google.gson.GsonBuilder;
import dev.pread.bench.pressure.LimitKeeper;
import dev.pread.bench.raw.PrefetchDistanceRun;
import dev.pread.bench.raw.PrefetchLatencyRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/** Writes a run's results as results.json, report.md and PNG charts into one folder. */
public final class Report {
  private Report() {}

  /** The baseline each regime's ratios are taken against: the best of Lucene's own Directories there. */
  static String baseline(String regime) {
    return regime.equals("pressure") ? DIR_MMAP_RANDOM : DIR_NIOFS;
  }

  /** The baseline of {@code regime} in {@code r}: its own, where the run named one, else the default. */
  static String baseline(Results r, String regime) {
    return r.baselines.getOrDefault(regime, baseline(regime));
  }

  /** How a read size is named: 8 bytes is IndexInput.readLong for the directories. */
  public static String readLabel(int readSize) {
    return readSize == Long.BYTES ? "readLong" : Format.bytes(readSize);
  }

  /** Regimes that read from storage, whose tables show faults and bytes read. */
  static boolean readsStorage(String regime) {
    return regime.startsWith("pressure") || regime.startsWith("cold");
  }

  public static String markdown(Results r) {
    StringBuilder md = new StringBuilder();
    md.append("# pread bench, ").append(r.date).append("\n\n");
    md.append("Command: `").append(r.command).append("`\n\n");
    md.append(headline(r));
    md.append("| machine | |\n|---|---|\n");
    r.machine.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(v).append(" |\n"));
    md.append("| data file | ").append(Format.bytes(r.fileSize)).append(" |\n");
    if (r.pressureFileSize > 0) {
      md.append("| pressure data file | ").append(Format.bytes(r.pressureFileSize)).append(" |\n");
    }
    md.append('\n');
    md.append("Regimes:\n\n");
    r.regimes.forEach((k, v) -> md.append("- **").append(k).append("**: ").append(v).append('\n'));
    for (String s : r.skipped) {
      md.append("- skipped: ").append(s).append('\n');
    }
    md.append('\n');
    md.append("Every read is checked against the file's content (a fingerprint of each read, one read"
        + " per thread and cell compared byte by byte). Reads/s are medians over rounds; ratios are"
        + " medians of per-round ratios (cells of a round run back to back, strategies rotated).\n\n");
    if (r.preface != null) {
      md.append(r.preface).append('\n');
    }
    md.append(luceneTables(r));
    md.append(randomReadTables(r));
    if (!r.reference.isEmpty()) {
      md.append("### Reference rows (physical limits, same run)\n\n| what | figure |\n|---|---:|\n");
      r.reference.forEach((k, v) -> md.append("| ").append(k).append(" | ").append(Format.rate(v)).append(" |\n"));
      md.append('\n');
    }
    if (!r.prefetchLatency.isEmpty()) {
      md.append("### Cold prefetch latency (16 KiB blocks, each in its own 8 MiB region of an evicted file)\n\n"
          + "Wait = time the reader still waited after its simulated work; a prefetch that hides the disk"
          + " brings it to zero once the work is longer than the device latency.\n\n"
          + "| strategy | work (us) | samples | median wait (us) | p90 wait (us) |\n|---|---:|---:|---:|---:|\n");
      for (PrefetchLatencyRun.Result x : r.prefetchLatency) {
        md.append(String.format(Locale.ROOT, "| %s | %d | %d | %.0f | %.0f |%n", x.strategy(), x.delayMicros(),
            x.samples(), x.medianWaitMicros(), x.p90WaitMicros()));
      }
      md.append('\n');
    }
    md.append(batchTables(r));
    md.append(CacheReport.cacheTable(r));
    md.append(CacheReport.memoryTable(r));
    if (!r.prefetchDistance.isEmpty()) {
      md.append("### Prefetch distance (pressure; random 8 KiB preads, posix_fadvise(WILLNEED) D reads ahead, 1 thread)\n\n"
          + "| D | reads/s | vs D=0 | p50 latency (us, bucket bound) | p99 latency (us) |\n|---:|---:|---:|---:|---:|\n");
      double base = r.prefetchDistance.get(0).readsPerSecond();
      for (PrefetchDistanceRun.Result x : r.prefetchDistance) {
        md.append(String.format(Locale.ROOT, "| %d | %s | %s | <%d | <%d |%n", x.distance(), Format.rate(x.readsPerSecond()),
            Format.ratio(x.readsPerSecond() / base), x.p50Micros(), x.p99Micros()));
      }
      md.append('\n');
    }
    return md.toString();
  }

  private static final List<String> LUCENE_REGIMES = List.of("warm", "pressure", "cold", "changing", "throttled");

  /**
   * The legend (what each strategy name is: class, configuration, JVM flags) and the headline
   * table ({@link Headline}) with the line naming its worst cell; empty without a Lucene comparison.
   */
  public static String headline(Results r) {
    if (r.legend.isEmpty() && r.headline.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("### Legend\n\n| name | class | configuration | JVM flags |\n|---|---|---|---|\n");
    for (Results.Legend l : r.legend) {
      sb.append("| ").append(l.name()).append(" | `").append(l.className()).append("` | ").append(l.configuration())
          .append(" | `").append(l.jvmFlags()).append("` |\n");
    }
    sb.append('\n');
    if (!r.headline.isEmpty()) {
      sb.append("### Headline: our Directories against the best alternative\n\n");
      sb.append("Each cell: QPS over the QPS of the best of dir-mmap, dir-mmap-random and dir-niofs in the same run,"
          + " regime and thread count (median over rounds of per-round ratios); above 1 is faster. changing: phase B"
          + " (the index no longer fits, after the settling). The worst cell of dir-adaptive is in bold.\n\n");
      sb.append(Headline.markdown(r.headline));
      String spread = Headline.spreadLine(r.queryCells);
      if (!spread.isEmpty()) {
        sb.append(spread).append("\n\n");
      }
    }
    return sb.toString();
  }

  private static String luceneTables(Results r) {
    if (r.lucene == null || (r.queryCells.isEmpty() && r.disturbed.isEmpty())) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    long queries = r.queryCells.stream().mapToLong(c -> c.queries).sum()
        + r.disturbed.stream().mapToLong(d -> d.queries).sum();
    sb.append(String.format(Locale.ROOT, "### Lucene queries: %s index, %,d documents in %d segments%n%n",
        Format.size(r.lucene.indexBytes), r.lucene.docs, r.lucene.segments));
    sb.append(String.format(Locale.ROOT, "Corpus: %s. A seeded mix of %d queries (term queries of three frequency"
        + " classes, AND, OR, phrase, range sorted by size, KNN k=10; the top 10 stored documents fetched for"
        + " each), the same for every Directory%s. All %,d queries run returned the reference hits (checksums of"
        + " ids, scores, counts and stored fields, taken on dir-mmap).%n%n", r.lucene.corpus, r.lucene.mixSize,
        r.lucene.mixFingerprint == 0 ? "" // results.json of a run that kept no fingerprint
            : String.format(Locale.ROOT, " (fingerprint %016x: runs with the same one ran the same queries)",
                r.lucene.mixFingerprint),
        queries));
    for (String regime : LUCENE_REGIMES) {
      List<Results.QueryCell> mine = r.queryCells.stream().filter(c -> c.regime.equals(regime)).toList();
      if (mine.isEmpty()) {
        continue;
      }
      int rounds = mine.get(0).qps.length;
      sb.append(String.format(Locale.ROOT, "#### %s (QPS%s; latency in ms)%n%n", regime,
          rounds > 1 ? ", median of " + rounds + " rounds" : ""));
      String summed = rounds > 1 ? ", all rounds" : ""; // counts add up over the rounds' workers
      sb.append("| directory | threads | QPS | vs dir-mmap | vs dir-mmap-random | vs dir-pread | p50 | p99 | major faults"
          + summed + " | MB read from storage" + summed + " | CPU ms a query | of it in the kernel | JIT compiler CPU (ms" + summed
          + ") | query threads on a core |\n"
          + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Results.QueryCell c : mine) {
        if (c.failure != null) {
          sb.append(String.format(Locale.ROOT, "| %s | %d | FAILED: %s | | | | | | | | | | | |%n", c.directory, c.threads,
              c.failure.replace("|", "/")));
          continue;
        }
        Results.QueryCell mm = ok(r.queryCell(regime, DIR_MMAP, c.threads));
        Results.QueryCell mr = ok(r.queryCell(regime, DIR_MMAP_RANDOM, c.threads));
        Results.QueryCell pr = ok(r.queryCell(regime, DIR_PREAD, c.threads));
        // Results written without CPU figures read back as zeros: a measured window always has some.
        boolean cpu = c.cpuUserMillis >= 0 && c.cpuSystemMillis >= 0 && c.cpuUserMillis + c.cpuSystemMillis > 0
            && c.queries > 0;
        boolean onCore = c.queryThreadCpuMillis > 0 && c.queryThreadMillis > 0;
        sb.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %s | %s | %s | %.2f | %.2f | %d | %s | %s | %s | %s | %s |%n",
            c.directory, c.threads, Stats.median(c.qps),
            mm == null ? "" : Format.ratio(Stats.pairedRatio(c.qps, mm.qps)),
            mr == null ? "" : Format.ratio(Stats.pairedRatio(c.qps, mr.qps)),
            pr == null ? "" : Format.ratio(Stats.pairedRatio(c.qps, pr.qps)),
            Stats.median(c.p50Micros) / 1000, Stats.median(c.p99Micros) / 1000, c.majorFaults,
            c.storageReadBytes < 0 ? "?" : String.format(Locale.ROOT, "%.0f", c.storageReadBytes / 1e6),
            cpu ? String.format(Locale.ROOT, "%.2f", (double) (c.cpuUserMillis + c.cpuSystemMillis) / c.queries) : "?",
            cpu ? String.format(Locale.ROOT, "%.2f", (double) c.cpuSystemMillis / c.queries) : "?",
            c.compilerCpuMillis == null ? "?" : c.compilerCpuMillis.toString(),
            onCore ? String.format(Locale.ROOT, "%.0f%%", 100.0 * c.queryThreadCpuMillis / c.queryThreadMillis) : "?"));
      }
      sb.append('\n');
      sb.append(kindTable(regime, mine.stream().filter(c -> c.failure == null).toList()));
      if (regime.equals("changing")) {
        sb.append(changingTable(r));
      }
      if (regime.equals("throttled")) {
        sb.append(perQueryTable(mine));
      }
    }
    sb.append(disturbedTables(r));
    sb.append(restartTable(r));
    return sb.toString();
  }

  /** The restart runs: each Directory's first seconds after a restart against its own warm QPS. */
  private static String restartTable(Results r) {
    List<Results.QueryCell> warm = r.queryCells.stream().filter(c -> c.regime.equals("restart warm")).toList();
    if (warm.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder("#### restart (QPS over the first seconds after the open, against the same"
        + " Directory's warm QPS)\n\n| directory | threads | warm QPS | page cache kept: QPS | kept / warm | at "
        + WARM_SHARE + "x warm from (s), kept | hot set loaded, kept (MB, in s from the open) | page cache dropped: QPS |"
        + " dropped / warm | at " + WARM_SHARE + "x warm from (s), dropped | hot set loaded, dropped (MB, in s from the open) |"
        + " MB read from storage, dropped |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Results.QueryCell w : warm) {
      Results.QueryCell k = r.queryCell("restart kept", w.directory, w.threads);
      Results.QueryCell d = r.queryCell("restart dropped", w.directory, w.threads);
      sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", w.directory,
          w.threads, qps(w), qps(k), ratioTo(k, w), toWarm(k, w), hotSet(k), qps(d), ratioTo(d, w), toWarm(d, w), hotSet(d),
          ok(d) == null || d.storageReadBytes < 0 ? "" : String.format(Locale.ROOT, "%.0f", d.storageReadBytes / 1e6)));
    }
    double interval = r.queryCells.stream().filter(c -> c.intervalQps != null).mapToDouble(c -> c.intervalSeconds)
        .findFirst().orElse(Double.NaN);
    if (!Double.isNaN(interval)) {
      sb.append(String.format(Locale.ROOT, "At %sx warm from: the start of the first %d intervals of %.0f s in a row in"
          + " which the restarted JVM ran at %sx its warm QPS or more, counted from the open (\"-\": not within the"
          + " cell).%n", WARM_SHARE, WARM_RUN, interval, WARM_SHARE));
    }
    return sb.append('\n').toString();
  }

  /** The share of its warm QPS a restarted JVM counts as warm again, for {@link #toWarm}. */
  static final double WARM_SHARE = 0.9;

  /** Intervals in a row at {@link #WARM_SHARE} of the warm QPS that {@link #toWarm} asks for. */
  static final int WARM_RUN = 3;

  /** Seconds from the open to the first {@link #WARM_RUN} intervals in a row at {@link #WARM_SHARE} of {@code warm}'s QPS. */
  static String toWarm(Results.QueryCell c, Results.QueryCell warm) {
    if (ok(c) == null || ok(warm) == null || c.intervalQps == null) {
      return "";
    }
    double target = WARM_SHARE * Stats.median(warm.qps);
    int whole = c.intervalQps.length - 1; // the last interval may be short: not counted
    for (int i = 0; i + WARM_RUN <= whole; i++) {
      boolean warmAgain = true;
      for (int j = i; j < i + WARM_RUN; j++) {
        warmAgain &= c.intervalQps[j] >= target;
      }
      if (warmAgain) {
        return String.format(Locale.ROOT, "%.0f", i * c.intervalSeconds);
      }
    }
    return "-";
  }

  /** Adds a line of {@code values}, one per interval of {@code intervalSeconds}, at the intervals' middles. */
  private static void addIntervals(XYChart chart, String name, double[] values, double intervalSeconds) {
    List<Double> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      xs.add((i + 0.5) * intervalSeconds);
      ys.add(values[i]);
    }
    chart.addSeries(name, xs, ys);
  }

  /** Per thread count of the restart runs: QPS per interval from the open, a line per Directory and case. */
  private static List<String> restartCharts(Results r, Path folder) throws IOException {
    List<String> names = new ArrayList<>();
    List<Results.QueryCell> cells = r.queryCells.stream()
        .filter(c -> c.regime.startsWith("restart ") && !c.regime.equals("restart warm") && ok(c) != null
            && c.intervalQps != null)
        .toList();
    for (int t : cells.stream().map(c -> c.threads).distinct().sorted().toList()) {
      XYChart chart = new XYChartBuilder().width(1100).height(520)
          .title(String.format(Locale.ROOT, "restart, %d thread%s: QPS per %.0f s from the Directory's open", t,
              t == 1 ? "" : "s", cells.get(0).intervalSeconds))
          .xAxisTitle("seconds from the open").yAxisTitle("queries per second").build();
      chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
      for (Results.QueryCell c : cells) {
        if (c.threads != t) {
          continue;
        }
        addIntervals(chart, c.directory + ", page cache " + c.regime.substring("restart ".length()), c.intervalQps,
            c.intervalSeconds);
      }
      String name = String.format(Locale.ROOT, "restart-qps-%dt.png", t);
      BitmapEncoder.saveBitmap(chart, folder.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
      names.add(name);
    }
    return names;
  }

  private static String qps(Results.QueryCell c) {
    if (c == null) {
      return "";
    }
    return c.failure != null ? "FAILED: " + c.failure.replace("|", "/") : String.format(Locale.ROOT, "%.1f", Stats.median(c.qps));
  }

  private static String ratioTo(Results.QueryCell c, Results.QueryCell base) {
    return ok(c) == null || ok(base) == null ? "" : Format.ratio(Stats.median(c.qps) / Stats.median(base.qps));
  }

  private static String hotSet(Results.QueryCell c) {
    if (ok(c) == null || c.hotSetLoadedBytes < 0) {
      return "-";
    }
    String mb = String.format(Locale.ROOT, "%.0f", c.hotSetLoadedBytes / 1e6);
    return c.hotSetLoadSeconds == null ? mb : String.format(Locale.ROOT, "%s in %.1f s", mb, c.hotSetLoadSeconds);
  }

  /** Bytes and device reads per query of the throttled cells: what a capped volume charges for. */
  private static String perQueryTable(List<Results.QueryCell> mine) {
    StringBuilder sb = new StringBuilder("Per query, throttled (the fewest bytes and reads win on a capped volume):\n\n"
        + "| directory | threads | KB read from storage per query | device reads per query | p99 (ms) |\n"
        + "|---|---:|---:|---:|---:|\n");
    for (Results.QueryCell c : mine) {
      if (c.failure != null || c.queries <= 0) {
        continue;
      }
      sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.2f |%n", c.directory, c.threads,
          c.storageReadBytes < 0 ? "?" : String.format(Locale.ROOT, "%.1f", c.storageReadBytes / 1e3 / c.queries),
          c.deviceReads < 0 ? "?" : String.format(Locale.ROOT, "%.2f", (double) c.deviceReads / c.queries),
          Stats.median(c.p99Micros) / 1000));
    }
    return sb.append('\n').toString();
  }

  /** The regimes of {@link DisturbedResult}s, in the report's order. */
  private static final List<String> DISTURBED_REGIMES = List.of("merge", "indexing", "neighbour");

  /** The merge, indexing and neighbour runs: per phase QPS, p99, hit ratio and bytes read; recovery. */
  private static String disturbedTables(Results r) {
    StringBuilder sb = new StringBuilder();
    for (String regime : DISTURBED_REGIMES) {
      List<DisturbedResult> mine = r.disturbed.stream().filter(d -> d.regime.equals(regime)).toList();
      if (mine.isEmpty()) {
        continue;
      }
      sb.append(String.format(Locale.ROOT, "#### %s (QPS and latency before, during and after; latency in ms)%n%n",
          regime));
      sb.append("| directory | threads | QPS before / during / after | during / before | during vs best alternative"
          + " | p99 before / during / after | p99 during vs best alternative | recovery (s) | longest stall (s)"
          + " | cache hit ratio before / during / after | MB read before / during / after |\n"
          + "|---|---:|---|---:|---|---|---:|---:|---:|---|---|\n");
      for (DisturbedResult d : mine) {
        if (d.failure != null) {
          sb.append(String.format(Locale.ROOT, "| %s | %d | FAILED: %s | | | | | | | | |%n", d.directory, d.threads,
              d.failure.replace("|", "/")));
          continue;
        }
        sb.append(String.format(Locale.ROOT, "| %s | %d | %.1f / %.1f / %.1f | %s | %s | %.1f / %.1f / %.1f | %s | %s"
                + " | %.2f | %s | %.0f / %.0f / %.0f |%n",
            d.directory, d.threads, d.qps[0], d.qps[1], d.qps[2],
            d.qps[0] > 0 ? Format.ratio(d.qps[1] / d.qps[0]) : "",
            Double.isNaN(d.ratioDuring) ? "" : Format.ratio(d.ratioDuring) + " (" + d.bestDuring + ")",
            d.p99Micros[0] / 1000, d.p99Micros[1] / 1000, d.p99Micros[2] / 1000,
            Double.isNaN(d.p99RatioDuring) ? "" : Format.ratio(d.p99RatioDuring),
            d.recoverySeconds < 0 ? "not within the run" : String.format(Locale.ROOT, "%.1f", d.recoverySeconds),
            d.stallSeconds,
            Double.isNaN(d.hitRatio[0]) && Double.isNaN(d.hitRatio[1]) && Double.isNaN(d.hitRatio[2]) ? ""
                : String.format(Locale.ROOT, "%s / %s / %s", hit(d.hitRatio[0]), hit(d.hitRatio[1]), hit(d.hitRatio[2])),
            d.storageReadBytes[0] / 1e6, d.storageReadBytes[1] / 1e6, d.storageReadBytes[2] / 1e6));
      }
      List<DisturbedResult> ran = mine.stream().filter(d -> d.failure == null).toList();
      sb.append(threadTimesTable(ran));
      if (ran.stream().map(d -> d.disturbance).distinct().count() == 1) {
        sb.append("\nThe disturbance: ").append(ran.get(0).disturbance).append(".\n");
      } else if (!ran.isEmpty()) {
        sb.append("\nThe disturbance, per Directory:\n\n");
        for (DisturbedResult d : ran) {
          sb.append("- ").append(d.directory).append(", ").append(d.threads).append(d.threads == 1 ? " thread: " : " threads: ")
              .append(d.disturbance).append('\n');
        }
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  /**
   * Where a query thread's seconds went in each phase (on a core, waiting for one, neither) and the
   * CPU of the JVM's other threads; empty when no run has these figures.
   */
  static String threadTimesTable(List<DisturbedResult> ran) {
    List<DisturbedResult> known = ran.stream().filter(d -> d.queryOnCoreMillis[0] >= 0).toList();
    if (known.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("\nA query thread's second before / during / after, in ms (Linux's per-thread scheduler counters):"
        + " on a core, runnable but waiting for a core (other threads had them), and the rest: blocked in reads"
        + " from storage or on locks; and the ms a second the JVM's other threads (the writer, merges, the JIT,"
        + " the collector) were on a core, out of 1,000 a core:\n\n");
    sb.append("| directory | threads | on a core | waiting for a core | blocked | the JVM's other threads on a core |\n"
        + "|---|---:|---|---|---|---|\n");
    for (DisturbedResult d : known) {
      double[] blocked = new double[3];
      for (int p = 0; p < 3; p++) {
        blocked[p] = d.queryOnCoreMillis[p] < 0 || d.queryWaitingMillis[p] < 0 ? -1
            : Math.max(0, 1000 - d.queryOnCoreMillis[p] - d.queryWaitingMillis[p]);
      }
      sb.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s |%n", d.directory, d.threads,
          phases(d.queryOnCoreMillis), phases(d.queryWaitingMillis), phases(blocked), phases(d.otherCpuMillis)));
    }
    return sb.toString();
  }

  /** Three per-phase figures in ms as "a / b / c", "?" for an unknown one. */
  private static String phases(double[] millis) {
    StringBuilder sb = new StringBuilder();
    for (int p = 0; p < 3; p++) {
      sb.append(p == 0 ? "" : " / ").append(millis[p] < 0 ? "?" : String.format(Locale.ROOT, "%.0f", millis[p]));
    }
    return sb.toString();
  }

  private static String hit(double ratio) {
    return Double.isNaN(ratio) ? "-" : String.format(Locale.ROOT, "%.3f", ratio);
  }

  /** Per regime and thread count of the merge, indexing and neighbour runs: QPS over time, a line per Directory. */
  private static List<String> disturbedCharts(Results r, Path folder) throws IOException {
    List<String> names = new ArrayList<>();
    for (String regime : DISTURBED_REGIMES) {
      List<DisturbedResult> ok = r.disturbed.stream()
          .filter(d -> d.regime.equals(regime) && d.failure == null && d.intervalQps != null).toList();
      for (int t : ok.stream().map(d -> d.threads).distinct().sorted().toList()) {
        XYChart chart = new XYChartBuilder().width(1100).height(520)
            .title(String.format(Locale.ROOT, "%s, %d thread%s: QPS per %.0f s (each line: its disturbance from %s)",
                regime, t, t == 1 ? "" : "s", ok.get(0).intervalSeconds, "the end of 'before'"))
            .xAxisTitle("seconds from the start of the queries").yAxisTitle("queries per second").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        for (DisturbedResult d : ok) {
          if (d.threads != t) {
            continue;
          }
          addIntervals(chart, String.format(Locale.ROOT, "%s (%.0f-%.0f s)", d.directory, d.start, d.end), d.intervalQps,
              d.intervalSeconds);
        }
        String name = String.format(Locale.ROOT, "%s-qps-%dt.png", regime, t);
        BitmapEncoder.saveBitmap(chart, folder.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        names.add(name);
      }
    }
    return names;
  }

  /** The cell, or null when it failed or is missing. */
  private static Results.QueryCell ok(Results.QueryCell c) {
    return c == null || c.failure != null ? null : c;
  }

  /** The changing-memory runs: per phase QPS, p99 and ratio to the best alternative, settling and stalls. */
  private static String changingTable(Results r) {
    if (r.changing.isEmpty()) {
      return "";
    }
    StringBuilder sb = new StringBuilder();
    sb.append("Changing memory, per phase (A: the index fits; B: a quarter of it does, after the settling; ratios to"
        + " the best of dir-mmap, dir-mmap-random and dir-niofs in the same phase and thread count; p99 in ms;"
        + " stall: the longest stretch with no completed query, and when it began, in seconds from the start):\n\n");
    sb.append("| directory | threads | QPS A | vs best A | p99 A | settling (s) | QPS settling | QPS B | vs best B"
        + " | p99 B | page cache A / B | longest stall (s) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Results.Changing c : r.changing) {
      if (c.failure != null) {
        sb.append(String.format(Locale.ROOT, "| %s | %d | FAILED: %s | | | | | | | | | |%n", c.directory, c.threads,
            c.failure.replace("|", "/")));
        continue;
      }
      sb.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %s | %.2f | %.1f | %.1f | %.1f | %s | %.2f | %s / %s"
          + " | %.2f at %.1f |%n", c.directory, c.threads, c.qpsA, vs(c.ratioA, c.bestA), c.p99MicrosA / 1000,
          c.phaseBStart - c.hogStart, c.qpsSettling, c.qpsB, vs(c.ratioB, c.bestB), c.p99MicrosB / 1000,
          Format.size(c.pageCacheA), Format.size(c.pageCacheB), c.stallSeconds, c.stallStart));
    }
    Results.Changing any = r.changing.stream().filter(c -> c.failure == null).findFirst().orElse(null);
    if (any != null) {
      sb.append(String.format(Locale.ROOT, "%nLimit %s (%s besides page cache + 1.5 x the %s index); the second"
          + " process held %s of anonymous memory.", Format.size(any.limitBytes), Format.size(any.otherBytes),
          Format.size(any.indexBytes), Format.size(any.hogBytes)));
      long widest = 0;
      int writes = 0;
      for (Results.Changing c : r.changing) {
        if (c.failure == null && c.limitWrites > 0) {
          widest = Math.max(widest, LimitKeeper.widestMove(c.limitBytes, c.limitLowestBytes, c.limitHighestBytes));
          writes += c.limitWrites;
        }
      }
      if (writes > 0) {
        sb.append(String.format(Locale.ROOT, " From the moment it held its memory to the end of phase B, the page"
            + " cache was kept at a quarter of the index: the limit followed what each worker holds besides page"
            + " cache, moving by at most %s (%d writes in all).", Format.size(widest), writes));
      }
      r.changing.stream().filter(c -> c.cacheBytes > 0).findFirst().ifPresent(c -> sb.append(String.format(
          Locale.ROOT, " dir-cached's cache: %s (slack %s).", Format.size(c.cacheBytes), Format.size(c.slackBytes))));
      sb.append("\n");
    }
    return sb.append('\n').toString();
  }

  private static String vs(double ratio, String best) {
    return Double.isNaN(ratio) ? "" : Format.ratio(ratio) + " (" + best + ")";
  }

  /** Where the time goes: mean latency per query kind, 1 thread, per Directory. */
  private static String kindTable(String regime, List<Results.QueryCell> mine) {
    List<Results.QueryCell> one = mine.stream().filter(c -> c.threads == 1 && !c.meanMicrosByKind.isEmpty()).toList();
    if (one.isEmpty()) {
      return "";
    }
    List<String> kinds = one.get(0).meanMicrosByKind.keySet().stream().toList();
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "Mean latency by query kind, %s, 1 thread (ms):%n%n| directory |", regime));
    kinds.forEach(k -> sb.append(' ').append(k).append(" |"));
    sb.append("\n|---|").append("---:|".repeat(kinds.size())).append('\n');
    for (Results.QueryCell c : one) {
      sb.append("| ").append(c.directory).append(" |");
      for (String k : kinds) {
        Double v = c.meanMicrosByKind.get(k);
        sb.append(v == null ? " |" : String.format(Locale.ROOT, " %.2f |", v / 1000));
      }
      sb.append('\n');
    }
    return sb.append('\n').toString();
  }

  private static String batchTables(Results r) {
    StringBuilder sb = new StringBuilder();
    List<String> regimes = r.batchPrefetch.stream().map(b -> b.regime).distinct().toList();
    for (String regime : regimes) {
      List<Integer> sizes = r.batchPrefetch.stream().filter(b -> b.regime.equals(regime)).map(b -> b.readSize)
          .distinct().sorted().toList();
      for (int rs : sizes) {
        List<Results.Batch> mine =
            r.batchPrefetch.stream().filter(b -> b.regime.equals(regime) && b.readSize == rs).toList();
        sb.append(batchTable(r, regime, rs, mine));
      }
    }
    return sb.toString();
  }

  private static String batchTable(Results r, String regime, int rs, List<Results.Batch> mine) {
    StringBuilder sb = new StringBuilder();
    List<String> strategies = mine.stream().map(b -> b.strategy).distinct().toList();
    int rounds = mine.get(0).rounds.length;
    String size = Format.bytes(rs);
    if (mine.stream().anyMatch(b -> !b.prefetch)) {
      int b = mine.get(0).batch;
      sb.append(String.format(Locale.ROOT, "### %s: cost of prefetching cached data (random %s reads, batches of %d,"
          + " 1 thread, median of %d rounds)%n%n", regime, size, b, rounds));
      sb.append("| strategy | without prefetch (reads/s) | with prefetch | with / without |\n|---|---:|---:|---:|\n");
      for (String s : strategies) {
        Results.Batch off = r.batch(regime, s, rs, b, false);
        Results.Batch on = r.batch(regime, s, rs, b, true);
        sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", s, Format.rate(Stats.median(off.rounds)),
            Format.rate(Stats.median(on.rounds)), Format.ratio(Stats.pairedRatio(on.rounds, off.rounds))));
      }
      return sb.append('\n').toString();
    }
    List<Integer> batches = mine.stream().map(b -> b.batch).distinct().toList();
    sb.append(String.format(Locale.ROOT, "### %s: batched prefetch (random %s reads, 1 thread; prefetch B blocks, then"
        + " read them; median of %d rounds)%n%n", regime, size, rounds));
    sb.append("| B |");
    for (String s : strategies) {
      sb.append(' ').append(s).append(" | vs B=1 |");
    }
    boolean both = strategies.contains(DIR_PREAD) && strategies.contains(DIR_MMAP_RANDOM);
    if (both) sb.append(" dir-pread vs dir-mmap-random |");
    sb.append("\n|---:|").append("---:|---:|".repeat(strategies.size())).append(both ? "---:|" : "").append('\n');
    for (int b : batches) {
      sb.append("| ").append(b).append(" |");
      for (String s : strategies) {
        Results.Batch x = r.batch(regime, s, rs, b, true);
        Results.Batch one = r.batch(regime, s, rs, batches.get(0), true);
        sb.append(' ').append(Format.rate(Stats.median(x.rounds))).append(" | ")
            .append(Format.ratio(Stats.ratioOfMedians(x.rounds, one.rounds))).append(" |");
      }
      if (both) {
        sb.append(' ').append(Format.ratio(Stats.pairedRatio(r.batch(regime, DIR_PREAD, rs, b, true).rounds,
            r.batch(regime, DIR_MMAP_RANDOM, rs, b, true).rounds))).append(" |");
      }
      sb.append('\n');
    }
    return sb.append('\n').toString();
  }

  /**
   * The cores of the machine the run measured on, from its machine table (a report rendered
   * elsewhere must not take the renderer's); this JVM's when the table has none.
   */
  static int cores(Results r) {
    try {
      return Integer.parseInt(r.machine.getOrDefault("cores", "").trim());
    } catch (NumberFormatException e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  private static String randomReadTables(Results r) {
    StringBuilder sb = new StringBuilder();
    int cores = cores(r);
    for (String regime : regimesIn(r)) {
      String base = baseline(r, regime);
      for (int rs : readSizesIn(r, regime)) {
        List<Integer> threads = threadsIn(r, regime, rs);
        int rounds = r.cells.stream().filter(c -> c.regime.equals(regime)).findFirst().get().rounds.length;
        sb.append(String.format(Locale.ROOT, "### %s: random %s reads (reads/s, median of %d rounds)%n%n",
            regime, readLabel(rs), rounds));
        sb.append("| strategy |");
        for (int t : threads) {
          sb.append(String.format(Locale.ROOT, " %d thread%s%s | vs %s |", t, t == 1 ? "" : "s",
              t > cores ? " (oversubscribed)" : "", base));
        }
        if (threads.size() > 1) {
          sb.append(String.format(Locale.ROOT, " scaling %d->%d |", threads.get(0), threads.get(threads.size() - 1)));
        }
        boolean io = readsStorage(regime);
        if (io) {
          sb.append(" major faults | MB read from storage |");
        }
        sb.append("\n|---|").append("---:|---:|".repeat(threads.size()));
        if (threads.size() > 1) sb.append("---:|");
        if (io) sb.append("---:|---:|");
        sb.append('\n');
        for (String s : strategiesIn(r, regime)) {
          sb.append("| ").append(s).append(" |");
          for (int t : threads) {
            Results.Cell c = r.cell(regime, s, rs, t);
            Results.Cell b = r.cell(regime, base, rs, t);
            sb.append(' ').append(Format.rate(c.median())).append(" | ")
                .append(b == null ? "-" : Format.ratio(Stats.pairedRatio(c.rounds, b.rounds))).append(" |");
          }
          if (threads.size() > 1) {
            Results.Cell lo = r.cell(regime, s, rs, threads.get(0));
            Results.Cell hi = r.cell(regime, s, rs, threads.get(threads.size() - 1));
            sb.append(' ').append(Format.ratio(Stats.pairedRatio(hi.rounds, lo.rounds))).append(" |");
          }
          if (io) {
            Results.Cell c = r.cell(regime, s, rs, threads.get(0));
            sb.append(' ').append(c.majorFaults).append(" | ")
                .append(c.storageReadBytes < 0 ? "-" : String.format(Locale.ROOT, "%.0f", c.storageReadBytes / 1e6)).append(" |");
          }
          sb.append('\n');
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  /** Per thread count of the changing regime: QPS and p99 per interval over time, a line per Directory. */
  private static List<String> changingCharts(Results r, Path folder) throws IOException {
    List<String> names = new ArrayList<>();
    List<Integer> threads = r.changing.stream().filter(c -> c.failure == null).map(c -> c.threads).distinct().sorted()
        .toList();
    for (int t : threads) {
      List<Results.Changing> runs = r.changing.stream().filter(c -> c.failure == null && c.threads == t).toList();
      Results.Changing first = runs.get(0);
      String when = String.format(Locale.ROOT, "second process starts at %.0f s, phase B from %.0f s", first.hogStart,
          first.phaseBStart);
      for (boolean qps : new boolean[] {true, false}) {
        XYChart chart = new XYChartBuilder().width(1100).height(520)
            .title(String.format(Locale.ROOT, "Changing memory, %d thread%s: %s per %.0f s (%s)", t, t == 1 ? "" : "s",
                qps ? "QPS" : "p99 latency", first.intervalSeconds, when))
            .xAxisTitle("seconds from the start of the queries").yAxisTitle(qps ? "queries per second" : "p99 (ms, log)")
            .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        if (!qps) {
          chart.getStyler().setYAxisLogarithmic(true);
        }
        for (Results.Changing c : runs) {
          List<Double> xs = new ArrayList<>();
          List<Double> ys = new ArrayList<>();
          for (int i = 0; i < c.intervalQps.length; i++) {
            double y = qps ? c.intervalQps[i] : c.intervalP99Micros[i] / 1000.0;
            if (qps || c.intervalP99Micros[i] > 0) {
              xs.add((i + 0.5) * c.intervalSeconds);
              ys.add(y);
            }
          }
          if (!xs.isEmpty()) {
            chart.addSeries(c.directory, xs, ys);
          }
        }
        String name = String.format(Locale.ROOT, "changing-%s-%dt.png", qps ? "qps" : "p99", t);
        BitmapEncoder.saveBitmap(chart, folder.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
        names.add(name);
      }
    }
    return names;
  }

  static Set<String> regimesIn(Results r) {
    Set<String> s = new LinkedHashSet<>();
    r.cells.forEach(c -> s.add(c.regime));
    return s;
  }

  private static List<Integer> readSizesIn(Results r, String regime) {
    return r.cells.stream().filter(c -> c.regime.equals(regime)).map(c -> c.readSize).distinct().toList();
  }

  private static List<Integer> threadsIn(Results r, String regime, int rs) {
    return r.cells.stream().filter(c -> c.regime.equals(regime) && c.readSize == rs).map(c -> c.threads).distinct().toList();
  }

  private static List<String> strategiesIn(Results r, String regime) {
    return r.cells.stream().filter(c -> c.regime.equals(regime)).map(c -> c.strategy).distinct().toList();
  }

  /** Writes results.json, report.md and the charts; returns the report's path. */
  public static Path write(Results r, Path folder) throws IOException {
    Files.createDirectories(folder);
    Files.writeString(folder.resolve("results.json"),
        new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create().toJson(r));
    StringBuilder md = new StringBuilder(markdown(r));
    List<String> charts = charts(r, folder);
    if (!charts.isEmpty()) {
      md.append("### Charts\n\n");
      for (String c : charts) {
        md.append("![").append(c).append("](").append(c).append(")\n\n");
      }
    }
    Path report = folder.resolve("report.md");
    Files.writeString(report, md);
    return report;
  }

  private static List<String> charts(Results r, Path folder) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<String> names = new ArrayList<>();
    for (String regime : regimesIn(r)) {
      CategoryChart chart = new CategoryChartBuilder().width(1000).height(560)
          .title("Random reads, " + regime + " ("
              + Format.bytes(regime.startsWith("pressure") && r.pressureFileSize > 0 ? r.pressureFileSize : r.fileSize)
              + " file; median of rounds)")
          .xAxisTitle("strategy").yAxisTitle("reads per second").build();
      chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
      chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
      if (readsStorage(regime)) {
        // Under pressure strategies differ by orders of magnitude: log scale, bars from 1.
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(1.0);
      }
      chart.getStyler().setYAxisDecimalPattern("#,###");
      List<String> strategies = strategiesIn(r, regime);
      for (int rs : readSizesIn(r, regime)) {
        for (int t : threadsIn(r, regime, rs)) {
          List<Double> ys = new ArrayList<>();
          for (String s : strategies) {
            ys.add(Math.max(1, r.cell(regime, s, rs, t).median()));
          }
          chart.addSeries(readLabel(rs) + ", " + t + " thread" + (t == 1 ? "" : "s"), strategies, ys);
        }
      }
      String name = "random-reads-" + regime.replaceAll("[^A-Za-z0-9]+", "-") + ".png";
      BitmapEncoder.saveBitmap(chart, folder.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
      names.add(name);
    }
    if (r.lucene != null && r.queryCells.stream().anyMatch(c -> LUCENE_REGIMES.contains(c.regime))) {
      CategoryChart chart = new CategoryChartBuilder().width(1200).height(560)
          .title("Lucene queries per second, " + Format.size(r.lucene.indexBytes) + " index (log scale)")
          .xAxisTitle("regime").yAxisTitle("queries per second").build();
      // Eight series: a legend beside the plot, one per line, so no label is cut.
      chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
      chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
      chart.getStyler().setYAxisLogarithmic(true);
      chart.getStyler().setYAxisMin(1.0);
      chart.getStyler().setYAxisDecimalPattern("#,###");
      List<String> regimes = LUCENE_REGIMES.stream()
          .filter(g -> r.queryCells.stream().anyMatch(c -> c.regime.equals(g))).toList();
      List<String> dirs = r.queryCells.stream().filter(c -> regimes.contains(c.regime)).map(c -> c.directory)
          .distinct().toList();
      List<Integer> threads = r.queryCells.stream().filter(c -> regimes.contains(c.regime)).map(c -> c.threads)
          .distinct().sorted().toList();
      for (String d : dirs) {
        for (int t : threads) {
          List<String> xs = new ArrayList<>();
          List<Double> ys = new ArrayList<>();
          for (String g : regimes) {
            Results.QueryCell c = r.queryCell(g, d, t);
            xs.add(g);
            ys.add(c == null || c.failure != null ? 1.0 : Math.max(1, Stats.median(c.qps)));
          }
          chart.addSeries(d + ", " + t + " thread" + (t == 1 ? "" : "s"), xs, ys);
        }
      }
      String name = "lucene-qps.png";
      BitmapEncoder.saveBitmap(chart, folder.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
      names.add(0, name);
    }
    names.addAll(changingCharts(r, folder));
    names.addAll(disturbedCharts(r, folder));
    names.addAll(restartCharts(r, folder));
    if (!r.prefetchDistance.isEmpty()) {
      XYChart chart = new XYChartBuilder().width(900).height(520)
          .title("Prefetch distance under memory pressure (random 8 KiB preads, 1 thread)")
          .xAxisTitle("WILLNEED issued D reads ahead (D + 1, log scale)").yAxisTitle("reads per second").build();
      chart.getStyler().setXAxisLogarithmic(true);
      chart.getStyler().setLegendVisible(false);
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (PrefetchDistanceRun.Result x : r.prefetchDistance) {
        xs.add(x.distance() + 1.0);
        ys.add(x.readsPerSecond());
      }
      chart.addSeries("reads/s", xs, ys);
      String name = "prefetch-distance.png";
      BitmapEncoder.saveBitmap(chart, folder.resolve(name).toString(), BitmapEncoder.BitmapFormat.PNG);
      names.add(name);
    }
    return names;
  }
}
