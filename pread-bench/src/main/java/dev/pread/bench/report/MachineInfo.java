package dev.pread.bench.report;

import dev.pread.bench.pressure.DeviceReadAhead;
import dev.pread.bench.pressure.DeviceScheduler;
import dev.pread.bench.pressure.JvmFlags;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The facts about the machine that every benchmark figure is quoted with. */
public final class MachineInfo {
  private MachineInfo() {}

  public static Map<String, String> collect(Path dataFile) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("cores", String.valueOf(Runtime.getRuntime().availableProcessors()));
    m.put("memory", memTotal());
    m.put("kernel", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("arch", System.getProperty("os.arch"));
    m.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    m.put("heap max", Format.bytes(Runtime.getRuntime().maxMemory()));
    m.put("JVM flags", "worker JVMs (one per Directory and regime): " + String.join(" ", JvmFlags.PRODUCTION)
        + " -XX:+UseSerialGC, -Xms equal to -Xmx, the heap pre-touched (-XX:+AlwaysPreTouch) in every worker but the"
        + " warm and cold ones (each regime's heap is in the legend); JMH forks: " + String.join(" ", JvmFlags.PRODUCTION)
        + "; this JVM: " + JvmFlags.thisJvm());
    m.put("Vector API", JvmFlags.vectorModuleLoaded() ? JvmFlags.VECTOR_MODULE + " resolved (SIMD vector scoring)"
        : "NOT resolved in this JVM (start it with --add-modules " + JvmFlags.VECTOR_MODULE + "); worker JVMs get it");
    // The data folder is made after this look in a fresh checkout: its nearest existing folder is
    // on the same file system.
    Path dir = dataFile.toAbsolutePath().getParent();
    while (dir != null && !Files.exists(dir)) {
      dir = dir.getParent();
    }
    try {
      if (dir == null) {
        throw new IOException("no folder of " + dataFile.toAbsolutePath() + " exists");
      }
      FileStore store = Files.getFileStore(dir);
      m.put("file system", store.type() + " on " + store.name());
      m.put("read_ahead_kb", DeviceReadAhead.current(dir));
      m.put("I/O scheduler", DeviceScheduler.current(dir));
    } catch (IOException e) {
      m.put("file system", "unknown: " + e.getMessage());
    }
    return m;
  }

  private static String memTotal() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return String.format(java.util.Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return "unknown";
  }
}
