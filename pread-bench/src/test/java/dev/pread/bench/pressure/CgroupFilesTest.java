package dev.pread.bench.pressure;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The memory cgroup files the bench reads, as fake v1 and v2 trees under a temporary folder. */
public class CgroupFilesTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  private Path root;
  private Path membership;

  private CgroupFiles files() throws IOException {
    root = tmp.getRoot().toPath().resolve("cgroup");
    membership = tmp.getRoot().toPath().resolve("self-cgroup");
    Files.createDirectories(root);
    return new CgroupFiles(root, membership);
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  /** cgroup v2: one hierarchy ("0::/path"), memory.current, memory.stat's anon and file, memory.events' max. */
  private Path v2Group(CgroupFiles f) throws IOException {
    write(root.resolve("cgroup.controllers"), "cpuset cpu io memory hugetlb pids rdma misc\n");
    write(membership, "0::/bench/worker\n");
    Path group = root.resolve("bench/worker");
    write(group.resolve("memory.current"), "1000\n");
    write(group.resolve("memory.stat"), "anon 300\nfile 600\nkernel 100\nfile_mapped 50\n");
    write(group.resolve("memory.events"), "low 0\nhigh 0\nmax 7\noom 1\noom_kill 2\noom_group_kill 0\n");
    write(group.resolve("memory.peak"), "4096\n");
    return group;
  }

  /** cgroup v1: the memory controller's own hierarchy, usage_in_bytes, memory.stat's rss and cache, failcnt. */
  private Path v1Group(CgroupFiles f) throws IOException {
    write(membership, "12:pids:/x\n4:cpu,cpuacct:/y\n3:memory:/bench/worker\n0::/z\n");
    Path group = root.resolve("memory/bench/worker");
    write(group.resolve("memory.usage_in_bytes"), "2000\n");
    write(group.resolve("memory.stat"), "cache 1500\nrss 400\nrss_huge 0\nmapped_file 10\n");
    write(group.resolve("memory.failcnt"), "3\n");
    write(group.resolve("memory.max_usage_in_bytes"), "8192\n");
    write(group.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 1\noom_kill 4\n");
    return group;
  }

  @Test
  public void readsAV2Group() throws IOException {
    CgroupFiles f = files();
    Path group = v2Group(f);
    assertTrue(f.isV2());
    assertEquals(group, f.ownDir());
    assertEquals(1000, f.ownUsageBytes());
    assertEquals(600, f.ownPageCacheBytes());
    assertEquals(300, f.ownAnonBytes());
    assertEquals(7, f.ownLimitHits());
    assertEquals("no memory.max yet", -1, f.ownLimitBytes());
    write(group.resolve("memory.max"), "max\n");
    assertEquals(Long.MAX_VALUE, f.ownLimitBytes());
    write(group.resolve("memory.max"), "367001600\n");
    assertEquals(367001600, f.ownLimitBytes());
    MemoryCgroup cg = new MemoryCgroup(group, true, 1 << 20);
    assertEquals(4096, cg.peakBytes());
    assertEquals(7, cg.limitHits());
    assertEquals(2, cg.oomKills());
    assertFalse("v2 has no under_oom", cg.underOom());
    MemoryCheck m = cg.check();
    assertEquals(1 << 20, m.limitBytes);
    assertEquals(2, m.oomKills);
  }

  @Test
  public void readsAV1Group() throws IOException {
    CgroupFiles f = files();
    Path group = v1Group(f);
    assertFalse(f.isV2());
    assertEquals(group, f.ownDir());
    assertEquals(2000, f.ownUsageBytes());
    assertEquals(1500, f.ownPageCacheBytes());
    assertEquals(400, f.ownAnonBytes());
    assertEquals(3, f.ownLimitHits());
    write(group.resolve("memory.limit_in_bytes"), "367001600\n");
    assertEquals(367001600, f.ownLimitBytes());
    write(group.resolve("memory.limit_in_bytes"), "lots\n");
    IllegalStateException e = assertThrows(IllegalStateException.class, f::ownLimitBytes);
    assertTrue(e.getMessage(), e.getMessage().contains("memory.limit_in_bytes"));
    MemoryCgroup cg = new MemoryCgroup(group, false, 1 << 20);
    assertEquals(8192, cg.peakBytes());
    assertEquals(3, cg.limitHits());
    assertEquals(4, cg.oomKills());
    assertTrue(cg.underOom());
  }

  /** A controller list of several names ("cpu,memory") still finds the memory hierarchy. */
  @Test
  public void findsMemoryInAJointV1Hierarchy() throws IOException {
    CgroupFiles f = files();
    write(membership, "5:cpu,memory,blkio:/joint\n");
    write(root.resolve("memory/joint/memory.usage_in_bytes"), "77\n");
    assertEquals(root.resolve("memory/joint"), f.ownDir());
    assertEquals(77, f.ownUsageBytes());
  }

  @Test
  public void missingFilesReadAsUnknown() throws IOException {
    CgroupFiles f = files();
    Path group = v2Group(f);
    Files.delete(group.resolve("memory.current"));
    Files.delete(group.resolve("memory.stat"));
    Files.delete(group.resolve("memory.events"));
    Files.delete(group.resolve("memory.peak"));
    assertEquals(-1, f.ownUsageBytes());
    assertEquals(-1, f.ownPageCacheBytes());
    assertEquals(-1, f.ownLimitHits());
    MemoryCgroup cg = new MemoryCgroup(group, true, 1 << 20);
    assertEquals(-1, cg.peakBytes());
    assertEquals(-1, cg.limitHits());
    assertEquals(-1, cg.oomKills());
    // A stat file without the key: unknown too.
    write(group.resolve("memory.stat"), "anon 300\n");
    assertEquals(-1, f.ownPageCacheBytes());
    assertEquals(300, f.ownAnonBytes());
  }

  @Test
  public void noMembershipReadsAsUnknownAndNamesTheFile() throws IOException {
    CgroupFiles f = files();
    assertEquals("no membership file", -1, f.ownUsageBytes());
    write(membership, "4:cpu,cpuacct:/y\n"); // v1 without a memory hierarchy
    IOException e = assertThrows(IOException.class, f::ownDir);
    assertTrue(e.getMessage(), e.getMessage().contains(membership.toString()));
    assertEquals(-1, f.ownUsageBytes());
    assertEquals(-1, f.ownLimitHits());
  }

  @Test
  public void nonsenseValuesAreErrorsNamingTheFile() throws IOException {
    CgroupFiles f = files();
    Path group = v2Group(f);
    write(group.resolve("memory.current"), "lots\n");
    IllegalStateException e = assertThrows(IllegalStateException.class, f::ownUsageBytes);
    assertTrue(e.getMessage(), e.getMessage().contains(group.resolve("memory.current").toString()));
    assertTrue(e.getMessage(), e.getMessage().contains("'lots'"));
    write(group.resolve("memory.stat"), "anon 300\nfile 6OO\n");
    e = assertThrows(IllegalStateException.class, f::ownPageCacheBytes);
    assertTrue(e.getMessage(), e.getMessage().contains(group.resolve("memory.stat") + ": file is '6OO'"));
    write(group.resolve("memory.events"), "max -\n");
    e = assertThrows(IllegalStateException.class, f::ownLimitHits);
    assertTrue(e.getMessage(), e.getMessage().contains(group.resolve("memory.events").toString()));
    write(group.resolve("memory.peak"), "\n");
    MemoryCgroup cg = new MemoryCgroup(group, true, 1 << 20);
    e = assertThrows(IllegalStateException.class, cg::peakBytes);
    assertTrue(e.getMessage(), e.getMessage().contains(group.resolve("memory.peak").toString()));
  }

  @Test
  public void nonsenseInAV1FileNamesTheFile() throws IOException {
    CgroupFiles f = files();
    Path group = v1Group(f);
    write(group.resolve("memory.failcnt"), "three\n");
    IllegalStateException e = assertThrows(IllegalStateException.class, f::ownLimitHits);
    assertTrue(e.getMessage(), e.getMessage().contains(group.resolve("memory.failcnt").toString()));
  }

  /** The sampler's first sample is taken by start: usage - file - excluded, and the page cache. */
  @Test
  public void samplerReadsTheGroupsFiles() throws Exception {
    CgroupFiles f = files();
    v2Group(f);
    GroupSampler s = GroupSampler.start(3_600_000, () -> 50, f);
    s.close();
    assertEquals(1000 - 600 - 50, s.maxNonFileBytes());
    assertEquals(600, s.meanFileBytes(Long.MIN_VALUE, Long.MAX_VALUE));
    assertEquals("no sample in an empty window", -1, s.meanFileBytes(0, 0));
  }

  @Test
  public void samplerWithoutFilesHasNoFigures() throws Exception {
    CgroupFiles f = files();
    GroupSampler s = GroupSampler.start(3_600_000, () -> 0, f);
    s.close();
    assertEquals(-1, s.maxNonFileBytes());
    assertEquals(-1, s.meanFileBytes(Long.MIN_VALUE, Long.MAX_VALUE));
  }

  @Test
  public void samplerFailsOnNonsenseNamingTheFile() throws Exception {
    CgroupFiles f = files();
    Path group = v2Group(f);
    write(group.resolve("memory.stat"), "file x\n");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> GroupSampler.start(3_600_000, () -> 0, f));
    assertTrue(e.getMessage(), e.getMessage().contains(group.resolve("memory.stat").toString()));
  }
}
