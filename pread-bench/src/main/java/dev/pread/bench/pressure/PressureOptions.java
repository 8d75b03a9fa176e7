package dev.pread.bench.pressure;

import dev.pread.bench.report.Format;
import picocli.CommandLine.Option;

/**
 * The memory-pressure set-up shared by {@code ./pread bench} and {@code ./pread cli
 * cache-block-sizes}: the data file read under pressure, the memory cgroup's limit and the worker
 * JVM's heap. A picocli mixin, so both commands take the same options with the same defaults.
 */
public final class PressureOptions {
  @Option(names = "--pressure-file-size", description = "Data file of the pressure cells, and of"
      + " cache-block-sizes' cold cells (default: ${DEFAULT-VALUE}, 4x the limit).")
  String fileSize = "4g";

  @Option(names = "--pressure-limit", description = "Memory cgroup limit of a pressure worker: heap + native"
      + " + page cache (default: ${DEFAULT-VALUE}).")
  String limit = "1g";

  @Option(names = "--pressure-heap", description = "Heap of a pressure worker JVM (default: ${DEFAULT-VALUE}).")
  public String heap = "256m";

  public long fileSizeBytes() {
    return Format.parseBytes(fileSize);
  }

  public long limitBytes() {
    return Format.parseBytes(limit);
  }
}
