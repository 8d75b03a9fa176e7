package dev.pread.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Random;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The size of the node's {@code pread_cached} cache from the container, against fake cgroup trees:
 * v2 and v1 limits, no limit (the machine's memory), values that are not byte counts, and results
 * too small for a cache. Plain JUnit: no OpenSearch node, so these also run as root.
 */
public class NodeCacheSizingTests {
  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final long BLOCK = 16 * 1024;

  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private FakeContainer container() throws IOException {
    return new FakeContainer(tmp.newFolder().toPath()).meminfo(32 * GIB);
  }

  @Test
  public void cgroupV2Limit() throws IOException {
    FakeContainer fake = container();
    Path group = fake.cgroupV2("/kubepods/pod1/c1", Long.toString(4 * GIB));
    NodeCacheSizing.Size size = NodeCacheSizing.fromContainer(fake.memory(), 2 * GIB, BLOCK);
    // slack = max(256 MiB, 10% of 4 GiB) = 429496720; (4 GiB - 2 GiB - 429496720) / 2 = 858993464,
    // rounded down to 16 KiB blocks.
    assertEquals(858_980_352L, size.bytes());
    assertEquals("(limit 4gb [" + group + " (cgroup v2)] - heap 2gb - slack 409.5mb) / 2", size.formula());
  }

  @Test
  public void cgroupV1Limit() throws IOException {
    FakeContainer fake = container();
    Path group = fake.cgroupV1("/docker/abc", Long.toString(2 * GIB));
    NodeCacheSizing.Size size = NodeCacheSizing.fromContainer(fake.memory(), 512 * MIB, BLOCK);
    // slack = max(256 MiB, 204.8 MiB) = 256 MiB; (2048 - 512 - 256) / 2 = 640 MiB.
    assertEquals(640 * MIB, size.bytes());
    assertEquals("(limit 2gb [" + group + " (cgroup v1)] - heap 512mb - slack 256mb) / 2", size.formula());
  }

  @Test
  public void noLimitUsesTheMachinesMemory() throws IOException {
    for (int version = 0; version <= 2; version++) {
      FakeContainer fake = new FakeContainer(tmp.newFolder().toPath()).meminfo(8 * GIB);
      if (version == 2) {
        fake.cgroupV2("/user.slice", "max");
      } else if (version == 1) {
        fake.cgroupV1("/user.slice", "9223372036854771712"); // v1's "no limit"
      }
      NodeCacheSizing.Size size = NodeCacheSizing.fromContainer(fake.memory(), GIB, BLOCK);
      // slack = 10% of 8 GiB = 858993450; (8 GiB - 1 GiB - 858993450) / 2 = 3328599659, in 16 KiB blocks.
      assertEquals("cgroup v" + version, 3_328_589_824L, size.bytes());
      assertEquals(
          "cgroup v" + version,
          "(limit 8gb [MemTotal of " + fake.proc.resolve("meminfo") + ", no memory limit] - heap 1gb - slack 819.1mb) / 2",
          size.formula());
    }
  }

  @Test
  public void nonsenseValuesNameTheFile() throws IOException {
    for (String bad : new String[] {"abc", "-1073741824", "1.5G", ""}) {
      FakeContainer fake = container();
      Path group = fake.cgroupV2("/c", bad);
      IOException e = assertThrows(IOException.class, () -> NodeCacheSizing.fromContainer(fake.memory(), GIB, BLOCK));
      assertEquals(group.resolve("memory.max") + ": not a byte count: \"" + bad + "\"", e.getMessage());
    }
    // cgroup v1: the kernel's sum of the limits up the hierarchy, in memory.stat.
    FakeContainer fake = container();
    Path group = fake.cgroupV1("/c", "abc");
    IOException e = assertThrows(IOException.class, () -> NodeCacheSizing.fromContainer(fake.memory(), GIB, BLOCK));
    assertEquals(group.resolve("memory.stat") + ": not a byte count: \"abc\"", e.getMessage());
  }

  @Test
  public void tooLittleMemoryIsRefusedWithTheFigures() throws IOException {
    FakeContainer fake = container();
    Path group = fake.cgroupV2("/small", Long.toString(GIB));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> NodeCacheSizing.fromContainer(fake.memory(), 768 * MIB, BLOCK));
    assertEquals(
        "store type [pread_cached]: the node's block cache sized from the container would be 0b = (limit 1gb ["
            + group
            + " (cgroup v2)] - heap 768mb - slack 256mb) / 2, less than the minimum of 1024 blocks of 16kb (16mb); set"
            + " node.store.pread_cached.size, or give the container more memory or the heap less",
        e.getMessage());
    // Just below and at the minimum: 1024 blocks of 1 MiB need (limit - heap - slack) / 2 >= 1 GiB.
    long limit = 4 * GIB;
    long slack = NodeCacheSizing.slackBytes(limit);
    long heap = limit - slack - 2 * GIB;
    assertEquals(GIB, NodeCacheSizing.compute(limit, "test", heap, MIB).bytes());
    e = assertThrows(IllegalArgumentException.class, () -> NodeCacheSizing.compute(limit, "test", heap + 2, MIB));
    assertTrue(e.getMessage(), e.getMessage().contains("would be 1023.9mb = (limit 4gb [test] - heap "));
    assertTrue(e.getMessage(), e.getMessage().contains("less than the minimum of 1024 blocks of 1mb (1gb)"));
    // A heap larger than the limit.
    e = assertThrows(IllegalArgumentException.class, () -> NodeCacheSizing.compute(GIB, "test", 2 * GIB, BLOCK));
    assertTrue(e.getMessage(), e.getMessage().contains("would be 0b = (limit 1gb [test] - heap 2gb - slack 256mb) / 2"));
  }

  @Test
  public void atMostTheBlocksACacheCanIndex() {
    NodeCacheSizing.Size size = NodeCacheSizing.compute(4096 * GIB, "test", 32 * GIB, 4096);
    assertEquals(PreadCachedSettings.MAX_BLOCKS * 4096, size.bytes());
    assertTrue(size.formula(), size.formula().endsWith(") / 2, at most 134217728 blocks"));
  }

  @Test
  public void randomFiguresGiveWholeBlocksOfHalfTheRest() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int i = 0; i < 1000; i++) {
      long limit = GIB + (long) (random.nextDouble() * 256 * GIB);
      long heap = (long) (random.nextDouble() * limit / 2);
      long block = 4096L << random.nextInt(9);
      long half = (limit - heap - NodeCacheSizing.slackBytes(limit)) / 2;
      String figures = "seed " + seed + ": limit " + limit + ", heap " + heap + ", block " + block;
      if (half / block < NodeCacheSizing.MIN_BLOCKS) {
        assertThrows(figures, IllegalArgumentException.class, () -> NodeCacheSizing.compute(limit, "test", heap, block));
        continue;
      }
      long bytes = NodeCacheSizing.compute(limit, "test", heap, block).bytes();
      assertEquals(figures, 0, bytes % block);
      assertTrue(figures, bytes <= half && bytes > half - block);
      assertTrue(figures, NodeCacheSizing.slackBytes(limit) >= 256 * MIB && NodeCacheSizing.slackBytes(limit) >= limit / 10 - 10);
    }
  }
}
