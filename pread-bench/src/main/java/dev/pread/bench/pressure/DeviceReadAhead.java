package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The readahead window of the block device that holds a folder ({@code
 * /sys/class/block/DEV/queue/read_ahead_kb}): read for the report, and set for the length of a run
 * and restored after it ({@code ./pread bench --device-read-ahead-kb}).
 *
 * <p>The window is the device's, not a process's: it applies to every file opened on the device
 * while it is set, the benchmark's and any neighbour's, to page faults on mappings and to buffered
 * reads (a file's own {@code posix_fadvise} advice scales it). A page fault or a buffered miss
 * reads up to the window around it, so the setting decides how much a fault storm under a memory
 * limit reads, how fast a cold start fills the page cache, and how long a streaming neighbour's
 * requests occupy the device ahead of the queries' small reads. Operators set it with {@code
 * blockdev --setra SECTORS /dev/DEV} or a udev rule; writing the file needs root.
 *
 * <p>Not thread-safe; one instance per run. {@link #close()} restores the value read at {@link
 * #setFor}, and so does a shutdown hook if the JVM exits before.
 */
public final class DeviceReadAhead extends QueueSetting {
  private DeviceReadAhead(Path file, String before) {
    super(file, before, "restore-read-ahead");
  }

  /**
   * The {@code read_ahead_kb} file of the device named {@code deviceName} (as a file store names it:
   * {@code /dev/vda}, {@code /dev/nvme0n1p2}) under {@code sysBlock}: the device's own, else its
   * parent's (a partition has none of its own).
   */
  static Optional<Path> queueFile(Path sysBlock, String deviceName) {
    return queueFile(sysBlock, deviceName, "read_ahead_kb");
  }

  /** The {@code read_ahead_kb} file of the device that holds {@code folder}, if there is one. */
  public static Optional<Path> queueFile(Path folder) throws IOException {
    return queueFileOf(folder, "read_ahead_kb");
  }

  /** The device's window in KiB for {@code folder}, or "unknown". */
  public static String current(Path folder) {
    try {
      Optional<Path> f = queueFile(folder);
      return f.isPresent() ? Files.readString(f.get()).trim() : "unknown";
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * Sets the window of the device holding {@code folder} to {@code kb} KiB until {@link #close()}.
   *
   * @throws IllegalArgumentException if {@code kb} is negative
   * @throws IOException naming the file, if the device has no such file or it cannot be written
   *     (not root), or the kernel kept another value
   */
  public static DeviceReadAhead setFor(Path folder, int kb) throws IOException {
    Files.createDirectories(folder);
    Path file = queueFile(folder)
        .orElseThrow(() -> new IOException("no read_ahead_kb under " + SYS_BLOCK + " for the device of " + folder));
    return set(file, kb);
  }

  /** As {@link #setFor}, for the {@code read_ahead_kb} file itself. */
  static DeviceReadAhead set(Path file, int kb) throws IOException {
    if (kb < 0) {
      throw new IllegalArgumentException("read_ahead_kb must not be negative (got " + kb + ")");
    }
    String before = Files.readString(file).trim();
    DeviceReadAhead saved = new DeviceReadAhead(file, before);
    try {
      write(file, Integer.toString(kb));
    } catch (IOException e) {
      throw new IOException("cannot set " + file + " to " + kb + " (needs root): " + e.getMessage(), e);
    }
    String now = Files.readString(file).trim();
    if (!now.equals(Integer.toString(kb))) {
      write(file, before);
      throw new IOException(file + " reads " + now + " after writing " + kb + "; restored " + before);
    }
    saved.restoreAtExit();
    return saved;
  }
}
