package dev.pread.bench;

import com.google.gson.Gson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Hidden: the pressure regime's child process. The CLI starts it inside a memory cgroup with a
 * small heap; it runs the cells and prefetch distances of a spec and writes them back as JSON.
 * Every cell starts from an evicted file and opens its strategy afresh.
 */
@Command(name = "worker", hidden = true)
final class WorkerCommand implements Callable<Integer> {
  /** What the parent asks for. */
  static final class Spec {
    String file;
    long fileSize;
    int bufferSize;
    double seconds;
    int rounds;
    String[] strategies;
    int[] readSizes;
    int[] threads;
    int[] distances;
    String[] batchStrategies;
    int[] batches;
    int batchRounds;
    double batchSeconds;
    double distanceSeconds;
  }

  @Option(names = "--spec", required = true)
  Path specFile;

  @Option(names = "--out", required = true)
  Path outFile;

  @Override
  public Integer call() throws Exception {
    Gson gson = new Gson();
    Spec spec = gson.fromJson(Files.readString(specFile), Spec.class);
    Path file = Path.of(spec.file);
    Results r = new Results();
    for (int rs : spec.readSizes) {
      for (int t : spec.threads) {
        for (String s : spec.strategies) {
          r.cells.add(new Results.Cell("pressure", s, rs, t, spec.rounds));
        }
      }
    }
    for (int round = 0; round < spec.rounds; round++) {
      for (int rs : spec.readSizes) {
        for (int t : spec.threads) {
          for (int k = 0; k < spec.strategies.length; k++) {
            String s = spec.strategies[(k + round) % spec.strategies.length];
            Results.Cell cell = r.cell("pressure", s, rs, t);
            CacheControl.evict(file);
            ProcStats before = ProcStats.now();
            try (Strategy strategy = ReadStrategies.open(s, file, spec.bufferSize)) {
              cell.rounds[round] =
                  RandomReadRun.run(strategy, t, rs, spec.fileSize, 0, (long) (spec.seconds * 1000), round * 7919L + rs + t);
            }
            ProcStats d = ProcStats.now().minus(before);
            cell.majorFaults = Math.max(0, cell.majorFaults) + d.majorFaults();
            cell.storageReadBytes = Math.max(0, cell.storageReadBytes) + d.storageReadBytes();
            System.out.printf("pressure %s %d x%d round %d: %.0f reads/s%n", s, rs, t, round + 1, cell.rounds[round]);
          }
        }
      }
    }
    if (spec.batches != null && spec.batches.length > 0) {
      Results.runBatches(r, "pressure", file, spec.fileSize, spec.bufferSize, java.util.List.of(spec.batchStrategies),
          spec.batches, new boolean[] {true}, spec.batchRounds, (long) (spec.batchSeconds * 1000),
          () -> CacheControl.evict(file), () -> System.out.println("batch cell done"));
    }
    for (int d : spec.distances) {
      CacheControl.evict(file);
      PrefetchDistanceRun.Result res = PrefetchDistanceRun.run(file, spec.fileSize, d, spec.distanceSeconds, 42 + d);
      r.prefetchDistance.add(res);
      System.out.printf("prefetch distance %d: %.0f reads/s%n", d, res.readsPerSecond());
    }
    Files.writeString(outFile, gson.toJson(r));
    return 0;
  }
}
