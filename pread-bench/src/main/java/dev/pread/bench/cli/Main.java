package dev.pread.bench.cli;

import dev.pread.bench.cache.CacheWorkerCommand;
import dev.pread.bench.lucene.QueryWorkerCommand;
import dev.pread.bench.pressure.MemoryHogCommand;
import dev.pread.bench.raw.WorkerCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The {@code pread-bench} command line: {@code ./pread bench} runs {@link BenchCommand}. */
@Command(
    name = "pread",
    mixinStandardHelpOptions = true,
    description = "pread-directory benchmarks",
    subcommands = {BenchCommand.class, BufferSweepCommand.class, CacheBlockSizeCommand.class, JmhCommand.class, WorkerCommand.class,
        QueryWorkerCommand.class, CacheWorkerCommand.class, MemoryHogCommand.class})
public final class Main {
  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }
}
