package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The I/O scheduler of the block device that holds a folder ({@code
 * /sys/class/block/DEV/queue/scheduler}): read for the report, and set for the length of a regime
 * and restored after it.
 *
 * <p>The scheduler is the device's: it orders the reads of every process on the disk. Only BFQ
 * weighs best-effort priority levels, which is what lets a query's reads at the highest level go
 * ahead of a neighbour that streams a file through the page cache in the same container;
 * mq-deadline serves priority classes but not levels, and {@code none} neither. Operators choose it
 * with {@code echo bfq > /sys/block/DEV/queue/scheduler} or a udev rule ({@code
 * ATTR{queue/scheduler}="bfq"}); writing the file needs root, and the kernel offers only the
 * schedulers it has built in or loaded.
 *
 * <p>Not thread-safe; one instance per regime. {@link #close()} restores the scheduler read at
 * {@link #setFor}, and so does a shutdown hook if the JVM exits before.
 */
public final class DeviceScheduler extends QueueSetting {
  private DeviceScheduler(Path file, String before) {
    super(file, before, "restore-scheduler");
  }

  /** The scheduler in use in the contents of a {@code scheduler} file ({@code none [mq-deadline] bfq}), or null. */
  static String active(String contents) {
    for (String s : contents.trim().split("\\s+")) {
      if (s.length() > 2 && s.startsWith("[") && s.endsWith("]")) {
        return s.substring(1, s.length() - 1);
      }
    }
    return null;
  }

  /** The schedulers a {@code scheduler} file offers, the one in use included. */
  static List<String> offered(String contents) {
    return Arrays.stream(contents.trim().split("\\s+")).map(s -> s.replace("[", "").replace("]", ""))
        .filter(s -> !s.isEmpty()).toList();
  }

  /** The {@code scheduler} file of the device that holds {@code folder}, if there is one. */
  static Optional<Path> queueFile(Path folder) throws IOException {
    return queueFileOf(folder, "scheduler");
  }

  /** The scheduler in use on the device of {@code folder}, or "unknown". */
  public static String current(Path folder) {
    try {
      Optional<Path> f = queueFile(folder);
      String a = f.isPresent() ? active(Files.readString(f.get())) : null;
      return a == null ? "unknown" : a;
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * Sets the scheduler of the device holding {@code folder} to {@code name} until {@link #close()}.
   *
   * @throws IOException naming the file, if the device has no such file, the kernel does not offer
   *     {@code name}, or the file cannot be written (not root)
   */
  public static DeviceScheduler setFor(Path folder, String name) throws IOException {
    Path file = queueFile(folder)
        .orElseThrow(() -> new IOException("no queue/scheduler under " + SYS_BLOCK
            + " for the device of " + folder));
    return set(file, name);
  }

  /** As {@link #setFor}, for the {@code scheduler} file itself. */
  static DeviceScheduler set(Path file, String name) throws IOException {
    String contents = Files.readString(file);
    String before = active(contents);
    if (before == null) {
      throw new IOException(file + " names no scheduler in use: \"" + contents.trim() + "\"");
    }
    if (!offered(contents).contains(name)) {
      throw new IOException(file + " does not offer " + name + " (it offers " + contents.trim() + ")");
    }
    DeviceScheduler saved = new DeviceScheduler(file, before);
    try {
      write(file, name);
    } catch (IOException e) {
      throw new IOException("cannot set " + file + " to " + name + " (needs root): " + e.getMessage(), e);
    }
    String now = active(Files.readString(file));
    if (!name.equals(now)) {
      write(file, before);
      throw new IOException(file + " has " + now + " in use after writing " + name + "; restored " + before);
    }
    saved.restoreAtExit();
    return saved;
  }
}
