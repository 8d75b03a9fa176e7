package dev.pread.bench.lucene;

import dev.pread.bench.pressure.ProcStats;
import dev.pread.bench.report.Format;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A noisy neighbour for {@link DisturbedRun}: another process in the same cgroups (it inherits the
 * worker's memory and I/O groups) streams a large file through the page cache again and again, as
 * a snapshot upload or a log shipper would, with the disk's own readahead. It is started detached
 * (its loop is not the worker's child), so that the worker never reaps it: Linux adds a reaped
 * child's reads to its parent's count, which would put the neighbour's reads in the worker's.
 * Stopping it kills its loop, then the {@code cat} it was running. In the idle I/O class ({@code
 * ionice -c3}) its reads are served only while no other process waits for the disk, which is what
 * an operator can give such a process.
 *
 * <p>What it read from storage is reported with it, since how much of the disk it took is what the
 * queries were left: its loop's count (which takes in each {@code cat} it has reaped) plus that of
 * the {@code cat} running when it is stopped.
 */
final class Neighbour implements DisturbedRun.Disturbance {
  private final Path file;
  private final boolean idle;
  private ProcessHandle loop;
  private long startNanos;
  private double seconds;
  /** Bytes the neighbour had read from storage when it was stopped; -1 if unknown. */
  private long readBytes = -1;

  Neighbour(Path file, boolean idle) {
    this.file = file;
    this.idle = idle;
  }

  @Override
  public void start() throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": the neighbour's file is missing");
    }
    String quoted = "'" + file.toString().replace("'", "'\\''") + "'";
    Process launcher = new ProcessBuilder("/bin/sh", "-c",
        "(while :; do " + (idle ? "ionice -c3 " : "") + "cat " + quoted + " > /dev/null || exit 1; done) > /dev/null 2>&1 < /dev/null & echo $!")
        .redirectErrorStream(true)
        .start();
    String pid = new String(launcher.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim();
    try {
      launcher.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the neighbour", e);
    }
    loop = ProcessHandle.of(Long.parseLong(pid)).orElseThrow(() -> new IOException("the neighbour's loop exited at once"));
    startNanos = System.nanoTime();
  }

  @Override
  public boolean finished() {
    return !loop.isAlive();
  }

  @Override
  public void stop() throws Exception {
    seconds = (System.nanoTime() - startNanos) / 1e9;
    boolean diedEarly = !loop.isAlive();
    java.util.List<ProcessHandle> cats = loop.descendants().toList();
    readBytes = readBytes(loop, cats);
    loop.destroyForcibly(); // first, so that it starts no other cat
    cats.forEach(ProcessHandle::destroyForcibly);
    loop.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
    for (ProcessHandle c : cats) {
      c.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    if (diedEarly) {
      throw new IllegalStateException("the neighbour (cat of " + file + ") exited early; if the group's OOM killer chose"
          + " it, the group ran out of memory");
    }
  }

  /** The loop's storage reads and its running children's; -1 if the loop's cannot be read. */
  static long readBytes(ProcessHandle loop, java.util.List<ProcessHandle> children) {
    long total = ProcStats.storageReadBytes(Long.toString(loop.pid()));
    if (total < 0) {
      return -1;
    }
    for (ProcessHandle c : children) {
      total += Math.max(0, ProcStats.storageReadBytes(Long.toString(c.pid())));
    }
    return total;
  }

  @Override
  public String describe() {
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      size = -1;
    }
    String read = readBytes < 0 || seconds <= 0 ? "" : String.format(Locale.ROOT, ", reading %,.0f MB from storage (%,.0f MB/s)",
        readBytes / 1e6, readBytes / 1e6 / seconds);
    return String.format(Locale.ROOT, "cat of %s (%s)%s in a loop for %.1f s%s", file.getFileName(), Format.size(size),
        idle ? " in the idle I/O class (ionice -c3)" : "",
        seconds, read);
  }
}
