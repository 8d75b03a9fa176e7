package dev.pread.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the kernel says about the memory this process may use: the memory cgroup's limit (cgroup v2
 * or v1, the smallest limit on the path to the root) or, without one, the machine's memory, and how
 * much of it is taken by memory the kernel cannot reclaim to make room for file pages.
 *
 * <p>Read from {@code /proc/self/cgroup} and {@code /proc/self/mountinfo} to find this process's
 * memory cgroup, then, for cgroup v2, {@code memory.max}, {@code memory.current} and {@code
 * memory.stat} ({@code active_file}, {@code inactive_file}); for v1, {@code memory.usage_in_bytes}
 * and {@code memory.stat} ({@code hierarchical_memory_limit}, {@code total_active_file}, {@code
 * total_inactive_file}); and {@code /proc/meminfo} ({@code MemTotal}, {@code MemAvailable}). A
 * cgroup whose limit is at least the machine's memory counts as no limit.
 *
 * <p>A value that is not a number makes {@link #read()} throw an {@link IOException} naming the
 * file and the value: sizing memory from a guess is worse than failing.
 *
 * <p>Thread-safe: each {@link #read()} reads the files anew.
 */
public final class ContainerMemory {
  private final Path proc;
  private final Path root;

  /**
   * One reading.
   *
   * @param limitBytes the memory this process's cgroup may use, or the machine's memory
   * @param unreclaimableBytes memory in use that is not file pages the kernel can reclaim (process
   *     memory, kernel memory, and anything else charged to the group), at most {@code limitBytes}
   * @param fileBytes reclaimable file pages (the page cache) charged to the group, or the machine's
   * @param source where the figures came from, for log lines: the cgroup's directory and version,
   *     or {@code /proc/meminfo}
   */
  public record Reading(long limitBytes, long unreclaimableBytes, long fileBytes, String source) {
    /** Memory that file pages, or a cache in their place, may have: limit minus unreclaimable. */
    public long availableForFilesBytes() {
      return Math.max(0, limitBytes - unreclaimableBytes);
    }
  }

  private ContainerMemory(Path proc, Path root) {
    this.proc = proc;
    this.root = root;
  }

  /** This process's memory as the running kernel reports it. */
  public static ContainerMemory system() {
    return new ContainerMemory(Path.of("/proc"), Path.of("/"));
  }

  /**
   * Reads a copy of the kernel's files: {@code proc} stands for {@code /proc} and mount points in
   * its {@code self/mountinfo} are looked up under {@code root}. For tests.
   */
  public static ContainerMemory at(Path proc, Path root) {
    return new ContainerMemory(proc, root);
  }

  /**
   * Reads the current figures.
   *
   * @throws IOException naming the file if a file that exists cannot be read or holds a value that
   *     is not a number, or if {@code /proc/meminfo} is missing
   */
  public Reading read() throws IOException {
    Path meminfo = proc.resolve("meminfo");
    Map<String, Long> info = parseKeyValues(meminfo, 1024); // "MemTotal:  24684092 kB"
    long total = require(info, "MemTotal", meminfo);
    long available = require(info, "MemAvailable", meminfo);
    long hostFile = info.getOrDefault("Active(file)", 0L) + info.getOrDefault("Inactive(file)", 0L);
    Reading host = new Reading(total, clamp(total - available, total), hostFile, meminfo.toString());
    Optional<Reading> group = readCgroup(total);
    return group.orElse(host);
  }

  private Optional<Reading> readCgroup(long total) throws IOException {
    List<String> cgroups = readLinesIfExists(proc.resolve("self/cgroup"));
    List<String> mounts = readLinesIfExists(proc.resolve("self/mountinfo"));
    if (cgroups == null || mounts == null) {
      return Optional.empty();
    }
    String v1Path = null;
    String v2Path = null;
    for (String line : cgroups) {
      String[] parts = line.split(":", 3);
      if (parts.length < 3) {
        continue;
      }
      if (parts[0].equals("0") && parts[1].isEmpty()) {
        v2Path = parts[2];
      } else if (List.of(parts[1].split(",")).contains("memory")) {
        v1Path = parts[2];
      }
    }
    if (v1Path != null) {
      Path dir = cgroupDirectory(mounts, false, v1Path);
      if (dir != null && Files.exists(dir.resolve("memory.usage_in_bytes"))) {
        return Optional.ofNullable(readV1(dir, total));
      }
    }
    if (v2Path != null) {
      Path dir = cgroupDirectory(mounts, true, v2Path);
      if (dir != null && Files.exists(dir.resolve("memory.current"))) {
        return Optional.ofNullable(readV2(dir, total));
      }
    }
    return Optional.empty();
  }

  private static Reading readV1(Path dir, long total) throws IOException {
    Path statFile = dir.resolve("memory.stat");
    Map<String, Long> stat = parseKeyValues(statFile, 1);
    long limit = require(stat, "hierarchical_memory_limit", statFile);
    if (limit >= total) {
      return null;
    }
    long usage = parseNumber(dir.resolve("memory.usage_in_bytes"));
    long file = stat.getOrDefault("total_active_file", 0L) + stat.getOrDefault("total_inactive_file", 0L);
    return new Reading(limit, clamp(usage - file, limit), file, dir + " (cgroup v1)");
  }

  private static Reading readV2(Path dir, long total) throws IOException {
    long limit = Long.MAX_VALUE;
    // The smallest memory.max from this group up to the root of the hierarchy.
    for (Path d = dir; d != null && Files.exists(d.resolve("memory.max")); d = d.getParent()) {
      Path max = d.resolve("memory.max");
      String value = Files.readString(max).trim();
      if (!value.equals("max")) {
        limit = Math.min(limit, parseNumber(max, value));
      }
    }
    if (limit >= total) {
      return null;
    }
    long current = parseNumber(dir.resolve("memory.current"));
    Path statFile = dir.resolve("memory.stat");
    Map<String, Long> stat = parseKeyValues(statFile, 1);
    long file = stat.getOrDefault("active_file", 0L) + stat.getOrDefault("inactive_file", 0L);
    return new Reading(limit, clamp(current - file, limit), file, dir + " (cgroup v2)");
  }

  /**
   * The directory of cgroup {@code path} under the mount of the v2 hierarchy, or of the v1
   * hierarchy with the memory controller; null if none is mounted.
   */
  private Path cgroupDirectory(List<String> mountinfo, boolean v2, String path) {
    for (String line : mountinfo) {
      // id parent major:minor root mount-point options [optional...] - fstype source super-options
      int dash = line.indexOf(" - ");
      if (dash < 0) {
        continue;
      }
      String[] before = line.substring(0, dash).split(" ");
      String[] after = line.substring(dash + 3).split(" ");
      if (before.length < 5 || after.length < 1) {
        continue;
      }
      boolean match =
          v2
              ? after[0].equals("cgroup2")
              : after[0].equals("cgroup") && after.length >= 3 && List.of(after[2].split(",")).contains("memory");
      if (!match) {
        continue;
      }
      String mountRoot = before[3];
      String mountPoint = before[4];
      String relative = path;
      if (!mountRoot.equals("/") && (path.equals(mountRoot) || path.startsWith(mountRoot + "/"))) {
        relative = path.substring(mountRoot.length());
      }
      Path dir = root.resolve(mountPoint.substring(1));
      String rel = relative.startsWith("/") ? relative.substring(1) : relative;
      return rel.isEmpty() ? dir : dir.resolve(rel);
    }
    return null;
  }

  private static long clamp(long value, long max) {
    return Math.max(0, Math.min(value, max));
  }

  private static List<String> readLinesIfExists(Path p) throws IOException {
    try {
      return Files.readAllLines(p);
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Lines of "key value [unit]" or "key: value [unit]"; values multiplied by {@code scale}. */
  private static Map<String, Long> parseKeyValues(Path file, long scale) throws IOException {
    Map<String, Long> values = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      String[] parts = line.trim().split("[:\\s]+");
      if (parts.length < 2 || parts[0].isEmpty()) {
        continue;
      }
      long n = parseNumber(file, parts[1]);
      values.put(parts[0], n > Long.MAX_VALUE / scale ? Long.MAX_VALUE : n * scale);
    }
    return values;
  }

  private static long require(Map<String, Long> values, String key, Path file) throws IOException {
    Long v = values.get(key);
    if (v == null) {
      throw new IOException(file + ": no " + key + " line");
    }
    return v;
  }

  private static long parseNumber(Path file) throws IOException {
    return parseNumber(file, Files.readString(file).trim());
  }

  private static long parseNumber(Path file, String value) throws IOException {
    try {
      long v = Long.parseLong(value);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IOException(file + ": not a byte count: \"" + value + "\"");
    }
  }
}
