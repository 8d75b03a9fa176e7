package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The throttled regime's I/O cgroup, on fake cgroup and sysfs trees. */
public class IoThrottleTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void deviceNumbersSplitAsLinuxDoes() {
    // makedev(254, 0), makedev(8, 17) and a large one, makedev(259, 300000)
    assertEquals(254, IoThrottle.majorOf(0xfe00L));
    assertEquals(0, IoThrottle.minorOf(0xfe00L));
    assertEquals(8, IoThrottle.majorOf(0x811L));
    assertEquals(17, IoThrottle.minorOf(0x811L));
    long big = ((259L & 0xfff) << 8) | (300000L & 0xff) | ((300000L & ~0xffL) << 12);
    assertEquals(259, IoThrottle.majorOf(big));
    assertEquals(300000, IoThrottle.minorOf(big));
  }

  @Test
  public void aPartitionIsThrottledOnItsDisk() throws IOException {
    Path sys = tmp.newFolder("sys").toPath();
    Path disk = Files.createDirectories(sys.resolve("devices/virtual/block/vdb"));
    Files.writeString(disk.resolve("dev"), "253:16\n");
    Path part = Files.createDirectories(disk.resolve("vdb1"));
    Files.writeString(part.resolve("dev"), "253:17\n");
    Files.writeString(part.resolve("partition"), "1\n");
    Path devBlock = Files.createDirectories(sys.resolve("dev/block"));
    Files.createSymbolicLink(devBlock.resolve("253:17"), part);
    Files.createSymbolicLink(devBlock.resolve("253:16"), disk);
    Path f = tmp.newFile().toPath();
    assertEquals("253:16", IoThrottle.wholeDisk(devBlock, "253:17", f));
    assertEquals("253:16", IoThrottle.wholeDisk(devBlock, "253:16", f));
  }

  @Test
  public void aFileOnNoBlockDeviceIsRefusedByName() throws IOException {
    Path devBlock = tmp.newFolder("block").toPath();
    Path f = tmp.newFile("data").toPath();
    IOException e = assertThrows(IOException.class, () -> IoThrottle.wholeDisk(devBlock, "0:42", f));
    assertTrue(e.getMessage(), e.getMessage().contains(f.toString()) && e.getMessage().contains("0:42"));
  }

  /** The disk of {@code f}, or the test is skipped with the reason (a temporary folder on tmpfs). */
  private static String deviceOrSkip(Path f) {
    try {
      return IoThrottle.device(Path.of("/sys/dev/block"), f);
    } catch (IOException e) {
      System.out.println("IoThrottleTest: skipped, the temporary folder is on no block device: " + e.getMessage());
      Assume.assumeNoException(e);
      throw new AssertionError(e);
    }
  }

  @Test
  public void aV1GroupGetsBothCapsAndCountsItsReads() throws IOException {
    Path root = tmp.newFolder("cgroup").toPath();
    Files.createDirectories(root.resolve("blkio"));
    Path f = tmp.newFile("data").toPath();
    String dev = deviceOrSkip(f);
    try (IoThrottle t = IoThrottle.create(root, Path.of("/sys/dev/block"), "g", f, 3000, 125_000_000L, null)) {
      Path dir = root.resolve("blkio/g");
      assertEquals(dev + " 3000", Files.readString(dir.resolve("blkio.throttle.read_iops_device")));
      assertEquals(dev + " 125000000", Files.readString(dir.resolve("blkio.throttle.read_bps_device")));
      Files.write(dir.resolve("blkio.throttle.io_serviced"),
          List.of("1:2 Read 5", dev + " Read 42", dev + " Write 7", "Total 54"));
      Files.write(dir.resolve("blkio.throttle.io_service_bytes"), List.of(dev + " Read 4096", dev + " Write 0"));
      assertEquals(42, t.readOps());
      assertEquals(4096, t.readBytes());
      List<String> cmd = t.wrap(List.of("java", "-version"));
      assertEquals("/bin/sh", cmd.get(0));
      assertTrue(cmd.get(2), cmd.get(2).contains(dir.resolve("cgroup.procs").toString()));
      // the fake group holds files a real one would not; the real kernel removes them with the group
      for (String name : List.of("blkio.throttle.read_iops_device", "blkio.throttle.read_bps_device",
          "blkio.throttle.io_serviced", "blkio.throttle.io_service_bytes")) {
        Files.delete(dir.resolve(name));
      }
    }
    assertTrue(Files.notExists(root.resolve("blkio/g")));
  }

  @Test
  public void aV2GroupGetsIoMaxAndTheControllerIsEnabled() throws IOException {
    Path root = tmp.newFolder("cgroup2").toPath();
    Files.writeString(root.resolve("cgroup.controllers"), "cpu io memory pids\n");
    Files.writeString(root.resolve("cgroup.subtree_control"), "memory\n");
    Path group = Files.createDirectories(root.resolve("g"));
    Path f = tmp.newFile("data").toPath();
    String dev = deviceOrSkip(f);
    try (IoThrottle t = IoThrottle.create(root, Path.of("/sys/dev/block"), "g", f, 3000, 125_000_000L, group)) {
      assertEquals("+io", Files.readString(root.resolve("cgroup.subtree_control")));
      assertEquals(dev + " riops=3000 rbps=125000000", Files.readString(group.resolve("io.max")));
      Files.write(group.resolve("io.stat"),
          List.of("1:2 rbytes=1 wbytes=0 rios=1 wios=0", dev + " rbytes=8192 wbytes=0 rios=2 wios=0 dbytes=0 dios=0"));
      assertEquals(2, t.readOps());
      assertEquals(8192, t.readBytes());
      assertEquals(List.of("java"), t.wrap(List.of("java")));
    }
    assertEquals(dev + " riops=max rbps=max", Files.readString(group.resolve("io.max")));
  }

  @Test
  public void unreadableCountersAreMinusOneAndNonsenseCapsAreRefused() throws IOException {
    Path root = tmp.newFolder("cgroup").toPath();
    Files.createDirectories(root.resolve("blkio"));
    Path f = tmp.newFile("data").toPath();
    deviceOrSkip(f);
    assertThrows(IllegalArgumentException.class,
        () -> IoThrottle.create(root, Path.of("/sys/dev/block"), "g", f, 0, 1, null));
    try (IoThrottle t = IoThrottle.create(root, Path.of("/sys/dev/block"), "g", f, 1, 1, null)) {
      Path dir = root.resolve("blkio/g");
      Files.writeString(dir.resolve("blkio.throttle.io_serviced"), "x Read notanumber\n" + IoThrottle.device(Path.of("/sys/dev/block"), f) + " Read zz\n");
      assertEquals(-1, t.readOps());
      for (String name : List.of("blkio.throttle.read_iops_device", "blkio.throttle.read_bps_device",
          "blkio.throttle.io_serviced")) {
        Files.delete(dir.resolve(name));
      }
    }
  }
}
