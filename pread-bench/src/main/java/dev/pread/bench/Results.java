package dev.pread.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one {@code ./pread bench} run measured: written as results.json, and the source of
 * the Markdown tables and the charts. Also the protocol between the CLI and its pressure worker.
 */
final class Results {
  /** One timed cell: reads/s per round, and what the process did meanwhile. */
  static final class Cell {
    String regime;
    String strategy;
    int readSize;
    int threads;
    double[] rounds;
    long majorFaults = -1;
    long storageReadBytes = -1;

    Cell(String regime, String strategy, int readSize, int threads, int rounds) {
      this.regime = regime;
      this.strategy = strategy;
      this.readSize = readSize;
      this.threads = threads;
      this.rounds = new double[rounds];
    }

    double median() {
      return BenchCommand.median(rounds);
    }
  }

  String date;
  String command;
  Map<String, String> machine = new LinkedHashMap<>();
  Map<String, String> regimes = new LinkedHashMap<>();
  long fileSize;
  List<Cell> cells = new ArrayList<>();
  List<PrefetchDistanceRun.Result> prefetchDistance = new ArrayList<>();
  List<PrefetchLatencyRun.Result> prefetchLatency = new ArrayList<>();
  Map<String, Double> reference = new LinkedHashMap<>();
  List<String> skipped = new ArrayList<>();

  Cell cell(String regime, String strategy, int readSize, int threads) {
    for (Cell c : cells) {
      if (c.regime.equals(regime) && c.strategy.equals(strategy) && c.readSize == readSize && c.threads == threads) {
        return c;
      }
    }
    return null;
  }
}
