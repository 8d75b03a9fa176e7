package dev.pread.bench.raw;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import dev.pread.bench.cache.CacheSettings;
import dev.pread.bench.cache.CacheUse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Raw reads: data file, offsets, strategies, verification. */
public class RawLogicTest {
  @Rule public TemporaryFolder tmp = new TemporaryFolder();

  @Test
  public void coldOffsetsAreDistinctAlignedBlocksAndRefuseToWrapAround() {
    long fileSize = 64 * 16384L;
    BatchPrefetchRun.Offsets distinct = new BatchPrefetchRun.Offsets(16384, fileSize, true, 7);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 32; i++) {
      long off = distinct.next();
      assertEquals("aligned to the read size", 0, off % 16384);
      assertTrue("inside the file", off + 16384 <= fileSize);
      assertTrue("no block twice: " + off, seen.add(off));
    }
    // Past half of the file, a cold run would spend its time searching for unread blocks.
    distinct.next();
    assertThrows(IllegalStateException.class, distinct::next);

    BatchPrefetchRun.Offsets any = new BatchPrefetchRun.Offsets(8192, fileSize, false, 7);
    for (int i = 0; i < 1000; i++) {
      long off = any.next();
      assertEquals(0, off % 4096);
      assertTrue(off + 8192 <= fileSize);
    }
  }

  @Test
  public void dataFileHasItsContentAndIsReused() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("d.dat");
    DataFile.ensure(f, 1 << 20);
    ByteBuffer b = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(f)) {
      while (b.hasRemaining() && ch.read(b) > 0) {}
    }
    for (int w = 0; w < (1 << 17); w += 997) {
      assertEquals(DataFile.word(w), b.getLong(w * 8));
    }
    long modified = Files.getLastModifiedTime(f).toMillis();
    DataFile.ensure(f, 1 << 20);
    assertEquals("a good file is reused", modified, Files.getLastModifiedTime(f).toMillis());
    // A damaged file is rewritten.
    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(8), 0);
    }
    DataFile.ensure(f, 1 << 20);
    try (FileChannel ch = FileChannel.open(f)) {
      ByteBuffer first = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(first, 0);
      assertEquals(DataFile.word(0), first.getLong(0));
    }
  }

  @Test
  public void runsVerifyAndAStrategyThatReadsWrongBytesFails() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("r.dat");
    long size = 4 << 20;
    DataFile.ensure(f, size);
    for (String name : StrategyRegistry.STRATEGIES) {
      try (Strategy s = StrategyRegistry.openStrategy(name, f, 16384)) {
        double rps = RandomReadRun.run(s, 2, 4096, size, 0, 50, 1);
        assertTrue(name + " read nothing", rps > 0);
      }
    }
    Strategy liar = new Strategy() {
      @Override public String name() { return "liar"; }
      @Override public Reader newReader(int readSize) {
        return new Reader() {
          @Override public long read(long position) { return 0; }
          @Override public boolean verifyFully(long position) { return true; }
        };
      }
      @Override public void close() {}
    };
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> RandomReadRun.run(liar, 1, 4096, size, 0, 50, 1));
    assertTrue(e.getCause().getMessage(), e.getCause().getMessage().contains("wrong bytes"));
  }

  @Test
  public void distinctOffsetsCanBeDistinctAtALargerBlockSize() {
    BatchPrefetchRun.Offsets o = new BatchPrefetchRun.Offsets(16384, 65536, 64 * 65536L, true, 9);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int i = 0; i < 32; i++) {
      long off = o.next();
      assertEquals(0, off % 65536);
      assertTrue(seen.add(off));
    }
  }

  /** dir-cached: preloading fills its cache with checked bytes; then readLong and 16 KiB reads only hit. */
  @Test
  public void dirCachedPreloadsAndReadsLongsFromItsCache() throws Exception {
    Path f = tmp.getRoot().toPath().resolve("c.dat");
    long size = 4 << 20;
    DataFile.ensure(f, size);
    CacheSettings settings = CacheSettings.holding(size, 16384);
    try (Strategy s = StrategyRegistry.openStrategy("dir-cached", f, 16384, settings)) {
      dev.pread.cache.BlockCache cache = s.cache().orElseThrow();
      assertEquals(settings.budgetBytes(), cache.budgetBytes());
      s.preload(size);
      assertEquals(size, cache.stats().bytesRead());
      for (int readSize : new int[] {Long.BYTES, 16384}) {
        CacheUse.Probe probe = CacheUse.probe(cache);
        try (Strategy.Reader reader = s.newReader(readSize)) {
          assertTrue(reader.verifyFully(8192));
          assertEquals(Strategy.expectedFingerprint(4096, readSize), reader.read(4096));
        }
        assertTrue(RandomReadRun.run(s, 2, readSize, size, 0, 50, 1) > 0);
        CacheUse use = probe.done();
        assertEquals(0, use.misses);
        assertEquals(0, use.bytesRead);
        assertEquals(1.0, use.hitRatio(), 0);
        use.check("test");
      }
    }
    assertThrows(IllegalArgumentException.class, () -> StrategyRegistry.openStrategy("dir-cached", f, 16384, null));
  }
}
