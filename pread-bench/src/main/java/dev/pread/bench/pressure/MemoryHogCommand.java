package dev.pread.bench.pressure;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Hidden: the second process of the changing-memory regime. Started by a query worker inside its
 * memory cgroup, it takes memory the worker's page cache had: it allocates native memory until the
 * process holds {@code --bytes} of anonymous memory in all (its own JVM's included, read from
 * {@code /proc/self/status}), writes every page, prints {@code held <bytes>} and keeps it until its
 * standard input ends (the worker closes it, or dies) or it is killed. Anonymous memory is not
 * reclaimable without swap, so the group's page cache must shrink by as much. It volunteers as
 * the OOM killer's first victim ({@code oom_score_adj} 1000), so that a group that runs out
 * kills it, not the measured worker (whose worker then fails the cell, naming the cause).
 */
@Command(name = "memory-hog", hidden = true)
public final class MemoryHogCommand implements Callable<Integer> {
  @Option(names = "--bytes", required = true, description = "Anonymous memory the process holds in all.")
  long bytes;

  @Override
  public Integer call() throws Exception {
    try {
      Files.writeString(Path.of("/proc/self/oom_score_adj"), "1000");
    } catch (IOException e) {
      System.out.println("memory-hog: cannot set oom_score_adj: " + e.getMessage());
    }
    long own = rssAnonBytes();
    long n = Math.max(0, bytes - Math.max(0, own));
    long start = System.nanoTime();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment held = n > 0 ? arena.allocate(n, 4096) : MemorySegment.NULL;
      for (long off = 0; off < n; off += 4096) {
        held.set(ValueLayout.JAVA_BYTE, off, (byte) 1);
      }
      System.out.printf("held %d (allocated %d beside the JVM's own %d) in %.2f s%n", Math.max(0, own) + n, n, own,
          (System.nanoTime() - start) / 1e9);
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold until the worker closes our input
      }
    }
    return 0;
  }

  /** RssAnon of this process, or -1. */
  static long rssAnonBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("RssAnon:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return -1;
  }
}
