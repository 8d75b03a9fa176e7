package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's major page faults and bytes read from storage (Linux /proc), or -1. */
public record ProcStats(long majorFaults, long storageReadBytes) {

  public static ProcStats now() {
    return new ProcStats(readMajorFaults(), readStorageBytes());
  }

  public ProcStats minus(ProcStats before) {
    return new ProcStats(
        majorFaults < 0 ? -1 : majorFaults - before.majorFaults,
        storageReadBytes < 0 ? -1 : storageReadBytes - before.storageReadBytes);
  }

  private static long readMajorFaults() {
    try {
      String stat = Files.readString(Path.of("/proc/self/stat"));
      // Fields after the parenthesised command name; majflt is field 12 overall.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[9]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static long readStorageBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("read_bytes:")) {
          return Long.parseLong(line.substring(11).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return -1;
  }
}
