package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A value written to a block device's queue file in sysfs for a while and written back at {@link
 * #close()}, or by a shutdown hook if the JVM exits before ({@link DeviceReadAhead}, {@link
 * DeviceScheduler}).
 *
 * <p>Not thread-safe; one instance per setting.
 */
abstract class QueueSetting implements AutoCloseable {
  private final Path file;
  private final String before;
  private final Thread hook;

  static final Path SYS_BLOCK = Path.of("/sys/class/block");

  /**
   * The queue file {@code name} ({@code read_ahead_kb}, {@code scheduler}) of the device named
   * {@code deviceName} (as a file store names it: {@code /dev/vda}, {@code /dev/nvme0n1p2}) under
   * {@code sysBlock}: the device's own, else its parent's (a partition has no queue of its own).
   */
  static Optional<Path> queueFile(Path sysBlock, String deviceName, String name) {
    String dev = Path.of(deviceName).getFileName().toString();
    for (String candidate : List.of(dev, dev.replaceAll("p?[0-9]+$", ""))) {
      for (Path p : List.of(sysBlock.resolve(candidate).resolve("queue/" + name),
          sysBlock.resolve(candidate).resolve("../queue/" + name))) {
        if (Files.isRegularFile(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  /** The queue file {@code name} of the device that holds {@code folder}, if there is one. */
  static Optional<Path> queueFileOf(Path folder, String name) throws IOException {
    return queueFile(SYS_BLOCK, Files.getFileStore(folder.toAbsolutePath()).name(), name);
  }

  QueueSetting(Path file, String before, String hookName) {
    this.file = file;
    this.before = before;
    this.hook = new Thread(() -> {
      try {
        write(file, before);
      } catch (IOException e) {
        System.err.println("could not restore " + file + " to " + before + ": " + e.getMessage());
      }
    }, hookName);
  }

  /** Registers the hook that restores the value if the JVM exits before {@link #close()}. */
  final void restoreAtExit() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** The value before the setting, restored at {@link #close()}. */
  public String before() {
    return before;
  }

  @Override
  public void close() throws IOException {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      return; // shutting down: the hook restores
    }
    write(file, before);
  }

  /** One write(2) of the whole value, as sysfs takes it. */
  static void write(Path file, String value) throws IOException {
    Files.write(file, (value + "\n").getBytes(StandardCharsets.US_ASCII));
  }
}
