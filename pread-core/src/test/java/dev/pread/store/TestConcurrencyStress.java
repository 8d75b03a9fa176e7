package dev.pread.store;

import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.apache.lucene.tests.util.TestUtil;

/**
 * {@link ConcurrencyStress}, a few seconds each ({@code -Dpread.stress.seconds=N} for longer; the
 * long run is {@link TestSoak}). Checks: zero wrong bytes, descriptors under the directory and
 * native buffers back to their start, and that each event the test is about happened at least
 * once: every read method on every kind of input, closes under readers, descriptor reuse,
 * interrupted reads, injected faults, evictions. A run goes on past its duration (up to a minute)
 * until they have, so the checks count what happened and do not depend on the machine's speed.
 */
public class TestConcurrencyStress extends LuceneTestCase {
  private static final long EXTRA_MILLIS = 60_000;

  private static long millis(long dflt) {
    return Long.getLong("pread.stress.seconds", dflt) * 1000;
  }

  /** Every read method and every kind of input, and then {@code more}. */
  private static List<String> reads(String... more) {
    List<String> events = new ArrayList<>();
    ConcurrencyStress.METHODS.forEach(m -> events.add("read method " + m));
    ConcurrencyStress.VIEWS.forEach(v -> events.add("read of " + v));
    events.addAll(List.of(more));
    return events;
  }

  private static ConcurrencyStress.Config config(long seed, long durationMillis, List<String> required) {
    ConcurrencyStress.Config c = new ConcurrencyStress.Config();
    c.seed = seed;
    c.durationMillis = durationMillis;
    c.maxMillis = durationMillis + EXTRA_MILLIS;
    c.until = f -> f.missing(required).isEmpty();
    return c;
  }

  private static void check(ConcurrencyStress.Figures f, List<String> required) {
    assertEquals("wrong reads; first: " + f.firstWrong, 0, f.wrong.get());
    assertEquals("descriptors left under the directory", f.fdsUnderBefore, f.fdsUnderAfter);
    assertEquals("native buffers", f.buffersBefore, f.buffersAfter);
    assertEquals("native buffer bytes", f.bufferBytesBefore, f.bufferBytesAfter);
    assertEquals("events that never happened in " + f, List.of(), f.missing(required));
  }

  /** Closes and reopens under readers, descriptor reuse, injected EINTR and short reads, interrupts. */
  public void testClosesReopensAndDescriptorReuse() throws Exception {
    List<String> required =
        reads(
            "closes under readers", "AlreadyClosedException seen", "churn opens", "descriptor reuses",
            "private opens", "reads while interrupted", "PREAD/EINTR", "PREAD/SHORT_READ", "OPEN/EINTR",
            "STATX/EINTR", "CLOSE/EINTR");
    ConcurrencyStress.Config c = config(random().nextLong(), millis(4), required);
    c.readers = 3;
    c.closers = 1;
    c.interrupts = true;
    c.transparentFaults = true;
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (closes, reuse, faults, interrupts) seed=0x" + Long.toHexString(c.seed) + ": " + f);
    check(f, required);
  }

  /**
   * The same through CachedPreadDirectory and a shared cache of one to eight blocks: every read
   * evicts, blocks are recycled under readers and closes, merge inputs read around the cache,
   * readers prefetch; with interrupts and injected EINTR and short reads.
   */
  public void testCachedTinyCacheEvictionChurn() throws Exception {
    List<String> required =
        reads("closes under readers", "churn opens", "evictions", "reads around the cache", "PREAD/EINTR", "PREAD/SHORT_READ");
    ConcurrencyStress.Config c = churn(required);
    c.cacheBlockSize = 1 << TestUtil.nextInt(random(), 12, 14);
    c.cacheBytes = (long) c.cacheBlockSize * TestUtil.nextInt(random(), 1, 8);
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (cached, " + c.cacheBytes / c.cacheBlockSize + " blocks of " + c.cacheBlockSize
        + ") seed=0x" + Long.toHexString(c.seed) + ": " + f);
    check(f, required);
    assertTrue(f.cacheStats.toString(), f.cacheStats.allocatedBytes() <= c.cacheBytes);
  }

  /**
   * The same through AdaptiveDirectory, every input moving to the next read path (mapping, a block
   * cache of one to eight blocks, page cache) at every open, clone, slice and prefetch while other
   * threads read it; closes unmap files under readers; injected EINTR and short reads.
   */
  public void testAdaptiveSwitchingUnderReadersAndCloses() throws Exception {
    List<String> required =
        reads("closes under readers", "AlreadyClosedException seen", "churn opens", "private opens", "PREAD/EINTR",
            "PREAD/SHORT_READ");
    ConcurrencyStress.Config c = churn(required);
    c.adaptiveCacheBytes = (long) AdaptiveRegime.CACHE_BLOCK_SIZE * TestUtil.nextInt(random(), 1, 8);
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (adaptive, switching, " + c.adaptiveCacheBytes / AdaptiveRegime.CACHE_BLOCK_SIZE
        + " blocks) seed=0x" + Long.toHexString(c.seed) + ": " + f);
    check(f, required);
  }

  /**
   * Three readers and a closer for 3 s, EINTR and short reads injected, interrupts on or off by
   * seed; with them on, {@code required} gains reads made while interrupted.
   */
  private static ConcurrencyStress.Config churn(List<String> required) {
    boolean interrupts = random().nextBoolean();
    if (interrupts) {
      required.add("reads while interrupted");
    }
    ConcurrencyStress.Config c = config(random().nextLong(), millis(3), required);
    c.readers = 3;
    c.closers = 1;
    c.interrupts = interrupts;
    c.transparentFaults = true;
    return c;
  }

  /** Readers interrupted continuously, no closes: every read correct, inputs stay open. */
  public void testInterruptStorm() throws Exception {
    List<String> required = reads("private opens", "reads while interrupted");
    ConcurrencyStress.Config c = config(random().nextLong(), millis(2), required);
    c.readers = 3;
    c.closers = 0;
    c.interrupts = true;
    ConcurrencyStress.Figures f = ConcurrencyStress.run(createTempDir(), c);
    System.out.println("stress (interrupt storm) seed=0x" + Long.toHexString(c.seed) + ": " + f);
    check(f, required);
    assertEquals("an interrupt must not close an input", 0, f.alreadyClosedSeen.get());
  }
}
