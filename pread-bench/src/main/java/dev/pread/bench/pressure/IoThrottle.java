package dev.pread.bench.pressure;

import dev.pread.bench.report.Format;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A cap on the reads of one block device for the processes put in it, as a cloud volume caps IOPS
 * and throughput: cgroup v1 {@code blkio.throttle.read_iops_device} and {@code read_bps_device}, or
 * cgroup v2 {@code io.max} ({@code riops} and {@code rbps}). Reads through the page cache
 * (readahead, page faults) are charged to the process that causes them, so the cap applies to every
 * Directory alike. Needs root. The group's counters give the device reads and bytes of its
 * processes.
 *
 * <p>Not thread-safe; {@link #close()} removes the group (after its processes have exited).
 */
public final class IoThrottle implements AutoCloseable {
  private final Path dir;
  private final boolean v2;
  private final String device;
  private final long readIops;
  private final long readBytesPerSecond;

  private IoThrottle(Path dir, boolean v2, String device, long readIops, long readBytesPerSecond) {
    this.dir = dir;
    this.v2 = v2;
    this.device = device;
    this.readIops = readIops;
    this.readBytesPerSecond = readBytesPerSecond;
  }

  /**
   * Why reads of {@code file} cannot be throttled here (no writable blkio or io controller, or a
   * file on no block device), or empty if they can.
   */
  public static Optional<String> unavailableReason(Path cgroupRoot, Path sysDevBlock, Path file) {
    try {
      device(sysDevBlock, file);
    } catch (IOException e) {
      return Optional.of(e.getMessage());
    }
    if (Files.isWritable(cgroupRoot.resolve("blkio"))) {
      return Optional.empty();
    }
    String controllers = readOr(cgroupRoot.resolve("cgroup.controllers"));
    if (controllers.contains("io") && Files.isWritable(cgroupRoot.resolve("cgroup.subtree_control"))) {
      return Optional.empty();
    }
    return Optional.of("no writable I/O cgroup (v1 " + cgroupRoot.resolve("blkio") + ", or v2 with the io controller"
        + " in " + cgroupRoot.resolve("cgroup.controllers") + "); run as root");
  }

  /** Where the machine's cgroups and block devices are. */
  public static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");
  public static final Path SYS_DEV_BLOCK = Path.of("/sys/dev/block");

  /**
   * Creates a group named {@code name} that caps reads of the disk holding {@code file}. On cgroup
   * v2 the cap is set in {@code v2Group} (the memory group the process also joins, since v2 has one
   * hierarchy); on v1 in a group of its own under the blkio hierarchy.
   *
   * @throws IOException naming the file that could not be read or written
   */
  public static IoThrottle create(Path cgroupRoot, Path sysDevBlock, String name, Path file, long readIops,
      long readBytesPerSecond, Path v2Group) throws IOException {
    if (readIops <= 0 || readBytesPerSecond <= 0) {
      throw new IllegalArgumentException("caps must be positive: " + readIops + " IOPS, " + readBytesPerSecond + " B/s");
    }
    String dev = device(sysDevBlock, file);
    Path v1 = cgroupRoot.resolve("blkio");
    if (Files.isDirectory(v1)) {
      Path dir = v1.resolve(name);
      if (Files.isDirectory(dir)) {
        Files.delete(dir);
      }
      Files.createDirectory(dir);
      Files.writeString(dir.resolve("blkio.throttle.read_iops_device"), dev + " " + readIops);
      Files.writeString(dir.resolve("blkio.throttle.read_bps_device"), dev + " " + readBytesPerSecond);
      return new IoThrottle(dir, false, dev, readIops, readBytesPerSecond);
    }
    if (v2Group == null) {
      throw new IOException("cgroup v2: the cap needs the group the process joins");
    }
    Path subtree = v2Group.getParent().resolve("cgroup.subtree_control");
    if (!readOr(subtree).contains("io")) {
      Files.writeString(subtree, "+io");
    }
    Files.writeString(v2Group.resolve("io.max"), dev + " riops=" + readIops + " rbps=" + readBytesPerSecond);
    return new IoThrottle(v2Group, true, dev, readIops, readBytesPerSecond);
  }

  /**
   * The whole disk's {@code major:minor} of the device {@code file} lies on (the disk, not its
   * partition: the throttle applies to disks).
   *
   * @throws IOException if the file is on no block device (tmpfs, overlay without one)
   */
  static String device(Path sysDevBlock, Path file) throws IOException {
    long dev = ((Number) Files.getAttribute(file, "unix:dev")).longValue();
    return wholeDisk(sysDevBlock, majorOf(dev) + ":" + minorOf(dev), file);
  }

  /** {@code majorMinor} if it is a disk, its disk's if it is a partition. */
  static String wholeDisk(Path sysDevBlock, String majorMinor, Path file) throws IOException {
    Path dir = sysDevBlock.resolve(majorMinor);
    if (!Files.exists(dir)) {
      throw new IOException(file + " is on device " + majorMinor + ", which is no block device (" + dir + " is missing)");
    }
    if (Files.exists(dir.resolve("partition"))) {
      Path parent = dir.toRealPath().getParent().resolve("dev");
      String disk = Files.readString(parent).trim();
      if (!disk.matches("\\d+:\\d+")) {
        throw new IOException(parent + ": not a device number: \"" + disk + "\"");
      }
      return disk;
    }
    return majorMinor;
  }

  /** Linux's {@code major()} of a {@code dev_t}. */
  static long majorOf(long dev) {
    return ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & ~0xfffL);
  }

  /** Linux's {@code minor()} of a {@code dev_t}. */
  static long minorOf(long dev) {
    return (dev & 0xffL) | ((dev >>> 12) & ~0xffL);
  }

  /**
   * Reads this process's I/O cgroup has made from the disk holding {@code file} so far (v1 {@code
   * blkio.throttle.io_serviced}, v2 {@code io.stat} {@code rios}), or -1 if they cannot be read.
   */
  public static long ownReadOps(Path file) {
    try {
      String dev = device(Path.of("/sys/dev/block"), file);
      Path root = Path.of("/sys/fs/cgroup");
      for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
        String[] parts = line.split(":", 3);
        if (parts.length != 3) {
          continue;
        }
        if (List.of(parts[1].split(",")).contains("blkio")) {
          Path dir = root.resolve("blkio").resolve(parts[2].substring(1));
          return parseV1(Files.readAllLines(dir.resolve("blkio.throttle.io_serviced")), dev);
        }
        if (parts[0].equals("0") && Files.exists(root.resolve("cgroup.controllers"))
            && !Files.isDirectory(root.resolve("blkio"))) {
          Path dir = root.resolve(parts[2].substring(1));
          return parseV2(Files.readAllLines(dir.resolve("io.stat")), dev, "rios");
        }
      }
    } catch (IOException | RuntimeException e) {
      // unknown
    }
    return -1;
  }

  /** The command, run through sh so that the process joins the group before it starts (v1). */
  public List<String> wrap(List<String> command) {
    if (v2) {
      return command; // the memory group's wrap puts it in the one group
    }
    StringBuilder sb = new StringBuilder("echo $$ > '").append(dir.resolve("cgroup.procs")).append("' && exec");
    for (String c : command) {
      sb.append(" '").append(c.replace("'", "'\\''")).append('\'');
    }
    return List.of("/bin/sh", "-c", sb.toString());
  }

  /** Reads the group's processes made from the device so far, or -1 if the counters are unreadable. */
  public long readOps() {
    return v2 ? v2Stat("rios") : v1Stat("blkio.throttle.io_serviced");
  }

  /** Bytes the group's processes read from the device so far, or -1 if unreadable. */
  public long readBytes() {
    return v2 ? v2Stat("rbytes") : v1Stat("blkio.throttle.io_service_bytes");
  }

  private long v1Stat(String file) {
    try {
      return parseV1(Files.readAllLines(dir.resolve(file)), device);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private long v2Stat(String key) {
    try {
      return parseV2(Files.readAllLines(dir.resolve("io.stat")), device, key);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The {@code Read} count of {@code device} in a v1 blkio statistics file; 0 if it has no line. */
  static long parseV1(List<String> lines, String device) {
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      if (f.length == 3 && f[0].equals(device) && f[1].equals("Read")) {
        return Long.parseLong(f[2]);
      }
    }
    return 0;
  }

  /** The value of {@code key} for {@code device} in a v2 {@code io.stat}; 0 if it has no line. */
  static long parseV2(List<String> lines, String device, String key) {
    for (String line : lines) {
      String[] f = line.trim().split("\\s+");
      if (f.length > 0 && f[0].equals(device)) {
        for (int i = 1; i < f.length; i++) {
          if (f[i].startsWith(key + "=")) {
            return Long.parseLong(f[i].substring(key.length() + 1));
          }
        }
      }
    }
    return 0;
  }

  public String describe() {
    return String.format(Locale.ROOT, "%s %s: reads of device %s capped at %d IOPS and %s/s",
        v2 ? "cgroup v2 io.max in" : "cgroup v1 blkio", dir, device, readIops, Format.size(readBytesPerSecond));
  }

  @Override
  public void close() throws IOException {
    if (v2) {
      Files.writeString(dir.resolve("io.max"), device + " riops=max rbps=max");
    } else {
      Files.deleteIfExists(dir);
    }
  }

  private static String readOr(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return "";
    }
  }
}
