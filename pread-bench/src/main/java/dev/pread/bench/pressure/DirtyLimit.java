package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Lowers the machine's dirty page limits ({@code vm.dirty_bytes}, {@code
 * vm.dirty_background_bytes}) while a regime writes under a memory cgroup v1, and restores them.
 * Cgroup v1 does not bound a group's dirty pages: a merge under a tight limit dirties page cache
 * faster than the group can reclaim it, and the group's OOM killer ends the worker, whatever the
 * Directory. Cgroup v2 bounds them per group, so nothing is changed there. An operator of a v1
 * container that indexes under a tight limit must do the same. Needs root.
 */
public final class DirtyLimit implements AutoCloseable {
  private static final Path VM = Path.of("/proc/sys/vm");
  private final String bytes;
  private final String ratio;
  private final String backgroundBytes;
  private final String backgroundRatio;
  /** Restores the limits if the JVM exits during the regime (Ctrl-C). */
  private final Thread hook = new Thread(() -> {
    try {
      restore();
    } catch (IOException e) {
      System.err.println("could not restore vm.dirty_*: " + e.getMessage());
    }
  }, "restore-dirty-limits");

  private DirtyLimit(String bytes, String ratio, String backgroundBytes, String backgroundRatio) {
    this.bytes = bytes;
    this.ratio = ratio;
    this.backgroundBytes = backgroundBytes;
    this.backgroundRatio = backgroundRatio;
  }

  /** Lowers the limits to {@code limitBytes} (background: half) on cgroup v1; null on v2, where no change is needed. */
  public static DirtyLimit lowerOnV1(long limitBytes) throws IOException {
    if (Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"))
        && Files.readString(Path.of("/sys/fs/cgroup/cgroup.controllers")).contains("memory")) {
      return null;
    }
    DirtyLimit saved = new DirtyLimit(read("dirty_bytes"), read("dirty_ratio"), read("dirty_background_bytes"),
        read("dirty_background_ratio"));
    Runtime.getRuntime().addShutdownHook(saved.hook);
    write("dirty_bytes", Long.toString(limitBytes));
    write("dirty_background_bytes", Long.toString(limitBytes / 2));
    return saved;
  }

  /** What the regime ran with, for the report. */
  public static String describe(long limitBytes) {
    return "vm.dirty_bytes " + limitBytes + " and vm.dirty_background_bytes " + limitBytes / 2;
  }

  @Override
  public void close() throws IOException {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook restores
      return;
    }
    restore();
  }

  private void restore() throws IOException {
    // Writing one of a bytes/ratio pair zeroes the other: restore the one that was set.
    write("dirty_background_" + (backgroundBytes.equals("0") ? "ratio" : "bytes"),
        backgroundBytes.equals("0") ? backgroundRatio : backgroundBytes);
    write("dirty_" + (bytes.equals("0") ? "ratio" : "bytes"), bytes.equals("0") ? ratio : bytes);
  }

  /** Read with one read(2) into a large buffer: Files.readString sees a size of 0 and gets one byte of a sysctl. */
  private static String read(String name) throws IOException {
    try (java.io.FileInputStream in = new java.io.FileInputStream(VM.resolve(name).toFile())) {
      byte[] b = new byte[64];
      int n = in.read(b);
      return new String(b, 0, Math.max(0, n), java.nio.charset.StandardCharsets.US_ASCII).trim();
    }
  }

  /** One write(2) of the whole value: procfs takes a sysctl from a single write at offset 0. */
  private static void write(String name, String value) throws IOException {
    try (java.io.FileOutputStream out = new java.io.FileOutputStream(VM.resolve(name).toFile())) {
      out.write((value + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
  }
}
