package dev.pread.cache;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A copy of the kernel's files that {@link ContainerMemory} reads, written by tests: {@code
 * proc/meminfo}, {@code proc/self/cgroup}, {@code proc/self/mountinfo}, and cgroup directories under
 * {@code root}.
 */
public final class FakeProc {
  public final Path proc;
  public final Path root;

  public FakeProc(Path dir) throws IOException {
    this.proc = Files.createDirectories(dir.resolve("proc"));
    this.root = Files.createDirectories(dir.resolve("root"));
    Files.createDirectories(proc.resolve("self"));
  }

  public ContainerMemory memory() {
    return ContainerMemory.at(proc, root);
  }

  /** The machine: {@code totalBytes} of memory of which {@code availableBytes} are available. */
  public FakeProc meminfo(long totalBytes, long availableBytes) {
    return write(proc.resolve("meminfo"),
        "MemTotal:       " + totalBytes / 1024 + " kB\n"
            + "MemFree:        " + availableBytes / 2048 + " kB\n"
            + "MemAvailable:   " + availableBytes / 1024 + " kB\n"
            + "Active(file):   " + availableBytes / 4096 + " kB\n"
            + "Inactive(file): " + availableBytes / 4096 + " kB\n");
  }

  /** This process in cgroup v2 group {@code group}, the hierarchy mounted at /sys/fs/cgroup. */
  public Path cgroupV2(String group, String max, long current, long activeFile, long inactiveFile) {
    write(proc.resolve("self/cgroup"), "0::" + group + "\n");
    write(proc.resolve("self/mountinfo"),
        "22 1 0:21 / / rw,relatime - ext4 /dev/vda1 rw\n"
            + "30 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
    Path top = root.resolve("sys/fs/cgroup");
    Path dir = top.resolve(group.substring(1));
    write(top.resolve("memory.current"), "0\n"); // the root group has no memory.max
    write(dir.resolve("memory.max"), max + "\n");
    write(dir.resolve("memory.current"), current + "\n");
    write(dir.resolve("memory.stat"),
        "anon " + (current - activeFile - inactiveFile) + "\nfile " + (activeFile + inactiveFile) + "\nactive_file "
            + activeFile + "\ninactive_file " + inactiveFile + "\n");
    return dir;
  }

  /** This process in cgroup v1 memory group {@code group}, mounted at /sys/fs/cgroup/memory. */
  public Path cgroupV1(String group, String limit, long usage, long activeFile, long inactiveFile) {
    write(proc.resolve("self/cgroup"), "5:devices:/\n4:memory:" + group + "\n1:name=systemd:/\n");
    write(proc.resolve("self/mountinfo"),
        "22 1 0:21 / / rw,relatime - ext4 /dev/vda1 rw\n"
            + "31 22 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
            + "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n");
    Path dir = root.resolve("sys/fs/cgroup/memory").resolve(group.substring(1));
    write(dir.resolve("memory.usage_in_bytes"), usage + "\n");
    write(dir.resolve("memory.limit_in_bytes"), limit + "\n");
    write(dir.resolve("memory.stat"),
        "cache " + (activeFile + inactiveFile) + "\nrss " + (usage - activeFile - inactiveFile)
            + "\nhierarchical_memory_limit " + limit + "\ntotal_active_file " + activeFile
            + "\ntotal_inactive_file " + inactiveFile + "\n");
    return dir;
  }

  public FakeProc write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
