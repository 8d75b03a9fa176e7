package dev.pread.store;

import dev.pread.cache.FakeProc;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.util.IOUtils;

/**
 * The switching rule of {@link AdaptiveRegime}, against a fake cgroup whose figures the test
 * changes: mappings while the open files fit, the cache once they pass the upper share, back
 * below the lower share only; and open inputs read the same bytes on both sides of a switch.
 */
public class TestAdaptiveRegime extends LuceneTestCase {
  private static final long MIB = 1L << 20;

  public void testSwitchesWithMemoryAndBackWithHysteresis() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 1024 * MIB;
    Path group = fake.cgroupV2("/c", Long.toString(limit), 100 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 4 * MIB);
    Path dir = createTempDir("index");
    byte[] content = new byte[1 << 20];
    new Random(random().nextLong()).nextBytes(content);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      for (int i = 0; i < 3; i++) {
        try (OutputStream out = Files.newOutputStream(dir.resolve("f" + i))) {
          out.write(content);
        }
      }
      IndexInput[] in = new IndexInput[3];
      for (int i = 0; i < 3; i++) {
        in[i] = d.openInput("f" + i, IOContext.DEFAULT);
      }
      assertEquals(3 * MIB, d.openFileBytes());
      // memory left for file pages = limit - unreclaimable (+ the cache's own memory)
      regime.check();
      assertFalse("3 MiB open, ~830 MiB left: mappings", d.isReadingCache());
      assertReads(in, content);

      // A neighbour takes memory until 3 MiB is above 90% of what is left for files.
      long unreclaimable = limit - (long) (3 * MIB / AdaptiveRegime.FIT_SHARE) + MIB;
      setCurrent(fake, group, unreclaimable);
      regime.check();
      assertTrue("3 MiB open, less than 3.33 MiB left: the cache", d.isReadingCache());
      assertReads(in, content);

      // Between the two shares: stays on the cache. The kernel counts the cache's own memory as
      // unreclaimable; the regime adds it back.
      long own = d.cacheStats().allocatedBytes();
      assertTrue(own > 0);
      setCurrent(fake, group, limit - (long) (3 * MIB / 0.8) + own);
      regime.check();
      assertTrue("between the shares, no switch back", d.isReadingCache());

      // Memory comes back: below 70%, mappings again.
      setCurrent(fake, group, 100 * MIB);
      regime.check();
      assertFalse(d.isReadingCache());
      assertReads(in, content);
      assertTrue(d.cacheStats().misses() > 0);
      IOUtils.close(in);
      assertEquals(0, d.openFileBytes());
    }
  }

  public void testNoRoomForACacheReadsThePageCacheWithPread() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 512 * MIB;
    // 10 MiB left for files: 3 MiB open fits
    Path group = fake.cgroupV2("/c", Long.toString(limit), limit - 10 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0);
    Path dir = createTempDir("index");
    byte[] content = new byte[3 << 20];
    new Random(random().nextLong()).nextBytes(content);
    Files.write(dir.resolve("f"), content);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime);
        IndexInput in = d.openInput("f", IOContext.DEFAULT)) {
      regime.check();
      assertFalse(d.isReadingCache());
      assertFalse(regime.isMappingRandom());
      // 2 MiB left (a fall of 8 MiB, too little to count as falling): does not fit, and 2 MiB less
      // the slack is no room for a cache
      setCurrent(fake, group, limit - 2 * MIB);
      regime.check();
      assertEquals("no cache below 16 MiB: pread", AdaptiveDirectory.ReadPath.PAGE_CACHE, d.readPath());
      assertTrue("mappings without readahead", regime.isMappingRandom());
      assertNull(regime.existingCache());
      assertReads(new IndexInput[] {in}, content);
      setCurrent(fake, group, 100 * MIB);
      regime.check();
      assertFalse(regime.isMappingRandom());
      assertEquals(AdaptiveDirectory.ReadPath.MAPPINGS, d.readPath());
    }
  }

  public void testCacheGrowsNoFurtherThanTheMemoryLeft() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 1024 * MIB;
    long slack = 4 * MIB;
    Path group = fake.cgroupV2("/c", Long.toString(limit), limit - slack - 20 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0, slack);
    Path dir = createTempDir("index");
    byte[] content = randomContent(8 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      IndexInput[] in = openCopies(d, dir, content, 3);
      regime.check();
      assertEquals("24 MiB open, 20 MiB left: a cache of 20 MiB", AdaptiveDirectory.ReadPath.BLOCK_CACHE, d.readPath());
      assertEquals(20 * MIB, regime.existingCache().budgetBytes());
      // A neighbour takes 3 MiB more before the cache filled: it commits at most 17 MiB.
      setCurrent(fake, group, limit - slack - 17 * MIB + d.cacheStats().allocatedBytes());
      regime.check();
      assertReads(in, content);
      for (IndexInput i : in) {
        IndexInput c = i.clone();
        byte[] all = new byte[(int) c.length()];
        c.readBytes(all, 0, all.length); // every block of every file through the cache
      }
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() <= 17 * MIB);
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() >= 16 * MIB);
      IOUtils.close(in);
    }
  }

  /**
   * A neighbour takes memory after the cache filled: the next check gives the excess back (whole
   * chunks), reads stay right, and the cache grows again once the memory comes back.
   */
  public void testCacheGivesMemoryBackWhenANeighbourTakesIt() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 2048 * MIB;
    // The group's memory stays within its limit: a neighbour takes at most the slack.
    long slack = 64 * MIB;
    Path group = fake.cgroupV2("/c", Long.toString(limit), limit - slack - 60 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0, slack);
    Path dir = createTempDir("index");
    byte[] content = randomContent(40 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      IndexInput[] in = openCopies(d, dir, content, 3);
      regime.check();
      assertEquals("120 MiB open, 124 MiB left: a cache of 60 MiB", AdaptiveDirectory.ReadPath.BLOCK_CACHE,
          d.readPath());
      assertEquals(60 * MIB, regime.existingCache().budgetBytes());
      for (int i = 0; i < 2; i++) {
        // the kernel counts the cache's memory as the group's, unreclaimable
        setCurrent(fake, group, limit - slack - 60 * MIB + d.cacheStats().allocatedBytes());
        regime.check();
        readAll(in, content);
      }
      long full = d.cacheStats().allocatedBytes();
      assertTrue(d.cacheStats().toString(), full > 56 * MIB);

      // A neighbour takes 40 MiB: 20 MiB left for the cache. It gives back what is above that.
      long left = 20 * MIB;
      setCurrent(fake, group, limit - slack - left + full);
      regime.check();
      long allocated = d.cacheStats().allocatedBytes();
      assertTrue(d.cacheStats().toString(), allocated <= left + (AdaptiveRegime.SHRINK_MARGIN_MIB << 20));
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() <= left);
      readAll(in, content);
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() <= left);
      assertEquals(allocated, d.cacheStats().allocatedBytes());

      // It leaves: 60 MiB left again (the files still do not fit), the cache fills again.
      for (int i = 0; i < 2; i++) {
        setCurrent(fake, group, limit - slack - 60 * MIB + d.cacheStats().allocatedBytes());
        regime.check();
        readAll(in, content);
      }
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() > left + (AdaptiveRegime.SHRINK_MARGIN_MIB << 20));

      // Memory for all of them: mappings again, and the cache, no longer read, gives its memory back.
      setCurrent(fake, group, 100 * MIB + d.cacheStats().allocatedBytes());
      regime.check();
      assertEquals(AdaptiveDirectory.ReadPath.MAPPINGS, d.readPath());
      assertTrue(d.cacheStats().toString(), d.cacheStats().allocatedBytes() <= AdaptiveRegime.SHRINK_MARGIN_MIB << 20);
      readAll(in, content);
      IOUtils.close(in);
    }
  }

  /**
   * Files that fit the memory left for file pages but not what a cache would get of it (that
   * memory less the slack) read their mappings: mapped pages give way to the JVM's growth, a cache
   * would not, and a cache the size of the index turns reclaimable memory into memory the kernel
   * cannot take back from a neighbour that allocates next.
   */
  public void testFilesThatFitOnlyWithTheSlackReadTheirMappings() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 1024 * MIB;
    long slack = AdaptiveRegime.slackBytes(limit);
    // slack + 20 MiB left: 24 MiB open is more than a cache would get, less than 0.9 of what is left
    Path group = fake.cgroupV2("/c", Long.toString(limit), limit - slack - 20 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0);
    Path dir = createTempDir("index");
    byte[] content = randomContent(8 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      IndexInput[] in = openCopies(d, dir, content, 3);
      regime.check();
      assertEquals(AdaptiveDirectory.ReadPath.MAPPINGS, d.readPath());
      assertFalse(regime.isMappingRandom());
      assertNull("no cache", regime.existingCache());
      assertEquals((long) ((slack + 20 * MIB) * AdaptiveRegime.FIT_SHARE), regime.fitBytes());
      readAll(in, content);
      IOUtils.close(in);
    }
  }

  /**
   * While another process takes memory, no cache starts and a cache does not grow; the look after
   * memory holds still starts it, or lets it grow again.
   */
  public void testNoCacheStartsOrGrowsWhileMemoryFalls() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 2048 * MIB;
    long slack = 4 * MIB;
    Path group = fake.cgroupV2("/c", Long.toString(limit), limit - 400 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0, slack);
    Path dir = createTempDir("index");
    byte[] content = randomContent(16 << 20);
    try (AdaptiveDirectory d = new AdaptiveDirectory(dir, FSLockFactory.getDefault(), regime)) {
      IndexInput[] in = openCopies(d, dir, content, 4);
      regime.check();
      assertEquals("64 MiB open, 400 MiB left", AdaptiveDirectory.ReadPath.MAPPINGS, d.readPath());

      // A neighbour is allocating: 60 MiB left at this look. No cache yet: the page cache.
      setCurrent(fake, group, limit - 60 * MIB);
      regime.check();
      assertEquals(AdaptiveDirectory.ReadPath.PAGE_CACHE, d.readPath());
      assertTrue(regime.isMappingRandom());
      assertNull(regime.existingCache());
      readAll(in, content);

      // The next look finds 60 MiB again: a cache of 60 - 4 MiB.
      regime.check();
      assertEquals(AdaptiveDirectory.ReadPath.BLOCK_CACHE, d.readPath());
      assertEquals(56 * MIB, regime.existingCache().budgetBytes());
      IndexInput first = in[0].clone();
      first.readBytes(new byte[content.length], 0, content.length); // 16 MiB of blocks
      long resident = d.cacheStats().residentBytes();
      assertTrue(d.cacheStats().toString(), resident >= 15 * MIB && resident <= 16 * MIB);

      // Another 20 MiB taken (the kernel counts the cache's memory as the group's): the cache,
      // with room for 36 MiB, does not grow at this look.
      long allocated = d.cacheStats().allocatedBytes();
      setCurrent(fake, group, limit - 40 * MIB + allocated);
      regime.check();
      assertEquals(AdaptiveDirectory.ReadPath.BLOCK_CACHE, d.readPath());
      readAll(in, content);
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() <= allocated);

      // Memory holds still: it grows again, up to 36 MiB.
      regime.check();
      readAll(in, content);
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() > allocated + 8 * MIB);
      assertTrue(d.cacheStats().toString(), d.cacheStats().residentBytes() <= 36 * MIB);
      IOUtils.close(in);
    }
  }

  private static byte[] randomContent(int bytes) {
    byte[] content = new byte[bytes];
    new Random(random().nextLong()).nextBytes(content);
    return content;
  }

  /** Writes {@code n} files f0, f1, ... holding {@code content} and opens each through {@code d}. */
  private static IndexInput[] openCopies(AdaptiveDirectory d, Path dir, byte[] content, int n) throws IOException {
    IndexInput[] in = new IndexInput[n];
    for (int i = 0; i < n; i++) {
      Files.write(dir.resolve("f" + i), content);
      in[i] = d.openInput("f" + i, IOContext.DEFAULT);
    }
    return in;
  }

  private static void readAll(IndexInput[] in, byte[] content) throws IOException {
    byte[] all = new byte[content.length];
    for (IndexInput i : in) {
      IndexInput c = i.clone();
      c.readBytes(all, 0, all.length);
      assertArrayEquals(content, all);
    }
  }

  public void testUnreadableFiguresKeepTheMode() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    Path group = fake.cgroupV2("/c", "nonsense", 100 * MIB, 0, 0);
    AdaptiveRegime regime = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 4 * MIB);
    regime.check();
    assertFalse(regime.isCached());
    fake.write(group.resolve("memory.max"), "1048576\n");
    regime.acquire();
    try {
      // 0 bytes open never exceed the budget, even a budget of 0
      regime.check();
      assertFalse(regime.isCached());
    } finally {
      regime.release();
    }
  }

  public void testIdleMergeReadsProperty() {
    String old = System.getProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY);
    try {
      System.clearProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY);
      assertTrue("on by default", AdaptiveRegime.idleMergeReads());
      System.setProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY, " FALSE ");
      assertFalse(AdaptiveRegime.idleMergeReads());
      System.setProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY, "true");
      assertTrue(AdaptiveRegime.idleMergeReads());
      String bad = random().nextBoolean() ? "yes" : "";
      System.setProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY, bad);
      IllegalArgumentException e = expectThrows(IllegalArgumentException.class,
          () -> new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, dev.pread.cache.ContainerMemory.system(), 0));
      assertTrue(e.getMessage(), e.getMessage().contains(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY)
          && e.getMessage().contains("\"" + bad + "\""));
    } finally {
      if (old == null) {
        System.clearProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY);
      } else {
        System.setProperty(AdaptiveRegime.IDLE_MERGE_READS_PROPERTY, old);
      }
    }
  }

  public void testTheSlackGrowsWithTheHeapNotWithMemoryOthersHold() {
    long heap = (256 + random().nextInt(32 * 1024)) * MIB;
    long base = AdaptiveRegime.MIN_SLACK_MIB << 20;
    long perHeap = heap / 100 * AdaptiveRegime.SLACK_HEAP_PERCENT;
    // A limit several times the heap (a neighbour's memory in the container) adds nothing.
    assertEquals(base + perHeap, AdaptiveRegime.slackBytes(heap * (2 + random().nextInt(8)), heap));
    assertEquals(base + perHeap, AdaptiveRegime.slackBytes(Long.MAX_VALUE, heap));
    // A heap larger than the limit cannot all be resident: the limit counts instead.
    long limit = heap / 2;
    assertEquals(base + limit / 100 * AdaptiveRegime.SLACK_HEAP_PERCENT, AdaptiveRegime.slackBytes(limit, heap));
    assertTrue(AdaptiveRegime.slackBytes(limit, heap) < AdaptiveRegime.slackBytes(heap * 4, heap));
  }

  public void testDescribeNamesTheModeTheSizeAndTheFormulaWithItsFigures() throws IOException {
    assumeTrue("needs native access", dev.pread.nativeio.NativeAccess.isAvailable());
    FakeProc fake = new FakeProc(createTempDir("proc")).meminfo(24L << 30, 20L << 30);
    long limit = 1024 * MIB;
    Path group = fake.cgroupV2("/c", Long.toString(limit), 100 * MIB, 0, 0);
    long slack = AdaptiveRegime.slackBytes(limit);
    long left = limit - 100 * MIB;

    String auto = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0).describe();
    assertEquals("mode auto: memory mappings while the open index files are at most 0.9 of the memory left for file"
        + " pages (" + (left >> 20) + " MiB now = limit 1024 MiB - unreclaimable 100 MiB + block cache 0 MiB, from " + group
        + " (cgroup v2); a cache gets that - slack " + (slack >> 20) + " MiB); beyond that a block cache of the memory"
        + " left for file pages less the slack (" + ((left - slack) >> 20) + " MiB now; slack = "
        + AdaptiveRegime.MIN_SLACK_MIB + " MiB + " + AdaptiveRegime.SLACK_HEAP_PERCENT + "% of the maximum heap, "
        + (Runtime.getRuntime().maxMemory() >> 20) + " MiB), at least 16 MiB, and mappings again below 0.7", auto);

    String fixed = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 64 * MIB).describe();
    assertTrue(fixed, fixed.contains("beyond that a block cache of 64 MiB (dev.pread.adaptive.cache.bytes)"));
    String cached = new AdaptiveRegime(AdaptiveRegime.Mode.CACHED, fake.memory(), 64 * MIB).describe();
    assertTrue(cached, cached.startsWith("mode cached (dev.pread.adaptive.mode): a block cache of 64 MiB"
        + " (dev.pread.adaptive.cache.bytes) always"));
    String mapped = new AdaptiveRegime(AdaptiveRegime.Mode.MAPPED, fake.memory(), 0).describe();
    assertEquals("mode mapped (dev.pread.adaptive.mode): memory mappings always, with no block cache", mapped);

    fake.write(group.resolve("memory.max"), "abc\n");
    String unreadable = new AdaptiveRegime(AdaptiveRegime.Mode.AUTO, fake.memory(), 0).describe();
    assertTrue(unreadable, unreadable.contains("unknown now, the memory figures cannot be read: "
        + group.resolve("memory.max") + ": not a byte count: \"abc\""));
  }

  private static void setCurrent(FakeProc fake, Path group, long bytes) {
    fake.write(group.resolve("memory.current"), bytes + "\n");
    fake.write(group.resolve("memory.stat"), "anon " + bytes + "\nactive_file 0\ninactive_file 0\n");
  }

  private void assertReads(IndexInput[] inputs, byte[] content) throws IOException {
    for (IndexInput in : inputs) {
      for (int k = 0; k < 20; k++) {
        int pos = random().nextInt(content.length - 16);
        IndexInput c = in.clone();
        c.seek(pos);
        byte[] got = new byte[16];
        c.readBytes(got, 0, 16);
        for (int j = 0; j < 16; j++) {
          assertEquals("byte " + (pos + j), content[pos + j], got[j]);
        }
      }
    }
  }
}
