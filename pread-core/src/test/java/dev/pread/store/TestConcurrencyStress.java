package dev.pread.store;

import org.apache.lucene.tests.util.LuceneTestCase;

/**
 * {@link ConcurrencyStress}, a few seconds each ({@code -Dpread.stress.seconds=N} for longer; the
 * long run is {@link TestSoak}). Checks: zero wrong bytes, descriptors under the directory and
 * native buffers back to their start.
 */
public class TestConcurrencyStress extends LuceneTestCase {

  private static long millis(long dflt) {
    return Long.getLong("pread.stress.seconds", dflt) * 1000;
  }

  private static void check(ConcurrencyStress.Figures f) {
    assertEquals("wrong reads; first: " + f.firstWrong, 0, f.wrong.get());
    assertEquals("descriptors left under the directory", f.fdsUnderBefore, f.fdsUnderAfter);
    assertEquals("native buffers", f.buffersBefore, f.buffersAfter);
    assertEquals("native buffer bytes", f.bufferBytesBefore, f.bufferBytesAfter);
    assertTrue(f.reads.get() > 10_000);
  }

  /** Closes and reopens under readers, descriptor reuse, injected EINTR and short reads, interrupts. */
  public void testClosesReopensAndDescriptorReuse() throws Exception {
    ConcurrencyStress.Config c = new ConcurrencyStress.Config();
    c.seed = random().nextLong();
    c.durationMillis = millis(4);
    c.readers = 3;
    c.closers = 1;
    c.interrupts = true;
    c.transparentFaults = true;
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (closes, reuse, faults, interrupts) seed=0x" + Long.toHexString(c.seed) + ": " + f);
    check(f);
    assertTrue("inputs must be closed under readers", f.closesUnderReaders.get() > 10);
    assertTrue("readers must meet closed inputs", f.alreadyClosedSeen.get() > 0);
    assertTrue(f.churnOpens.get() > 0);
  }

  /**
   * The same through CachedPreadDirectory and a shared cache of one to eight blocks: every read
   * evicts, blocks are recycled under readers and closes, merge inputs read around the cache,
   * readers prefetch; with interrupts and injected EINTR and short reads.
   */
  public void testCachedTinyCacheEvictionChurn() throws Exception {
    ConcurrencyStress.Config c = new ConcurrencyStress.Config();
    c.seed = random().nextLong();
    c.durationMillis = millis(3);
    c.readers = 3;
    c.closers = 1;
    c.interrupts = random().nextBoolean();
    c.transparentFaults = true;
    c.cacheBlockSize = 1 << org.apache.lucene.tests.util.TestUtil.nextInt(random(), 12, 14);
    c.cacheBytes = (long) c.cacheBlockSize * org.apache.lucene.tests.util.TestUtil.nextInt(random(), 1, 8);
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (cached, " + c.cacheBytes / c.cacheBlockSize + " blocks of " + c.cacheBlockSize
        + ") seed=0x" + Long.toHexString(c.seed) + ": " + f);
    assertEquals("wrong reads; first: " + f.firstWrong, 0, f.wrong.get());
    assertEquals("descriptors left under the directory", f.fdsUnderBefore, f.fdsUnderAfter);
    assertEquals("native buffers", f.buffersBefore, f.buffersAfter);
    assertEquals("native buffer bytes", f.bufferBytesBefore, f.bufferBytesAfter);
    // Reads through a cache of a few blocks go to the disk (O_DIRECT): far fewer than through the
    // page cache, so the bars are lower than the other tests'.
    assertTrue(f.toString(), f.reads.get() > 1_000);
    assertTrue("inputs must be closed under readers", f.closesUnderReaders.get() > 2);
    assertTrue("the tiny cache must evict: " + f.cacheStats, f.cacheStats.evictions() > 100);
    assertTrue("merge inputs read around the cache: " + f.cacheStats, f.cacheStats.readAround() > 0);
    assertTrue(f.cacheStats.toString(), f.cacheStats.allocatedBytes() <= c.cacheBytes);
  }

  /** Readers interrupted continuously, no closes: every read correct, inputs stay open. */
  public void testInterruptStorm() throws Exception {
    ConcurrencyStress.Config c = new ConcurrencyStress.Config();
    c.seed = random().nextLong();
    c.durationMillis = millis(2);
    c.readers = 3;
    c.closers = 0;
    c.interrupts = true;
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (interrupt storm) seed=0x" + Long.toHexString(c.seed) + ": " + f);
    check(f);
    assertTrue(f.interrupts.get() > 1_000);
    assertEquals("an interrupt must not close an input", 0, f.alreadyClosedSeen.get());
  }
}
