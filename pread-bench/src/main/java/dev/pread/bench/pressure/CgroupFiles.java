package dev.pread.bench.pressure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The files through which this process reads its own memory cgroup: the cgroup file system (v2
 * where its {@code cgroup.controllers} lists memory, else v1's {@code memory} hierarchy) and the
 * process's membership file ({@code /proc/self/cgroup}). {@link #SYSTEM} is the real one; a test
 * points an instance at a folder of fake files.
 *
 * <p>A file that cannot be read gives -1 to the callers (the figure is unknown). A file that holds
 * something other than the number expected is an {@link IllegalStateException} naming the file:
 * figures taken from it would be wrong.
 *
 * <p>Thread-safe: immutable; every call reads the files afresh.
 */
final class CgroupFiles {
  static final CgroupFiles SYSTEM = new CgroupFiles(Path.of("/sys/fs/cgroup"), Path.of("/proc/self/cgroup"));

  /** The cgroup file system's mount point. */
  final Path root;
  /** The process's cgroup membership, lines of {@code id:controllers:path}. */
  final Path membership;

  CgroupFiles(Path root, Path membership) {
    this.root = root;
    this.membership = membership;
  }

  /** Whether the memory controller is on cgroup v2 here. */
  boolean isV2() {
    try {
      return Files.readString(root.resolve("cgroup.controllers")).contains("memory");
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * This process's cgroup path for hierarchy id {@code id} (v2: "0") or controller name; "/" for
   * a missing v2 line, null for a missing controller.
   */
  String ownPath(String id, String controller) throws IOException {
    for (String line : Files.readAllLines(membership)) {
      String[] parts = line.split(":", 3);
      if (parts.length == 3
          && ((id != null && parts[0].equals(id))
              || (controller != null && List.of(parts[1].split(",")).contains(controller)))) {
        return parts[2];
      }
    }
    return id != null ? "/" : null;
  }

  /**
   * This process's own memory cgroup folder.
   *
   * @throws IOException if the membership file cannot be read or names no memory cgroup (v1)
   */
  Path ownDir() throws IOException {
    if (isV2()) {
      return root.resolve(ownPath("0", "").substring(1));
    }
    String own = ownPath(null, "memory");
    if (own == null) {
      throw new IOException(membership + " names no memory cgroup");
    }
    return root.resolve("memory").resolve(own.substring(1));
  }

  /** Memory charged to this process's own cgroup (anonymous, kernel and page cache), or -1. */
  long ownUsageBytes() {
    try {
      return number(ownDir().resolve(isV2() ? "memory.current" : "memory.usage_in_bytes"));
    } catch (IOException e) {
      return -1;
    }
  }

  /** The limit of this process's own memory cgroup (v2 "max": {@link Long#MAX_VALUE}), or -1. */
  long ownLimitBytes() {
    try {
      Path file = ownDir().resolve(isV2() ? "memory.max" : "memory.limit_in_bytes");
      return Files.readString(file).trim().equals("max") ? Long.MAX_VALUE : number(file);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Page cache charged to this process's own memory cgroup, or -1. */
  long ownPageCacheBytes() {
    return ownStat("file", "cache");
  }

  /** Anonymous memory charged to this process's own memory cgroup, or -1. */
  long ownAnonBytes() {
    return ownStat("anon", "rss");
  }

  /** Times this process's own memory cgroup hit its limit (v2 max events, v1 failcnt), or -1. */
  long ownLimitHits() {
    try {
      Path dir = ownDir();
      return isV2() ? statValue(dir.resolve("memory.events"), "max") : number(dir.resolve("memory.failcnt"));
    } catch (IOException e) {
      return -1;
    }
  }

  /** A memory.stat entry of this process's own group: {@code v2Key} on v2, {@code v1Key} on v1; or -1. */
  private long ownStat(String v2Key, String v1Key) {
    try {
      return statValue(ownDir().resolve("memory.stat"), isV2() ? v2Key : v1Key);
    } catch (IOException e) {
      return -1;
    }
  }

  /**
   * The number a one-value file holds.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalStateException naming the file if it holds no number
   */
  static long number(Path file) throws IOException {
    String text = Files.readString(file).trim();
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(file + " holds '" + text + "', not a number", e);
    }
  }

  /**
   * The value of the line {@code key value} of a memory.stat or memory.events style file, or -1
   * when no line has that key.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalStateException naming the file if the key's value is no number
   */
  static long statValue(Path file, String key) throws IOException {
    String prefix = key + " ";
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith(prefix)) {
        String value = line.substring(prefix.length()).trim();
        try {
          return Long.parseLong(value);
        } catch (NumberFormatException e) {
          throw new IllegalStateException(file + ": " + key + " is '" + value + "', not a number", e);
        }
      }
    }
    return -1;
  }
}
