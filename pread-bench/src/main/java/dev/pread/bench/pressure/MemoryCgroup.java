package dev.pread.bench.pressure;

import dev.pread.bench.report.Format;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A memory cgroup for the pressure regime: page cache is charged to the group, so a limit below
 * the data size causes real reclaim. Figures it cannot read are -1; a cgroup file holding
 * something other than a number is an {@link IllegalStateException} naming the file. Uses cgroup v2 where the memory controller is there, else v1.
 * Needs root. A child process is put in the group before it runs anything (see {@link
 * #wrap(List)}), so every page it touches is charged.
 */
public final class MemoryCgroup implements AutoCloseable {
  private static final CgroupFiles FILES = CgroupFiles.SYSTEM;
  private static final Path ROOT = FILES.root;

  private final Path dir;
  private final boolean v2;
  private final long limit;

  /** The existing group folder {@code dir}; {@link #create} makes one. */
  MemoryCgroup(Path dir, boolean v2, long limit) {
    this.dir = dir;
    this.v2 = v2;
    this.limit = limit;
  }

  /** Why a memory cgroup cannot be made here, or empty if it can. */
  public static Optional<String> unavailableReason() {
    try {
      return base().isPresent() ? Optional.empty() : Optional.of(whyNot());
    } catch (IOException e) {
      return Optional.of("reading /proc/self/cgroup failed: " + e.getMessage());
    }
  }

  private static String whyNot() {
    if (!Files.isDirectory(ROOT)) {
      return "no /sys/fs/cgroup";
    }
    return "no writable memory cgroup (v2 with the memory controller, or v1 /sys/fs/cgroup/memory);"
        + " run as root";
  }

  /** The parent folder for our group: this process's own memory cgroup, if writable. */
  private static Optional<Path> base() throws IOException {
    String controllers = readOr(ROOT.resolve("cgroup.controllers"), "");
    if (controllers.contains("memory")) {
      String own = FILES.ownPath("0", "");
      Path p = ROOT.resolve(own.substring(1));
      // A v2 group with processes cannot have children with controllers; use the root then.
      Path parent = Files.isWritable(p) && !own.equals("/") ? p.getParent() : ROOT;
      return Files.isWritable(parent) ? Optional.of(parent) : Optional.empty();
    }
    Path v1 = ROOT.resolve("memory");
    if (Files.isDirectory(v1)) {
      String own = FILES.ownPath(null, "memory");
      Path p = own == null ? v1 : v1.resolve(own.substring(1));
      if (Files.isWritable(p)) {
        return Optional.of(p);
      }
      return Files.isWritable(v1) ? Optional.of(v1) : Optional.empty();
    }
    return Optional.empty();
  }

  private static String readOr(Path p, String dflt) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return dflt;
    }
  }

  /** Creates a group named {@code name} limited to {@code limitBytes} (memory + page cache). */
  public static MemoryCgroup create(String name, long limitBytes) throws IOException {
    Path parent =
        base().orElseThrow(() -> new IOException("memory cgroup unavailable: " + whyNot()));
    boolean v2 = FILES.isV2();
    Path dir = parent.resolve(name);
    if (Files.isDirectory(dir)) {
      Files.delete(dir);
    }
    Files.createDirectory(dir);
    if (v2) {
      Files.writeString(dir.resolve("memory.max"), Long.toString(limitBytes));
      Files.writeString(dir.resolve("memory.swap.max"), "0");
    } else {
      Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
    }
    return new MemoryCgroup(dir, v2, limitBytes);
  }

  /** The group's folder. */
  public Path dir() {
    return dir;
  }

  public String describe() {
    return (v2 ? "cgroup v2 " : "cgroup v1 ") + dir + ", limit " + Format.bytes(limit);
  }

  /** The command, run through sh so that the process joins the group before it starts. */
  List<String> wrap(List<String> command) {
    StringBuilder sb = new StringBuilder("echo $$ > '").append(dir.resolve("cgroup.procs")).append("' && exec");
    for (String c : command) {
      sb.append(" '").append(c.replace("'", "'\\''")).append('\'');
    }
    return List.of("/bin/sh", "-c", sb.toString());
  }

  /** Times the group hit its limit (v1 failcnt, v2 max events), as a sign of real pressure. */
  public long limitHits() {
    try {
      return v2 ? CgroupFiles.statValue(dir.resolve("memory.events"), "max")
          : CgroupFiles.number(dir.resolve("memory.failcnt"));
    } catch (IOException e) {
      return -1;
    }
  }


  /**
   * Times this process's own memory cgroup hit its limit, or -1 where that cannot be read: lets a
   * process inside the group check that a measurement ran under real pressure.
   */
  public static long ownLimitHits() {
    return FILES.ownLimitHits();
  }



  /** Memory charged to this process's own cgroup (anonymous, kernel and page cache), or -1. */
  public static long ownUsageBytes() {
    return FILES.ownUsageBytes();
  }


  /** The limit of this process's own memory cgroup ({@link Long#MAX_VALUE} for none on v2), or -1. */
  public static long ownLimitBytes() {
    return FILES.ownLimitBytes();
  }

  /** Sets the limit of this process's own cgroup (root only): lets a worker size its page-cache budget. */
  public static void setOwnLimit(long bytes) throws IOException {
    Path dir = FILES.ownDir();
    Files.writeString(dir.resolve(FILES.isV2() ? "memory.max" : "memory.limit_in_bytes"), Long.toString(bytes));
  }

  /** Page cache charged to this process's own memory cgroup, or -1 where that cannot be read. */
  public static long ownPageCacheBytes() {
    return FILES.ownPageCacheBytes();
  }


  /**
   * Anonymous memory charged to this process's own memory cgroup (heap, native allocations such as
   * a block cache, thread stacks), or -1 where that cannot be read.
   */
  static long ownAnonBytes() {
    return FILES.ownAnonBytes();
  }

  /**
   * Resets the peak charge of this process's own group (v1 {@code memory.max_usage_in_bytes}), so
   * that the peak reported afterwards is that of the measured phase; false where it cannot (v2).
   */
  public static boolean resetOwnPeak() {
    try {
      if (FILES.isV2()) {
        return false;
      }
      Files.writeString(FILES.ownDir().resolve("memory.max_usage_in_bytes"), "0");
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Processes of the group the kernel's OOM killer killed (v1 oom_control, v2 events), or -1. */
  long oomKills() {
    try {
      return CgroupFiles.statValue(dir.resolve(v2 ? "memory.events" : "memory.oom_control"), "oom_kill");
    } catch (IOException e) {
      return -1;
    }
  }


  /** v1: whether the group is under OOM now (its OOM killer disabled and it hit the limit). */
  boolean underOom() {
    try {
      return !v2 && CgroupFiles.statValue(dir.resolve("memory.oom_control"), "under_oom") > 0;
    } catch (IOException e) {
      return false;
    }
  }


  /** The group's limit, peak, limit hits and OOM state now; the caller adds the worker's figures. */
  public MemoryCheck check() {
    MemoryCheck m = new MemoryCheck();
    m.limitBytes = limit;
    m.peakBytes = peakBytes();
    m.limitHits = limitHits();
    m.oomKills = oomKills();
    m.underOom = underOom();
    return m;
  }

  /** Peak memory charged to the group (page cache included). */
  public long peakBytes() {
    try {
      return CgroupFiles.number(dir.resolve(v2 ? "memory.peak" : "memory.max_usage_in_bytes"));
    } catch (IOException e) {
      return -1;
    }
  }


  /**
   * Kills every process left in the group (SIGKILL) and waits up to 10 s for them to exit: a
   * worker killed mid-run can leave a child of its own behind, which would keep the group alive.
   */
  public void killAll() throws IOException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline) {
      List<String> pids = Files.readAllLines(dir.resolve("cgroup.procs")).stream().filter(l -> !l.isBlank()).toList();
      if (pids.isEmpty()) {
        return;
      }
      for (String pid : pids) {
        ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while emptying " + dir, e);
      }
    }
    throw new IOException("processes are still in " + dir + " 10 s after SIGKILL");
  }

  @Override
  public void close() throws IOException {
    if (!v2) {
      // Move leftover page-cache charges to the parent, then remove the group.
      try {
        Files.writeString(dir.resolve("memory.force_empty"), "0");
      } catch (IOException e) {
        // not fatal: rmdir reparents charges on recent kernels
      }
    }
    Files.deleteIfExists(dir);
  }
}
