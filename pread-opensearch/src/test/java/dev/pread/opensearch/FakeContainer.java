package dev.pread.opensearch;

import dev.pread.cache.ContainerMemory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A copy of the kernel's files that {@link ContainerMemory} reads, written by tests: {@code
 * proc/meminfo}, {@code proc/self/cgroup}, {@code proc/self/mountinfo}, and the memory cgroup's
 * directory under {@code root}, for cgroup v2 or v1 or none.
 */
final class FakeContainer {
  final Path proc;
  final Path root;

  FakeContainer(Path dir) throws IOException {
    this.proc = Files.createDirectories(dir.resolve("proc"));
    this.root = Files.createDirectories(dir.resolve("root"));
    Files.createDirectories(proc.resolve("self"));
  }

  ContainerMemory memory() {
    return ContainerMemory.at(proc, root);
  }

  /** The machine: {@code totalBytes} of memory, half of it available. */
  FakeContainer meminfo(long totalBytes) {
    return write(
        proc.resolve("meminfo"),
        "MemTotal:       " + totalBytes / 1024 + " kB\n"
            + "MemFree:        " + totalBytes / 4096 + " kB\n"
            + "MemAvailable:   " + totalBytes / 2048 + " kB\n"
            + "Active(file):   " + totalBytes / 8192 + " kB\n"
            + "Inactive(file): " + totalBytes / 8192 + " kB\n");
  }

  /** This process in cgroup v2 group {@code group} with {@code memory.max} = {@code max}; its directory. */
  Path cgroupV2(String group, String max) {
    write(proc.resolve("self/cgroup"), "0::" + group + "\n");
    write(
        proc.resolve("self/mountinfo"),
        "22 1 0:21 / / rw,relatime - ext4 /dev/vda1 rw\n"
            + "30 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
    Path top = root.resolve("sys/fs/cgroup");
    Path dir = top.resolve(group.substring(1));
    write(top.resolve("memory.current"), "0\n"); // the root group has no memory.max
    write(dir.resolve("memory.max"), max + "\n");
    write(dir.resolve("memory.current"), (64L << 20) + "\n");
    write(dir.resolve("memory.stat"), "anon 50331648\nfile 16777216\nactive_file 8388608\ninactive_file 8388608\n");
    return dir;
  }

  /**
   * This process in cgroup v1 memory group {@code group} with the limit {@code limit} (in {@code
   * memory.limit_in_bytes}, and as the kernel sums it up in {@code memory.stat}'s {@code
   * hierarchical_memory_limit}); its directory.
   */
  Path cgroupV1(String group, String limit) {
    write(proc.resolve("self/cgroup"), "5:devices:/\n4:memory:" + group + "\n1:name=systemd:/\n");
    write(
        proc.resolve("self/mountinfo"),
        "22 1 0:21 / / rw,relatime - ext4 /dev/vda1 rw\n"
            + "31 22 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
            + "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
    Path dir = root.resolve("sys/fs/cgroup/memory").resolve(group.substring(1));
    write(dir.resolve("memory.usage_in_bytes"), (64L << 20) + "\n");
    write(dir.resolve("memory.limit_in_bytes"), limit + "\n");
    write(
        dir.resolve("memory.stat"),
        "cache 16777216\nrss 50331648\nhierarchical_memory_limit " + limit
            + "\ntotal_active_file 8388608\ntotal_inactive_file 8388608\n");
    return dir;
  }

  FakeContainer write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
