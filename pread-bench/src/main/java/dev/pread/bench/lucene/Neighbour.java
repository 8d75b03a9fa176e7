package dev.pread.bench.lucene;

import dev.pread.bench.report.Format;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A noisy neighbour for {@link DisturbedRun}: another process in the same cgroups (it inherits the
 * worker's memory and I/O groups) streams a large file through the page cache again and again, as
 * a snapshot upload or a log shipper would, with the disk's own readahead. Stopping it kills it and
 * its children.
 */
final class Neighbour implements DisturbedRun.Disturbance {
  private final Path file;
  private Process process;
  private long startNanos;
  private double seconds;
  private long reapedReadBytes;

  Neighbour(Path file) {
    this.file = file;
  }

  @Override
  public void start() throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": the neighbour's file is missing");
    }
    String quoted = "'" + file.toString().replace("'", "'\\''") + "'";
    process = new ProcessBuilder("/bin/sh", "-c", "while :; do cat " + quoted + " > /dev/null || exit 1; done")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    startNanos = System.nanoTime();
  }

  @Override
  public boolean finished() {
    return !process.isAlive();
  }

  @Override
  public void stop() throws Exception {
    seconds = (System.nanoTime() - startNanos) / 1e9;
    boolean diedEarly = !process.isAlive();
    // The shell's count holds the cats it reaped; the running cat is killed, and reparented, not ours.
    reapedReadBytes = readBytesOf(process.pid());
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    int rc = process.waitFor();
    if (diedEarly) {
      throw new IllegalStateException("the neighbour (cat of " + file + ") exited early with " + rc
          + (rc == 137 ? ": killed, the group's OOM killer chose it" : ""));
    }
  }

  @Override
  public long reapedReadBytes() {
    return reapedReadBytes;
  }

  /** {@code read_bytes} of process {@code pid} from /proc, 0 if it cannot be read. */
  private static long readBytesOf(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
        if (line.startsWith("read_bytes:")) {
          return Long.parseLong(line.substring(11).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      // exited meanwhile
    }
    return 0;
  }

  @Override
  public String describe() {
    long size;
    try {
      size = Files.size(file);
    } catch (IOException e) {
      size = -1;
    }
    return String.format(Locale.ROOT, "cat of %s (%s) in a loop for %.1f s", file.getFileName(), Format.size(size),
        seconds);
  }
}
