package dev.pread.cache;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/** {@link ContainerMemory} against fake kernel trees: cgroup v2, v1, no limit, nonsense values. */
public class TestContainerMemory extends LuceneTestCase {
  private static final long GIB = 1L << 30;

  private FakeProc fake() throws IOException {
    return new FakeProc(createTempDir("proc"));
  }

  public void testV2LimitAndReclaimableFilePages() throws IOException {
    FakeProc f = fake().meminfo(24 * GIB, 20 * GIB);
    long limit = TestUtil.nextLong(random(), 1, 8) * GIB;
    long active = TestUtil.nextLong(random(), 0, 100) << 20;
    long inactive = TestUtil.nextLong(random(), 0, 100) << 20;
    long anon = TestUtil.nextLong(random(), 0, 500) << 20;
    Path dir = f.cgroupV2("/kubepods/pod1/c1", Long.toString(limit), anon + active + inactive, active, inactive);
    ContainerMemory.Reading r = f.memory().read();
    assertEquals(limit, r.limitBytes());
    assertEquals(anon, r.unreclaimableBytes());
    assertEquals(active + inactive, r.fileBytes());
    assertEquals(limit - anon, r.availableForFilesBytes());
    assertTrue(r.source(), r.source().contains(dir.toString()) && r.source().contains("v2"));
  }

  public void testV2SmallestLimitOnThePathToTheRoot() throws IOException {
    FakeProc f = fake().meminfo(24 * GIB, 20 * GIB);
    Path dir = f.cgroupV2("/outer/inner", "max", 100L << 20, 0, 0);
    f.write(dir.getParent().resolve("memory.max"), (3 * GIB) + "\n");
    assertEquals(3 * GIB, f.memory().read().limitBytes());
  }

  public void testV2WithoutLimitIsTheMachine() throws IOException {
    FakeProc f = fake().meminfo(24 * GIB, 20 * GIB);
    f.cgroupV2("/user.slice", "max", 100L << 20, 0, 0);
    ContainerMemory.Reading r = f.memory().read();
    assertEquals(24 * GIB, r.limitBytes());
    assertEquals(4 * GIB, r.unreclaimableBytes());
    assertTrue(r.source(), r.source().endsWith("meminfo"));
  }

  public void testV1Limit() throws IOException {
    FakeProc f = fake().meminfo(24 * GIB, 20 * GIB);
    long limit = 2 * GIB;
    Path dir = f.cgroupV1("/process_api/abc", Long.toString(limit), 900L << 20, 300L << 20, 200L << 20);
    ContainerMemory.Reading r = f.memory().read();
    assertEquals(limit, r.limitBytes());
    assertEquals(400L << 20, r.unreclaimableBytes());
    assertTrue(r.source(), r.source().contains(dir.toString()) && r.source().contains("v1"));
  }

  public void testV1UnlimitedIsTheMachine() throws IOException {
    FakeProc f = fake().meminfo(24 * GIB, 20 * GIB);
    f.cgroupV1("/", "9223372036854771712", 900L << 20, 300L << 20, 200L << 20);
    assertEquals(24 * GIB, f.memory().read().limitBytes());
  }

  public void testNoCgroupFilesIsTheMachine() throws IOException {
    FakeProc f = fake().meminfo(16 * GIB, 15 * GIB);
    ContainerMemory.Reading r = f.memory().read();
    assertEquals(16 * GIB, r.limitBytes());
    assertEquals(GIB, r.unreclaimableBytes());
  }

  public void testNonsenseValuesNameTheFile() throws IOException {
    FakeProc f = fake().meminfo(24 * GIB, 20 * GIB);
    Path dir = f.cgroupV2("/c", "lots", 1, 0, 0);
    IOException e = expectThrows(IOException.class, () -> f.memory().read());
    assertTrue(e.getMessage(), e.getMessage().contains(dir.resolve("memory.max").toString()));
    assertTrue(e.getMessage(), e.getMessage().contains("lots"));

    f.write(dir.resolve("memory.max"), "1073741824\n").write(dir.resolve("memory.current"), "-5\n");
    e = expectThrows(IOException.class, () -> f.memory().read());
    assertTrue(e.getMessage(), e.getMessage().contains(dir.resolve("memory.current").toString()));

    FakeProc g = fake();
    g.write(g.proc.resolve("meminfo"), "MemTotal: 100 kB\n");
    e = expectThrows(IOException.class, () -> g.memory().read());
    assertTrue(e.getMessage(), e.getMessage().contains("MemAvailable"));
  }

  public void testThisMachineReads() throws IOException {
    assumeTrue("needs /proc/meminfo", Files.exists(Path.of("/proc/meminfo")));
    ContainerMemory.Reading r = ContainerMemory.system().read();
    assertTrue(r.toString(), r.limitBytes() > 0 && r.unreclaimableBytes() <= r.limitBytes());
  }
}
