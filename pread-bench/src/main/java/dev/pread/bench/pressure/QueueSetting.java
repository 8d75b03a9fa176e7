package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
